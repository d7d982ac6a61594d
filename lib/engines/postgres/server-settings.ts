/**
 * The settings a PostgreSQL server runs with where they differ from built-in defaults: what a comparison must show
 * first.
 */
import type { ConnectionInfo } from "../../targets/types";
import { withClient } from "./connect";

/** `name → value[unit]` for every setting whose source is not the default; per-session sources are left out. */
export async function nonDefaultSettings(connection: ConnectionInfo): Promise<Record<string, string>> {
  return withClient(
    connection,
    async (client) => {
      const res = await client.query<{ name: string; setting: string; unit: string | null }>(
        `SELECT name, setting, unit FROM pg_settings
          WHERE source NOT IN ('default', 'client', 'session', 'override') ORDER BY name`,
      );
      return Object.fromEntries(res.rows.map((r) => [r.name, r.unit ? `${r.setting} ${r.unit}` : r.setting]));
    },
    { applicationName: "dblab-metadata" },
  );
}

/** Memory, WAL and checkpoint sizes as a pgbench-driven experiment's parameters name them. */
export interface MemoryAndWal {
  readonly sharedBuffersMB: number;
  readonly maintenanceWorkMemMB: number;
  readonly maxWalSizeGB: number;
  readonly checkpointTimeoutMin: number;
}

/**
 * Those sizes as server settings: effective_cache_size as much again as shared_buffers, min_wal_size ¼ of max (≥ 1 GB)
 * so segments are recycled.
 */
export function memoryAndWalSettings(p: MemoryAndWal): Record<string, string> {
  return {
    shared_buffers: `${p.sharedBuffersMB}MB`,
    effective_cache_size: `${p.sharedBuffersMB * 2}MB`,
    maintenance_work_mem: `${p.maintenanceWorkMemMB}MB`,
    max_wal_size: `${p.maxWalSizeGB}GB`,
    min_wal_size: `${Math.max(1, Math.floor(p.maxWalSizeGB / 4))}GB`,
    checkpoint_timeout: `${p.checkpointTimeoutMin}min`,
  };
}

import type { ConnectionInfo } from "../../targets/types";
import { withClient } from "./connect";

/** Per-session sources are left out. */
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

export interface MemoryAndWal {
  readonly sharedBuffersMB: number;
  readonly maintenanceWorkMemMB: number;
  readonly maxWalSizeGB: number;
  readonly checkpointTimeoutMin: number;
}

/** min_wal_size ¼ of max (≥ 1 GB) so segments are recycled. */
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

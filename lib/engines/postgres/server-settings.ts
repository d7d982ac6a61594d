/**
 * The settings a PostgreSQL server actually runs with, where they differ from the built-in
 * defaults, as the server itself reports them: what a comparison of two runs must show first
 * (a changed setting is the usual cause of a changed figure nobody expected).
 */
import type { ConnectionInfo } from "../../targets/types";
import { withClient } from "./connect";

/**
 * `name → value[unit]` for every setting whose source is not the built-in default: the command
 * line (`-c`), the configuration file initdb wrote, ALTER SYSTEM, environment variables. Per-session
 * sources (client, session, override) say nothing about the server and are left out.
 */
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

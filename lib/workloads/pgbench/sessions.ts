/** pgbench's server sessions, seen from a connection of the lab's own. */
import type { Client } from "pg";

/**
 * Backends publish their statistics as they exit: waits (up to `timeoutMs`) until no pgbench
 * session is left in the client's database, so counters read next include all of the run's work.
 */
export async function waitForPgbenchGone(client: Client, timeoutMs = 5000): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  while (Date.now() < deadline) {
    const { rows } = await client.query<{ n: number }>(
      "SELECT count(*)::int AS n FROM pg_stat_activity WHERE datname = current_database() AND application_name = 'pgbench'",
    );
    if (rows[0].n === 0) return;
    await new Promise((r) => setTimeout(r, 50));
  }
}

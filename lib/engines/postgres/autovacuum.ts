/**
 * Autovacuum around timed trials: wait for workers to go idle before, count the runs inside a timed window to flag it.
 */
import type { Client } from "pg";

/** Autovacuum and autoanalyze runs so far over the current database's tables. */
export async function autovacuumRuns(client: Client): Promise<number> {
  const { rows } = await client.query<{ n: number }>(
    "SELECT coalesce(sum(autovacuum_count + autoanalyze_count), 0)::float8 AS n FROM pg_stat_all_tables",
  );
  return Number(rows[0].n);
}

export interface AutovacuumWait {
  /** No autovacuum worker was running when the wait ended. */
  readonly idle: boolean;
  readonly waitedMs: number;
}

/**
 * Polls pg_stat_activity until no autovacuum worker runs, or `timeoutMs` passes (then the window's count flags the
 * trial).
 */
export async function waitForAutovacuumIdle(client: Client, timeoutMs = 30_000, pollMs = 100): Promise<AutovacuumWait> {
  const started = Date.now();
  for (;;) {
    const { rows } = await client.query<{ n: number }>(
      "SELECT count(*)::int AS n FROM pg_stat_activity WHERE backend_type = 'autovacuum worker'",
    );
    const waitedMs = Date.now() - started;
    if (Number(rows[0].n) === 0) return { idle: true, waitedMs };
    if (waitedMs >= timeoutMs) return { idle: false, waitedMs };
    await new Promise((resolve) => setTimeout(resolve, pollMs));
  }
}

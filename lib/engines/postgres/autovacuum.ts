/**
 * Autovacuum around timed trials: wait for its workers to go idle before a trial starts, and count
 * the vacuums and analyzes that ran inside a timed window, so a trial that shared the server with
 * one can be flagged (and a verdict recomputed without it).
 */
import type { Client } from "pg";

/** Autovacuum and autoanalyze runs so far over the current database's tables (catalogs included). */
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
 * Polls pg_stat_activity until no autovacuum worker runs, or `timeoutMs` passes (then the trial runs
 * anyway and its window's autovacuum count flags it: a worker on a big table can run for minutes).
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

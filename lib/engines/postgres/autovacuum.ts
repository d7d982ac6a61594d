import type { Client } from "pg";

export async function autovacuumRuns(client: Client): Promise<number> {
  const { rows } = await client.query<{ n: number }>(
    "SELECT coalesce(sum(autovacuum_count + autoanalyze_count), 0)::float8 AS n FROM pg_stat_all_tables",
  );
  return Number(rows[0].n);
}

export interface AutovacuumWait {
  readonly idle: boolean;
  readonly waitedMs: number;
}

/** Else the window's autovacuum count flags the trial. */
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

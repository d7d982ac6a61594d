/** Fixtures 06's unit tests share: an index of the schema, and a pgbench run at a given rate. */
import type { IndexInfo } from "../../lib/experiments/your-indexes/workload/catalog";
import type { PgbenchRunResult } from "../../lib/workloads/pgbench";

export const indexInfo = (name: string, table: string, columns: string[], constraint = false): IndexInfo => ({
  name,
  table,
  columns,
  definition: `CREATE INDEX ${name} ON ${table} (${columns.join(", ")})`,
  constraint,
  unique: constraint,
  bytes: 8192,
});

/** A pgbench run of `seconds` at `tps`; with `latency`, percentiles that scale with 1 ÷ tps. */
export function pgbenchAt(tps: number, seconds: number, latency = true): PgbenchRunResult {
  const transactions = Math.round(tps * seconds);
  return {
    args: [],
    runner: "host",
    version: "17",
    startedAtMs: 0,
    loadStartedAtMs: 0,
    finishedAtMs: seconds * 1000,
    summary: { transactions, failed: 0, tps, statements: [], abortedClients: 0, latencyAvgMs: 1000 / tps },
    progress: [],
    series: [],
    ...(latency
      ? {
          latency: {
            n: transactions,
            meanMs: 1,
            p50Ms: 1000 / tps,
            p95Ms: 2000 / tps,
            p99Ms: 3000 / tps,
            maxMs: 10,
            samplingRate: 1,
          },
        }
      : {}),
    messages: [],
  };
}

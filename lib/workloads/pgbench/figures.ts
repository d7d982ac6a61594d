import type { PgbenchRunResult } from "./types";

export interface PgbenchFigures {
  readonly tps: number;
  readonly transactions: number;
  readonly failed: number;
  readonly latencyAvgMs?: number;
  /** From a per-transaction log only. */
  readonly p50Ms?: number;
  readonly p95Ms?: number;
  readonly p99Ms?: number;
}

export function pgbenchFigures(result: PgbenchRunResult): PgbenchFigures {
  return {
    tps: result.summary.tps,
    transactions: result.summary.transactions,
    failed: result.summary.failed,
    latencyAvgMs: result.summary.latencyAvgMs,
    p50Ms: result.latency?.p50Ms,
    p95Ms: result.latency?.p95Ms,
    p99Ms: result.latency?.p99Ms,
  };
}

/** With aborted clients it failed: its time is not a result; pgbench's output stays in the record. */
export function pgbenchOutcome(
  result: PgbenchRunResult,
): { readonly status: "ok"; readonly seconds: number } | { readonly status: "failed"; readonly error: string } {
  const aborted = result.summary.abortedClients;
  return aborted
    ? { status: "failed", error: `${aborted} pgbench client(s) aborted: ${result.messages.slice(-3).join(" / ")}` }
    : { status: "ok", seconds: (result.finishedAtMs - result.startedAtMs) / 1000 };
}

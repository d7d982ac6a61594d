/**
 * pgbench's `--log` files → a per-bucket series and the latency distribution. Per-transaction lines
 * give each transaction's end time, so buckets are exact and align with other wall-clock events;
 * an aggregated log (`--aggregate-interval`) gives no percentiles.
 */
import { quantileSorted } from "simple-statistics";
import type { LatencyDistribution, SeriesPoint } from "./types";

export interface LoggedTransaction {
  /** Unix ms. */
  readonly endMs: number;
  readonly latencyMs: number;
  /** Failed transactions are logged with "failed"/"skipped" instead of a latency. */
  readonly failed: boolean;
}

export function parseTransactionLog(text: string): LoggedTransaction[] {
  const out: LoggedTransaction[] = [];
  for (const line of text.split("\n")) {
    const f = line.trim().split(/\s+/);
    if (f.length < 6) continue;
    const epoch = Number(f[4]);
    const micros = Number(f[5]);
    if (!Number.isFinite(epoch) || !Number.isFinite(micros)) continue;
    const endMs = epoch * 1000 + micros / 1000;
    const latency = Number(f[2]);
    out.push({ endMs, latencyMs: Number.isFinite(latency) ? latency / 1000 : 0, failed: !Number.isFinite(latency) });
  }
  return out;
}

export interface AggregateInterval {
  readonly startMs: number;
  readonly transactions: number;
  readonly sumLatencyMs: number;
  readonly minLatencyMs: number;
  readonly maxLatencyMs: number;
}

export function parseAggregateLog(text: string): AggregateInterval[] {
  const out: AggregateInterval[] = [];
  for (const line of text.split("\n")) {
    const f = line.trim().split(/\s+/).map(Number);
    if (f.length < 6 || f.slice(0, 6).some((x) => !Number.isFinite(x))) continue;
    out.push({
      startMs: f[0] * 1000,
      transactions: f[1],
      sumLatencyMs: f[2] / 1000,
      minLatencyMs: f[4] / 1000,
      maxLatencyMs: f[5] / 1000,
    });
  }
  return out;
}

/** Of the successful logged transactions. */
export function latencyDistribution(
  transactions: readonly LoggedTransaction[],
  samplingRate = 1,
): LatencyDistribution | undefined {
  const sorted = transactions
    .filter((t) => !t.failed)
    .map((t) => t.latencyMs)
    .sort((a, b) => a - b);
  if (sorted.length === 0) return undefined;
  return {
    n: sorted.length,
    meanMs: sorted.reduce((a, b) => a + b, 0) / sorted.length,
    p50Ms: quantileSorted(sorted, 0.5),
    p95Ms: quantileSorted(sorted, 0.95),
    p99Ms: quantileSorted(sorted, 0.99),
    maxMs: sorted[sorted.length - 1],
    samplingRate,
  };
}

/**
 * Buckets transactions by end time, empty ones included (a stall shows as zeros); `samplingRate` scales counts back up.
 */
export function transactionSeries(
  transactions: readonly LoggedTransaction[],
  startMs: number,
  endMs: number,
  bucketMs = 1000,
  samplingRate = 1,
): SeriesPoint[] {
  const buckets = Math.max(1, Math.ceil((endMs - startMs) / bucketMs));
  const latencies: number[][] = Array.from({ length: buckets }, () => []);
  for (const t of transactions) {
    if (t.failed) continue;
    const i = Math.floor((t.endMs - startMs) / bucketMs);
    if (i >= 0 && i < buckets) latencies[i].push(t.latencyMs);
  }
  return latencies.map((values, i) => {
    const sorted = [...values].sort((a, b) => a - b);
    const n = sorted.length;
    return {
      second: (i * bucketMs) / 1000,
      epochMs: startMs + i * bucketMs,
      transactions: Math.round(n / samplingRate),
      tps: n / samplingRate / (bucketMs / 1000),
      latencyAvgMs: n ? sorted.reduce((a, b) => a + b, 0) / n : 0,
      latencyMaxMs: n ? sorted[n - 1] : 0,
      latencyP95Ms: n ? quantileSorted(sorted, 0.95) : 0,
    };
  });
}

/** The aggregated log as a series; all threads' intervals with the same start are summed. */
export function aggregateSeries(
  intervals: readonly AggregateInterval[],
  startMs: number,
  intervalSeconds: number,
): SeriesPoint[] {
  const byStart = new Map<number, AggregateInterval[]>();
  for (const i of intervals) byStart.set(i.startMs, [...(byStart.get(i.startMs) ?? []), i]);
  return [...byStart.entries()]
    .sort(([a], [b]) => a - b)
    .map(([start, group]) => {
      const transactions = group.reduce((a, g) => a + g.transactions, 0);
      const sum = group.reduce((a, g) => a + g.sumLatencyMs, 0);
      return {
        second: (start - startMs) / 1000,
        epochMs: start,
        transactions,
        tps: transactions / intervalSeconds,
        latencyAvgMs: transactions ? sum / transactions : 0,
        latencyMaxMs: Math.max(...group.map((g) => g.maxLatencyMs)),
      };
    });
}

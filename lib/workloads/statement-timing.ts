/**
 * The total (what the seed timed) and every statement's duration, summarised: 10,000 raw values per
 * trial would swamp trials.jsonl.
 */
import type { Client } from "pg";
import { quantileSorted } from "simple-statistics";

export interface StatementTimes {
  readonly count: number;
  readonly meanMs: number;
  readonly p10Ms: number;
  readonly p50Ms: number;
  readonly p90Ms: number;
  readonly p99Ms: number;
  readonly maxMs: number;
}

export interface TimedStream {
  readonly seconds: number;
  readonly statements: StatementTimes;
}

export function summariseTimes(values: Float64Array | readonly number[]): StatementTimes {
  const sorted = Float64Array.from(values).sort();
  const n = sorted.length;
  if (n === 0) return { count: 0, meanMs: 0, p10Ms: 0, p50Ms: 0, p90Ms: 0, p99Ms: 0, maxMs: 0 };
  const list = Array.from(sorted);
  let sum = 0;
  for (const v of list) sum += v;
  return {
    count: n,
    meanMs: sum / n,
    p10Ms: quantileSorted(list, 0.1),
    p50Ms: quantileSorted(list, 0.5),
    p90Ms: quantileSorted(list, 0.9),
    p99Ms: quantileSorted(list, 0.99),
    maxMs: list[n - 1],
  };
}

export async function timeStatements(
  client: Client,
  sql: Iterable<string>,
  expected: number,
  signal?: AbortSignal,
): Promise<TimedStream> {
  const times = new Float64Array(Math.max(1, expected));
  let i = 0;
  const start = process.hrtime.bigint();
  for (const statement of sql) {
    if (signal?.aborted) throw new Error("aborted");
    const t0 = process.hrtime.bigint();
    await client.query(statement);
    const ms = Number(process.hrtime.bigint() - t0) / 1e6;
    if (i < times.length) times[i] = ms;
    i++;
  }
  const seconds = Number(process.hrtime.bigint() - start) / 1e9;
  return { seconds, statements: summariseTimes(times.subarray(0, Math.min(i, times.length))) };
}

/** A round-trip probe for link calibration. */
export function selectOneProbe(client: Client): (n: number) => Promise<number[]> {
  return async (n: number) => {
    const out: number[] = [];
    for (let i = 0; i < n; i++) {
      const t0 = process.hrtime.bigint();
      await client.query("SELECT 1");
      out.push(Number(process.hrtime.bigint() - t0) / 1e6);
    }
    return out;
  };
}

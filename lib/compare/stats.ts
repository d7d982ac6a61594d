/**
 * Is run B's change from A distinguishable from noise? The exact two-sided Mann–Whitney U test on the
 * trial values, ties by doubled mid-ranks; why this test and α: docs/statistics.md.
 */
import { medianInterval as exactMedianInterval } from "../stats/intervals";

/** docs/statistics.md: with 3 trials a side the smallest p is 0.10. */
export const DEFAULT_ALPHA = 0.1;

export interface RankTest {
  /** Mann–Whitney U of B (pairs with b > a, ties counting ½). */
  readonly u: number;
  readonly p: number;
  readonly minP: number;
}

/** Mid-ranks, doubled so that they are integers. */
function doubledMidRanks(values: readonly number[]): number[] {
  const order = values.map((v, i) => ({ v, i })).sort((x, y) => x.v - y.v);
  const ranks = new Array<number>(values.length);
  for (let start = 0; start < order.length;) {
    let end = start;
    while (end + 1 < order.length && order[end + 1].v === order[start].v) end++;
    // ranks start+1 … end+1 → mean (start+end+2)/2, doubled: start+end+2.
    for (let k = start; k <= end; k++) ranks[order[k].i] = start + end + 2;
    start = end + 1;
  }
  return ranks;
}

/** Ways to choose `n` of the items, by their sum of doubled ranks (doubles: approximate beyond 2^53). */
function rankSumDistribution(ranks: readonly number[], n: number): number[] {
  const maxSum = ranks.reduce((a, b) => a + b, 0);
  // dp[k][s]: ways to pick k items with doubled rank sum s.
  let dp: number[][] = Array.from({ length: n + 1 }, () => new Array<number>(maxSum + 1).fill(0));
  dp[0][0] = 1;
  for (const r of ranks) {
    const next = dp.map((row) => row.slice());
    for (let k = 0; k < n; k++) {
      const row = dp[k];
      const target = next[k + 1];
      for (let s = 0; s + r <= maxSum; s++) if (row[s] !== 0) target[s + r] += row[s];
    }
    dp = next;
  }
  return dp[n];
}

export function mannWhitney(a: readonly number[], b: readonly number[]): RankTest {
  if (a.length === 0 || b.length === 0) throw new Error("mannWhitney() needs at least one value on each side");
  const pooled = [...a, ...b];
  const ranks = doubledMidRanks(pooled);
  const n = b.length;
  const N = pooled.length;
  const ways = rankSumDistribution(ranks, n);
  const total = ways.reduce((x, y) => x + y, 0);
  // Doubled rank sum of B and its mean under H0: n(N+1).
  const observed = ranks.slice(a.length).reduce((x, y) => x + y, 0);
  const centre = n * (N + 1);
  const distance = Math.abs(observed - centre);
  let tail = 0;
  let extreme = 0;
  let maxDistance = 0;
  ways.forEach((w, s) => {
    if (w === 0) return;
    const d = Math.abs(s - centre);
    if (d >= distance) tail += w;
    if (d > maxDistance) {
      maxDistance = d;
      extreme = 0;
    }
    if (d === maxDistance) extreme += w;
  });
  const u = observed / 2 - (n * (n + 1)) / 2;
  return { u, p: Math.min(1, tail / total), minP: Math.min(1, extreme / total) };
}

export interface ConditionInterval {
  readonly median: number;
  readonly low: number;
  readonly high: number;
  readonly coverage: number;
}

/** One condition's median with its exact interval at 95 % (stats/intervals.ts). */
export function conditionInterval(values: readonly number[], level = 0.95): ConditionInterval {
  const m = exactMedianInterval(values, "trials of one condition", level);
  return { median: m.estimate, low: m.low, high: m.high, coverage: m.coverage };
}

export interface Change {
  readonly ratio: number;
  /** [low(B)/high(A), high(B)/low(A)]: covers the true ratio with at least coverage(A) × coverage(B). */
  readonly ciLow: number;
  readonly ciHigh: number;
  readonly coverage: number;
  readonly test: RankTest;
  /** p ≤ α: with 3 vs 3 the smallest p is exactly α. */
  readonly distinguishable: boolean;
}

export function significant(p: number, alpha = DEFAULT_ALPHA): boolean {
  return p <= alpha + 1e-12;
}

export function change(a: readonly number[], b: readonly number[], alpha = DEFAULT_ALPHA): Change {
  const ia = conditionInterval(a);
  const ib = conditionInterval(b);
  const test = mannWhitney(a, b);
  return {
    ratio: ib.median / ia.median,
    ciLow: ia.high > 0 ? ib.low / ia.high : NaN,
    ciHigh: ia.low > 0 ? ib.high / ia.low : NaN,
    coverage: ia.coverage * ib.coverage,
    test,
    distinguishable: significant(test.p, alpha),
  };
}

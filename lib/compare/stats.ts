/**
 * The statistics of a comparison of two runs: is B's change from A distinguishable from noise?
 *
 * Test: the exact two-sided Mann–Whitney U (Wilcoxon rank-sum) test on the trial values. Why this one:
 * - ranks, not means: on this shared 2-core machine one trial in a few is disturbed by a neighbour
 *   (notebook 04 saw TPS drift ±25 % from run to run); a mean-based permutation test lets that one
 *   value decide, a rank test does not;
 * - exact, not the normal approximation: runs have 2–5 trials per condition, where the
 *   approximation is wrong by a factor of two or more;
 * - the distribution is computed exactly by dynamic programming over (doubled) mid-ranks, so ties
 *   are handled (the conditional permutation distribution of the rank sum) and no seed is needed.
 * Written here because simple-statistics has only the rank-sum statistic (`wilcoxonRankSum`, no
 * p-value) and an unseeded, mean-based `permutationTest`.
 *
 * Honest limits. With n trials per side the smallest two-sided p is 2 / C(2n, n): 0.33 for 2 vs 2,
 * 0.10 for 3 vs 3, 0.029 for 4 vs 4, 0.008 for 5 vs 5. So the default α is 0.10 and a change is
 * flagged when p ≤ α (benchstat uses 0.05, but with 3 trials a side — the `default` profile's —
 * nothing could ever be flagged at 0.05): when nothing changed, at most one condition in ten is
 * flagged by chance (exactly one in ten with 3 vs 3), and with 3 vs 3 "flagged" means
 * "every B trial is beyond every A trial". With 2 vs 2 (the `smoke` profile) nothing can be flagged.
 */
import { medianInterval as exactMedianInterval } from "../stats/intervals";

/** Default significance level; see the header for why 0.10 and not benchstat's 0.05. */
export const DEFAULT_ALPHA = 0.1;

export interface RankTest {
  /** Mann–Whitney U of B (the number of (a, b) pairs with b > a, ties counting ½). */
  readonly u: number;
  /** Exact two-sided p-value. */
  readonly p: number;
  /** The smallest p these sample sizes can give: below α or nothing can ever be flagged. */
  readonly minP: number;
}

/** Mid-ranks (1-based; ties share the mean of their ranks), doubled so that they are integers. */
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

/**
 * Number of ways to choose `n` of the items, by their sum of (doubled) ranks: ways[s].
 * Counts are doubles: beyond 2^53 they are approximate, which a probability does not notice.
 */
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

/** Exact two-sided Mann–Whitney U test of B against A. */
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
  /** The probability that [low, high] covers the true median (distribution-free, from order statistics). */
  readonly coverage: number;
}

/**
 * One condition's median with its exact order-statistic interval (lib/stats/intervals.ts `medianInterval`),
 * at the comparison's 95 % rather than a claim's 90 %, in this module's shape.
 */
export function conditionInterval(values: readonly number[], level = 0.95): ConditionInterval {
  const m = exactMedianInterval(values, "trials of one condition", level);
  return { median: m.estimate, low: m.low, high: m.high, coverage: m.coverage };
}

export interface Change {
  /** median(B) / median(A). */
  readonly ratio: number;
  /**
   * Interval of the ratio from the two medians' exact intervals: [low(B)/high(A), high(B)/low(A)].
   * The runs are independent, so it covers the ratio of the true medians with at least
   * coverage(A) × coverage(B) (`coverage`): 56 % with 3 trials a side, 88 % with 5. No bootstrap: a
   * percentile bootstrap of 3 values relabels the range as "95 %".
   */
  readonly ciLow: number;
  readonly ciHigh: number;
  readonly coverage: number;
  readonly test: RankTest;
  /**
   * p ≤ α: distinguishable from noise at this level. "≤", not "<": with 3 vs 3 the smallest p is
   * exactly 0.10, and the chance of p ≤ 0.10 when nothing changed is then exactly 0.10 = α.
   */
  readonly distinguishable: boolean;
}

/** p ≤ α, with room for the rounding of a p that is exactly α (3 vs 3: 2/20). */
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

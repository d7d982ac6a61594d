/**
 * Intervals that mean what their label says, for the few repeats these experiments can afford.
 *
 * Conditions of one repeat run back to back (same table, same minute of the machine's drift), so a
 * ratio is formed per repeat first (paired), then summarised over repeats. The interval is the
 * exact, distribution-free interval of the median from order statistics: with n values, the k-th
 * smallest and k-th largest bracket the median with probability 1 − 2·P(Binomial(n, ½) < k). It
 * needs no resampling and no normality; a percentile bootstrap of a median of 3 values returns the
 * min–max range relabelled "95 %" (which covers the median with 75 %), the defect this replaces.
 * Written here because simple-statistics has no order-statistic interval; it is a few lines.
 */
import { median } from "simple-statistics";

export interface Interval {
  /** The median of the values. */
  readonly estimate: number;
  readonly low: number;
  readonly high: number;
  /** How many values (paired repeats) the interval is made of. */
  readonly n: number;
  /** Probability that [low, high] covers the true median (exact, for independent repeats). */
  readonly coverage: number;
  /** What the values are, e.g. "paired ratios 5 idx / 0 idx, one per repeat". */
  readonly of: string;
  /** The order statistics used: the k-th smallest and k-th largest (1: the min–max range). */
  readonly rank?: number;
}

function binomialCdfHalf(n: number, k: number): number {
  // P(X ≤ k) for X ~ Binomial(n, 1/2)
  let c = 1;
  let sum = 0;
  for (let i = 0; i <= k; i++) {
    if (i > 0) c = (c * (n - i + 1)) / i;
    sum += c;
  }
  return sum / 2 ** n;
}

/**
 * The order statistic (1-based) of the narrowest interval of the median of n values whose coverage
 * is at least `level`: the largest k with 1 − 2·P(X ≤ k − 1) ≥ level, X ~ Binomial(n, ½); 0 when
 * even the min–max range (k = 1) covers less.
 */
export function medianRank(n: number, level: number): number {
  let k = 0;
  while (k + 1 <= Math.floor((n + 1) / 2) && 1 - 2 * binomialCdfHalf(n, k) >= level) k++;
  return k;
}

/**
 * The narrowest order-statistic interval of the median whose coverage is at least `level`; with too
 * few values for that, the min–max range with its (lower) coverage. The default level is the one a
 * claim needs to be decided (MIN_COVERAGE in claims.ts, 90 %), so the interval shown is the one that
 * decides: from 8 repeats on it drops the extreme values (n = 8: 2nd–7th, 93.0 %), so one disturbed
 * repeat no longer sets its width.
 */
export function medianInterval(values: readonly number[], of: string, level = 0.9): Interval {
  const finite = values.filter((v) => Number.isFinite(v));
  if (finite.length === 0) throw new Error(`medianInterval of no values (${of})`);
  const sorted = [...finite].sort((a, b) => a - b);
  const n = sorted.length;
  // k = 1 is the range, used (with its lower coverage) when even the range covers less than `level`.
  const k = Math.max(1, medianRank(n, level));
  const coverage = n === 1 ? 0 : 1 - 2 * binomialCdfHalf(n, k - 1);
  const out = { estimate: median(sorted), low: sorted[k - 1], high: sorted[n - k], n, coverage, of, rank: k };
  madeFrom.set(out, sorted);
  return out;
}

/**
 * The values each interval `medianInterval` made came from, kept beside it rather than in it: the
 * summaries stay as they were, and an interval built from another (inverted, spread) has none, so it
 * is never re-ranked on values that are not its own.
 */
const madeFrom = new WeakMap<Interval, readonly number[]>();

/**
 * The same values' interval at a higher coverage (an adaptive run's per-look level, stats/adaptive
 * `lookPlan`); the interval itself when it has that coverage already or its values are not known
 * (then the rule finds its coverage too low and says how many repeats it needs).
 */
export function atCoverage(i: Interval, level: number): Interval {
  const values = madeFrom.get(i);
  return i.coverage >= level || !values ? i : medianInterval(values, i.of, level);
}

/**
 * Per-repeat ratios target/baseline for the repeats both conditions finished: the pairing keeps
 * drift between repeats out of the ratio.
 */
export function pairedRatios(
  target: ReadonlyMap<number, number>,
  baseline: ReadonlyMap<number, number>,
): { readonly repeat: number; readonly ratio: number }[] {
  const out: { repeat: number; ratio: number }[] = [];
  for (const [repeat, t] of target) {
    const b = baseline.get(repeat);
    if (b !== undefined && b > 0 && Number.isFinite(t)) out.push({ repeat, ratio: t / b });
  }
  return out.sort((a, b) => a.repeat - b.repeat);
}

/**
 * What the interval is, with its exact coverage: "93.8 % CI of the median, n = 5 (the range)", or,
 * below the 90 % a claim needs, "range of n = 3 (covers the median 75 %)".
 */
export function intervalLabel(i: Interval): string {
  if (i.n === 1) return "one value, no interval";
  const cov = Math.round(i.coverage * 1000) / 10;
  if (i.coverage >= 0.9) return `${cov} % CI of the median, n = ${i.n}${(i.rank ?? 1) === 1 ? " (the range)" : ""}`;
  return `range of n = ${i.n} (covers the median ${cov} %)`;
}

export function intervalText(i: Interval, fmt: (x: number) => string): string {
  return `${fmt(i.estimate)} [${fmt(i.low)}–${fmt(i.high)}, ${intervalLabel(i)}]`;
}

/**
 * Trials far outside their repeats: modified z-score 0.6745·|x − median| / MAD above 3.5
 * (Iglewicz & Hoaglin's rule), with the MAD floored at 2 % of the median so that three nearly equal
 * trials do not make a 5 % deviation an outlier. The flag is shown; the values stay in the data, and
 * verdicts say whether they change without them.
 */
export const OUTLIER_RULE =
  "modified z-score 0.6745·|x − median| / MAD > 3.5 within the condition's trials (MAD floored at 2 % of the median)";

export function outlierFlags(values: readonly number[]): boolean[] {
  if (values.length < 3) return values.map(() => false);
  const m = median([...values]);
  const mad = Math.max(median(values.map((v) => Math.abs(v - m))), 0.02 * Math.abs(m));
  if (mad === 0) return values.map(() => false);
  return values.map((v) => (0.6745 * Math.abs(v - m)) / mad > 3.5);
}

/**
 * For few repeats: per-repeat (paired) ratios summarised by the exact order-statistic interval of
 * the median (covers it with 1 − 2·P(Binomial(n, ½) < k)), not a bootstrap.
 */
import { median } from "simple-statistics";

export interface Interval {
  readonly estimate: number;
  readonly low: number;
  readonly high: number;
  readonly n: number;
  readonly coverage: number;
  readonly of: string;
  /** 1: the min–max range. */
  readonly rank?: number;
}

function binomialCdfHalf(n: number, k: number): number {
  let c = 1;
  let sum = 0;
  for (let i = 0; i <= k; i++) {
    if (i > 0) c = (c * (n - i + 1)) / i;
    sum += c;
  }
  return sum / 2 ** n;
}

/** 0 when even the range covers less. */
export function medianRank(n: number, level: number): number {
  let k = 0;
  while (k + 1 <= Math.floor((n + 1) / 2) && 1 - 2 * binomialCdfHalf(n, k) >= level) k++;
  return k;
}

/** From n = 8 it drops the extremes, so one disturbed repeat no longer sets its width. */
export function medianInterval(values: readonly number[], of: string, level = 0.9): Interval {
  const finite = values.filter((v) => Number.isFinite(v));
  if (finite.length === 0) throw new Error(`medianInterval of no values (${of})`);
  const sorted = [...finite].sort((a, b) => a - b);
  const n = sorted.length;
  const k = Math.max(1, medianRank(n, level));
  const coverage = n === 1 ? 0 : 1 - 2 * binomialCdfHalf(n, k - 1);
  const out = { estimate: median(sorted), low: sorted[k - 1], high: sorted[n - k], n, coverage, of, rank: k };
  madeFrom.set(out, sorted);
  return out;
}

/** Never re-ranked on values not its own. */
const madeFrom = new WeakMap<Interval, readonly number[]>();

/** An adaptive look's interval; itself when already there or values unknown. */
export function atCoverage(i: Interval, level: number): Interval {
  const values = madeFrom.get(i);
  return i.coverage >= level || !values ? i : medianInterval(values, i.of, level);
}

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

export function intervalLabel(i: Interval): string {
  if (i.n === 1) return "one value, no interval";
  const cov = Math.round(i.coverage * 1000) / 10;
  if (i.coverage >= 0.9) return `${cov} % CI of the median, n = ${i.n}${(i.rank ?? 1) === 1 ? " (the range)" : ""}`;
  return `range of n = ${i.n} (covers the median ${cov} %)`;
}

export function intervalText(i: Interval, fmt: (x: number) => string): string {
  return `${fmt(i.estimate)} [${fmt(i.low)}–${fmt(i.high)}, ${intervalLabel(i)}]`;
}

/** "1.23 [1.10–1.40]", for a table cell whose caption names the interval; empty without one. */
export const estimateAndRange = (i: Interval | undefined, digits = 2): string =>
  i ? `${i.estimate.toFixed(digits)} [${i.low.toFixed(digits)}–${i.high.toFixed(digits)}]` : "";

/** Modified z-score > 3.5, MAD floored at 2 % of the median: flagged, kept. */
export const OUTLIER_RULE =
  "modified z-score 0.6745·|x − median| / MAD > 3.5 within the condition's trials (MAD floored at 2 % of the median)";

export function outlierFlags(values: readonly number[]): boolean[] {
  if (values.length < 3) return values.map(() => false);
  const m = median([...values]);
  const mad = Math.max(median(values.map((v) => Math.abs(v - m))), 0.02 * Math.abs(m));
  if (mad === 0) return values.map(() => false);
  return values.map((v) => (0.6745 * Math.abs(v - m)) / mad > 3.5);
}

/**
 * Every figure the notebooks show is computed here, once, from the raw trial values:
 * median, min–max, ratio of medians with a bootstrap confidence interval, overlap flags.
 */
import prand from "pure-rand";
import { median, quantileSorted } from "simple-statistics";

export interface Spread {
  readonly n: number;
  readonly median: number;
  readonly min: number;
  readonly max: number;
  readonly values: readonly number[];
}

/** A condition's timed trials: how many ran, how many failed, the raw seconds and their spread. */
export interface TrialSeconds {
  readonly trials: number;
  readonly failed: number;
  readonly seconds: readonly number[];
  readonly medianSeconds: number;
  readonly minSeconds: number;
  readonly maxSeconds: number;
}

export function spread(values: readonly number[]): Spread {
  if (values.length === 0) throw new Error("spread() of no values");
  return { n: values.length, median: median([...values]), min: Math.min(...values), max: Math.max(...values), values };
}

export interface Ratio {
  /** median(target) / median(baseline). */
  readonly ratio: number;
  /** Bootstrap percentile 95 % interval of the ratio of medians. */
  readonly ciLow: number;
  readonly ciHigh: number;
  /** True when the min–max ranges of the two conditions overlap: do not over-read the ratio. */
  readonly rangesOverlap: boolean;
}

/**
 * Ratio of medians with a percentile bootstrap CI (resampling each side independently).
 * Written here because simple-statistics has no two-sample bootstrap; the PRNG is seeded so the
 * same trials always give the same interval.
 */
export function ratioOfMedians(
  target: readonly number[],
  baseline: readonly number[],
  resamples = 2000,
  seed = 42,
): Ratio {
  const t = spread(target);
  const b = spread(baseline);
  const rng = prand.xoroshiro128plus(seed);
  const draws: number[] = [];
  const sample = (values: readonly number[]): number => {
    const picked = values.map(() => values[prand.unsafeUniformIntDistribution(0, values.length - 1, rng)]);
    return median(picked);
  };
  for (let i = 0; i < resamples; i++) draws.push(sample(target) / sample(baseline));
  draws.sort((x, y) => x - y);
  return {
    ratio: t.median / b.median,
    ciLow: quantileSorted(draws, 0.025),
    ciHigh: quantileSorted(draws, 0.975),
    rangesOverlap: t.min <= b.max && b.min <= t.max,
  };
}

/** Groups items by a string key, keeping first-seen order. */
export function groupBy<T>(items: readonly T[], key: (item: T) => string): Map<string, T[]> {
  const groups = new Map<string, T[]>();
  for (const item of items) {
    const k = key(item);
    const list = groups.get(k);
    if (list) list.push(item);
    else groups.set(k, [item]);
  }
  return groups;
}

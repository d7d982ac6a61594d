/** Medians, spreads and grouping of raw trial values; intervals and paired ratios are in intervals.ts. */
import { median } from "simple-statistics";

export interface Spread {
  readonly n: number;
  readonly median: number;
  readonly min: number;
  readonly max: number;
  readonly values: readonly number[];
}

/** A condition's trial times as its summary names them. */
export interface SecondsSpread {
  readonly medianSeconds: number;
  readonly minSeconds: number;
  readonly maxSeconds: number;
}

/** The median of the finite values, or undefined when there is none. */
export function medianOfFinite(values: readonly (number | undefined)[]): number | undefined {
  const finite = values.filter((v): v is number => v !== undefined && Number.isFinite(v));
  return finite.length ? median(finite) : undefined;
}

export function spread(values: readonly number[]): Spread {
  if (values.length === 0) throw new Error("spread() of no values");
  return { n: values.length, median: median([...values]), min: Math.min(...values), max: Math.max(...values), values };
}

/** The spread of trial times as a summary names it; the values themselves stay where each summary puts them. */
export function secondsSpread(seconds: readonly number[]): SecondsSpread {
  const s = spread(seconds);
  return { medianSeconds: s.median, minSeconds: s.min, maxSeconds: s.max };
}

/** Groups by a string key, keeping first-seen order. */
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

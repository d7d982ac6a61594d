/**
 * Statistics that more than one notebook's claims compute from their summaries: a median's interval
 * over the values a summary has, and per-repeat pairings of two conditions (the pairing keeps drift
 * between repeats out of the statistic). Each gives undefined when there is nothing to compute on, so a
 * claim's statistic says what it needs instead of deciding on nothing.
 */
import { medianInterval, type Interval } from "./intervals";

/** Values by repeat (or round): a record, or rows that carry their repeat. */
export type ByRepeat = Readonly<Record<number, number | undefined>>;

/** The median's interval over the finite values; undefined when there are none. */
export function finiteInterval(values: readonly (number | undefined)[], of: string): Interval | undefined {
  const v = values.filter((x): x is number => x !== undefined && Number.isFinite(x));
  return v.length ? medianInterval(v, of) : undefined;
}

/** Rows that carry their repeat (07's rounds) as values by repeat. */
export function byRepeat<R extends { readonly repeat: number }>(
  rows: readonly R[],
  pick: (r: R) => number | undefined,
): ByRepeat {
  return Object.fromEntries(rows.map((r) => [r.repeat, pick(r)]));
}

/**
 * f of two conditions' values in the same repeat, for every repeat both have and `keep` keeps (a
 * sensitivity pass leaves flagged repeats out); the median's interval over the finite results.
 */
export function pairedInterval(
  a: ByRepeat,
  b: ByRepeat,
  f: (x: number, y: number) => number,
  of: string,
  keep: (repeat: number) => boolean = () => true,
): Interval | undefined {
  const values: number[] = [];
  for (const [key, x] of Object.entries(a)) {
    const repeat = Number(key);
    const y = b[repeat];
    if (x === undefined || y === undefined || !keep(repeat)) continue;
    values.push(f(x, y));
  }
  return finiteInterval(values, of);
}

/** x ÷ y for a positive finite y, else NaN (left out): a quotient of two conditions' values. */
export const quotient = (x: number, y: number): number => (Number.isFinite(y) && y > 0 ? x / y : NaN);

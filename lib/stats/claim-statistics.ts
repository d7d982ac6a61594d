/**
 * Statistics and "why" pieces that several notebooks' claims compute: the median with its exact
 * interval over per-unit values (a repeat, a round, a set), the values of two conditions paired by
 * unit, the "a → b" of a counter between two conditions, and the flagged units a sensitivity pass
 * leaves out. Generic over the unit, so each notebook's summary types stay its own.
 */
import type { Flagged } from "./claims";
import { medianInterval, type Interval } from "./intervals";

const finite = (x: number | undefined): x is number => x !== undefined && Number.isFinite(x);

/**
 * The median over units of a per-unit value, with its exact order-statistic interval; units whose
 * value is undefined or not finite (a counter missing, a zero denominator) are left out; undefined
 * when none is left.
 */
export function medianOf<U>(
  units: readonly U[],
  value: (u: U) => number | undefined,
  of: string,
): Interval | undefined {
  const values = units.map(value).filter(finite);
  return values.length ? medianInterval(values, of) : undefined;
}

/** x ÷ y when both are known and y is above 0; else undefined. */
export const quotient = (x: number | undefined, y: number | undefined): number | undefined =>
  x !== undefined && y !== undefined && y > 0 ? x / y : undefined;

/**
 * One value per unit that both conditions ran, from the two units paired by key (the repeat or the
 * round): `f(top unit, bottom unit)`, undefined and non-finite results left out. The pairing keeps
 * drift between units out of the statistic.
 */
export function pairedValues<T, B = T>(
  top: readonly T[],
  bottom: readonly B[],
  key: { top: (t: T) => number; bottom: (b: B) => number },
  f: (t: T, b: B) => number | undefined,
): number[] {
  const byKey = new Map(bottom.map((b) => [key.bottom(b), b]));
  return top.flatMap((t) => {
    const b = byKey.get(key.top(t));
    const v = b === undefined ? undefined : f(t, b);
    return finite(v) ? [v] : [];
  });
}

/** The median of per-unit quotients top ÷ bottom of one value, paired by key; undefined when no unit pairs. */
export function pairedQuotient<U>(
  top: readonly U[],
  bottom: readonly U[],
  key: (u: U) => number,
  pick: (u: U) => number | undefined,
  of: string,
): Interval | undefined {
  const q = pairedValues(top, bottom, { top: key, bottom: key }, (t, b) => quotient(pick(t), pick(b)));
  return q.length ? medianInterval(q, of) : undefined;
}

/**
 * How one counter moved between two conditions, "a → b", each side formatted: the unit of a why
 * sentence built from this run's counters (`between(lo, hi)(x => x.walBytesPerTx, kb)`).
 */
export const between =
  <T>(lo: T, hi: T) =>
  (pick: (x: T) => number | undefined, fmt: (x: number | undefined) => string): string =>
    `${fmt(pick(lo))} → ${fmt(pick(hi))}`;

/**
 * The flagged units for the sensitivity sentence: those with at least one reason, named with their
 * reasons ("idx39/r3: 1 checkpoint(s)"); `none` says what would have flagged one.
 */
export function flaggedUnits<U>(
  noun: string,
  units: readonly U[],
  reasons: (u: U) => readonly string[],
  name: (u: U) => string,
  none: string,
): Flagged {
  const flagged = units.flatMap((u) => {
    const why = reasons(u).filter(Boolean);
    return why.length ? [`${name(u)}: ${why.join(", ")}`] : [];
  });
  return { noun, count: flagged.length, detail: flagged.join("; "), none };
}

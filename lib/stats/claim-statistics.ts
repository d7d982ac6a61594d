/** Statistics and "why" pieces several notebooks' claims compute, generic over the unit (repeat, round, set). */
import type { Flagged } from "./claims";
import { medianInterval, type Interval } from "./intervals";

const finite = (x: number | undefined): x is number => x !== undefined && Number.isFinite(x);

/**
 * The median over units of a per-unit value with its exact interval; non-finite values left out; undefined when none is
 * left.
 */
export function medianOf<U>(
  units: readonly U[],
  value: (u: U) => number | undefined,
  of: string,
): Interval | undefined {
  const values = units.map(value).filter(finite);
  return values.length ? medianInterval(values, of) : undefined;
}

/** x ÷ y when both are known and y > 0. */
export const quotient = (x: number | undefined, y: number | undefined): number | undefined =>
  x !== undefined && y !== undefined && y > 0 ? x / y : undefined;

/**
 * One value per unit both conditions ran, paired by key (keeps drift between units out); non-finite results left out.
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

/** The median of paired per-unit quotients top ÷ bottom. */
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

/** How a counter moved between two conditions, "a → b": `between(lo, hi)(x => x.walBytesPerTx, kb)`. */
export const between =
  <T>(lo: T, hi: T) =>
  (pick: (x: T) => number | undefined, fmt: (x: number | undefined) => string): string =>
    `${fmt(pick(lo))} → ${fmt(pick(hi))}`;

/** The flagged units with their reasons ("idx39/r3: 1 checkpoint(s)"); `none` says what would have flagged one. */
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

/**
 * Each collector declares its counter names as types, so a typo is a compile error, not a NaN in a
 * "why". Partial: servers omit some, and older runs on disk must still load.
 */

export type Counters<K extends string = string> = Readonly<Partial<Record<K, number>>>;

/** Refuses an undeclared name; NULL values left out. */
export function countersFrom<K extends string>(
  rows: Iterable<{ readonly name: string; readonly value: number | string | null }>,
  isKey: (name: string) => name is K,
  collector: string,
): Partial<Record<K, number>> {
  const out: Partial<Record<K, number>> = {};
  for (const { name, value } of rows) {
    if (!isKey(name)) throw new Error(`${collector}: counter "${name}" is not one of its declared counters`);
    if (value === null) continue;
    const n = Number(value);
    if (Number.isNaN(n)) throw new Error(`${collector}: counter "${name}" is not a number (${String(value)})`);
    out[name] = n;
  }
  return out;
}

export function keyGuard<K extends string>(
  fixed: readonly string[],
  patterns: readonly { readonly prefix: string; readonly suffixes?: readonly string[] }[] = [],
): (name: string) => name is K {
  const known = new Set(fixed);
  return (name: string): name is K =>
    known.has(name) ||
    patterns.some(
      (p) =>
        name.length > p.prefix.length &&
        name.startsWith(p.prefix) &&
        (!p.suffixes || p.suffixes.some((s) => name.endsWith(`.${s}`) && name.length > p.prefix.length + s.length + 1)),
    );
}

/** Plain names: a run on disk may hold older ones. */
export function counterEntries(c: Counters | undefined): [string, number][] {
  return Object.entries(c ?? {}).flatMap(([k, v]) => (v === undefined ? [] : [[k, v] as [string, number]]));
}

/** The sum of the counters named prefix…suffix; undefined when there is none (one the run did not collect). */
export function sumPresentCounters(c: Counters | undefined, prefix: string, suffix = ""): number | undefined {
  const xs = counterEntries(c).filter(([k]) => k.startsWith(prefix) && k.endsWith(suffix));
  return xs.length ? xs.reduce((a, [, v]) => a + v, 0) : undefined;
}

/** As sumPresentCounters, 0 when there is none. */
export function sumCounters(c: Counters | undefined, prefix: string, suffix = ""): number {
  return sumPresentCounters(c, prefix, suffix) ?? 0;
}

/** "size.*" keys are levels, so the value after is kept. */
export function counterDelta<K extends string>(before: Counters<K>, after: Counters<K>): Counters<K> {
  const delta: Partial<Record<K, number>> = {};
  const was: Counters = before;
  for (const [key, value] of counterEntries(after)) {
    const k = key as K;
    delta[k] = key.startsWith("size.") ? value : value - (was[key] ?? 0);
  }
  return delta;
}

/**
 * Server counters as flat name → number snapshots, and their delta. Each collector declares its names
 * as types, so a reader's typo is a compile error, not a NaN in a "why" sentence. Partial: a server
 * omits figures it does not report, and runs on disk written before a counter existed must still load.
 */

export type Counters<K extends string = string> = Readonly<Partial<Record<K, number>>>;

/** A collector's snapshot from (name, value) rows, refusing an undeclared name; NULL values left out. */
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

/** The counters present, as [name, value] (plain names: a run on disk may hold older ones). */
export function counterEntries(c: Counters | undefined): [string, number][] {
  return Object.entries(c ?? {}).flatMap(([k, v]) => (v === undefined ? [] : [[k, v] as [string, number]]));
}

export function sumCounters(c: Counters | undefined, prefix: string, suffix = ""): number {
  return counterEntries(c).reduce((a, [k, v]) => (k.startsWith(prefix) && k.endsWith(suffix) ? a + v : a), 0);
}

/** after − before for every counter; "size.*" keys are levels, so the value after is kept. */
export function counterDelta<K extends string>(before: Counters<K>, after: Counters<K>): Counters<K> {
  const delta: Partial<Record<K, number>> = {};
  const was: Counters = before;
  for (const [key, value] of counterEntries(after)) {
    const k = key as K;
    delta[k] = key.startsWith("size.") ? value : value - (was[key] ?? 0);
  }
  return delta;
}

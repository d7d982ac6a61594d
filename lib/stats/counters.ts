/**
 * Server counters as flat name → number snapshots, and the delta of two snapshots.
 *
 * Each collector declares its names (a const list, template literal types for the parts named by
 * the server: tables, indexes, pg_stat_io rows, WAL record types) and returns `Counters<ItsKeys>`,
 * so a reader's typo (`c["wal.recrods"]`) is a compile error rather than an `undefined` that turns
 * a claim's "why" sentence into NaN.
 *
 * Partial, not a full record, for two reasons that a reader must handle anyway: a collector leaves
 * out what the server does not report (pg_stat_io rows that are zero, NULL timings, walrec.* without
 * pg_walinspect, server.statement_ms without pg_stat_statements, the serverStatus sections a MongoDB
 * version omits), and trials.jsonl written by earlier versions lack counters added since; those runs
 * must still load (`npm run compare`, resume).
 */

export type Counters<K extends string = string> = Readonly<Partial<Record<K, number>>>;

/**
 * Builds a collector's snapshot from (name, value) rows, refusing a name the collector did not
 * declare: its SQL and its key type must say the same, and a mismatch is a defect to see at once.
 * Rows with a NULL value are left out (the server does not report that figure here).
 */
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

/** `name` is one of `fixed`, or starts with one of `prefixes` and ends with one of `suffixes` (when given). */
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

/** The counters that are there, as [name, value] (names as strings: a run on disk may hold older ones). */
export function counterEntries(c: Counters | undefined): [string, number][] {
  return Object.entries(c ?? {}).flatMap(([k, v]) => (v === undefined ? [] : [[k, v] as [string, number]]));
}

/** The sum of the counters whose names start with `prefix` (and end with `suffix`, when given). */
export function sumCounters(c: Counters | undefined, prefix: string, suffix = ""): number {
  return counterEntries(c).reduce((a, [k, v]) => (k.startsWith(prefix) && k.endsWith(suffix) ? a + v : a), 0);
}

/**
 * after − before for every counter. Keys starting with "size." are levels (bytes now), not
 * counters: the value after is kept.
 */
export function counterDelta<K extends string>(before: Counters<K>, after: Counters<K>): Counters<K> {
  const delta: Partial<Record<K, number>> = {};
  const was: Counters = before;
  for (const [key, value] of counterEntries(after)) {
    // `key` came from `after`, a Counters<K>: it is a K (Object.entries only forgets that).
    const k = key as K;
    delta[k] = key.startsWith("size.") ? value : value - (was[key] ?? 0);
  }
  return delta;
}

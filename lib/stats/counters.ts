/** Server counters as flat name → number snapshots, and the delta of two snapshots. */

export type CounterSnapshot = Readonly<Record<string, number>>;

/**
 * after − before for every counter. Keys starting with "size." are levels (bytes now), not
 * counters: the value after is kept.
 */
export function counterDelta(before: CounterSnapshot, after: CounterSnapshot): Record<string, number> {
  const delta: Record<string, number> = {};
  for (const [key, value] of Object.entries(after)) {
    delta[key] = key.startsWith("size.") ? value : value - (before[key] ?? 0);
  }
  return delta;
}

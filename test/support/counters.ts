/** Reading a trial's counters in a test: a counter that should have been recorded and was not fails the test. */
import assert from "node:assert/strict";
import type { Counters } from "../../lib/stats/counters";

/** The counter's value; fails when it is absent. `key` is checked against the collector's names. */
export function recorded<C extends Counters>(counters: C | undefined, key: keyof C & string): number {
  const value: unknown = counters?.[key];
  assert.ok(typeof value === "number", `counter ${key} was recorded`);
  return value;
}

/**
 * For the full-size claim tests: which verdicts each claim reached over several synthetic runs, and
 * an assertion that every claim reached both "held" and "did not hold" (except those named, with why).
 */
import assert from "node:assert/strict";
import type { ClaimCheck, Verdict } from "../../lib/stats/claims";

export function verdictsById(runs: readonly (readonly ClaimCheck[])[]): Map<string, Set<Verdict>> {
  const seen = new Map<string, Set<Verdict>>();
  for (const claims of runs) {
    for (const c of claims) {
      const set = seen.get(c.id) ?? new Set<Verdict>();
      set.add(c.verdict);
      seen.set(c.id, set);
    }
  }
  return seen;
}

/**
 * Every claim id in `runs` reached "held" in one run and "did not hold" in another; the ids in
 * `except` instead reached exactly the verdicts given there (a derived claim, or a regime beyond the
 * profile), so a claim that stops being decidable, or starts being so, fails the test either way.
 */
export function assertEachDecidable(
  runs: readonly (readonly ClaimCheck[])[],
  except: Readonly<Record<string, readonly Verdict[]>> = {},
): void {
  const seen = verdictsById(runs);
  const table = [...seen].map(([id, v]) => `${id}: ${[...v].join(", ")}`).join("\n");
  assert.ok(seen.size > 0, "no claims");
  for (const id of Object.keys(except)) assert.ok(seen.has(id), `excepted claim ${id} exists\n${table}`);
  for (const [id, verdicts] of seen) {
    const expected = except[id];
    if (expected) {
      assert.deepEqual([...verdicts].sort(), [...expected].sort(), `${id}\n${table}`);
      continue;
    }
    assert.ok(verdicts.has("held"), `${id} reaches held\n${table}`);
    assert.ok(verdicts.has("did not hold"), `${id} reaches did not hold\n${table}`);
  }
}

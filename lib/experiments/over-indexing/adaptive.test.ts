/**
 * Notebook 03's adaptive design as a pure step (no servers): each stop reason, and going on.
 */
import { test } from "node:test";
import assert from "node:assert/strict";
import { adaptiveStep } from ".";
import { experiment } from ".";
import type { ClaimCheck } from "../../stats/claims";

const headline = [
  { id: "1", verdict: "held" },
  { id: "2", verdict: "inconclusive" },
] as const;
const base: Parameters<typeof adaptiveStep>[1] = {
  done: 5,
  planned: 5,
  // From 5 the spending rule's next look is 9 (stats/adaptive lookPlan): at 8 it would spend too much.
  maxRepeats: 9,
  needed: 5,
  elapsedSeconds: 180,
  secondsPerRound: 20,
  budgetSeconds: 270,
};
const step = (
  over: Partial<typeof base>,
  claims: readonly { id: string; verdict: ClaimCheck["verdict"] }[] = headline,
) => adaptiveStep(claims, { ...base, ...over });

test("03 adaptive: one more round while a headline claim is inconclusive and the budget allows", () => {
  assert.deepEqual(step({}), {});
});

test("03 adaptive: stops when both claims are decided, at maxRepeats, or when the budget would be passed", () => {
  assert.match(
    step({}, [
      { id: "1", verdict: "held" },
      { id: "2", verdict: "did not hold" },
    ]).stop ?? "",
    /\(2\) did not hold after the planned rounds/,
  );
  assert.match(
    step({ done: 6 }, [
      { id: "1", verdict: "held" },
      { id: "2", verdict: "held" },
    ]).stop ?? "",
    /after 6 rounds/,
  );
  assert.match(step({ done: 9 }).stop ?? "", /claim \(2\) still inconclusive at maxRepeats = 9/);
  assert.match(
    step({ elapsedSeconds: 191 }).stop ?? "",
    /4 more \(to n = 9, where the interval can move\) at ~20 s a round would pass the time budget \(270 s\)/,
  );
  // With 03's default cap of 8 the looks at 5 and 8 together would keep under 90 %: none is added.
  assert.match(
    step({ maxRepeats: 8 }).stop ?? "",
    /can move at the per-look coverage 93 % is 9, above maxRepeats = 8; adaptive: one look that can decide \(n = 5\)/,
  );
  // With 3 rounds, 2 more are needed before any verdict: both must fit.
  assert.match(step({ done: 3, elapsedSeconds: 240 }).stop ?? "", /2 more \(to n = 5.*at ~20 s/);
});

test("03 parameters: maxRepeats follows a larger repeats override, and may not be below it", () => {
  assert.equal(experiment.params("default", { repeats: 9 }).maxRepeats, 9);
  assert.equal(experiment.params("default").maxRepeats, 8);
  assert.throws(
    () => experiment.params("default", { repeats: 6, maxRepeats: 5 }),
    /maxRepeats \(5\) is smaller than repeats \(6\)/,
  );
  assert.throws(() => experiment.params("default", { budgetSeconds: 0 }), /budgetSeconds must be a positive integer/);
});

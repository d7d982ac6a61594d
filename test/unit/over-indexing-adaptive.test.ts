/**
 * Notebook 03's adaptive design as a pure step (no servers): each stop reason, and going on.
 */
import { test } from "node:test";
import assert from "node:assert/strict";
import { adaptiveStep, type AdaptiveState } from "../../lib/experiments/over-indexing/claims";
import { experiment } from "../../lib/experiments/over-indexing";

const base: AdaptiveState = {
  claims: [
    { id: "1", verdict: "held" },
    { id: "2", verdict: "inconclusive" },
  ],
  rounds: 5,
  plannedRounds: 5,
  // From 5 the spending rule's next look is 9 (stats/adaptive lookPlan): at 8 it would spend too much.
  maxRounds: 9,
  needed: 5,
  elapsedS: 180,
  perRoundS: 20,
  budgetS: 270,
};

test("03 adaptive: one more round while a headline claim is inconclusive and the budget allows", () => {
  assert.deepEqual(adaptiveStep(base), {});
});

test("03 adaptive: stops when both claims are decided, at maxRepeats, or when the budget would be passed", () => {
  assert.match(
    adaptiveStep({
      ...base,
      claims: [
        { id: "1", verdict: "held" },
        { id: "2", verdict: "did not hold" },
      ],
    }).stop ?? "",
    /\(2\) did not hold after the planned rounds/,
  );
  assert.match(
    adaptiveStep({
      ...base,
      claims: [
        { id: "1", verdict: "held" },
        { id: "2", verdict: "held" },
      ],
      rounds: 6,
    }).stop ?? "",
    /after 6 rounds/,
  );
  assert.match(adaptiveStep({ ...base, rounds: 9 }).stop ?? "", /claim \(2\) still inconclusive at maxRepeats = 9/);
  assert.match(
    adaptiveStep({ ...base, elapsedS: 191 }).stop ?? "",
    /4 more \(to n = 9, where the interval can move\) at ~20 s a round would pass the time budget \(270 s\)/,
  );
  // With 03's default cap of 8 the looks at 5 and 8 together would keep under 90 %: none is added.
  assert.match(
    adaptiveStep({ ...base, maxRounds: 8 }).stop ?? "",
    /can move at the per-look coverage 93 % is 9, above maxRepeats = 8; adaptive: one look that can decide \(n = 5\)/,
  );
  // With 3 rounds, 2 more are needed before any verdict: both must fit.
  assert.match(adaptiveStep({ ...base, rounds: 3, elapsedS: 240 }).stop ?? "", /2 more \(to n = 5.*at ~20 s/);
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

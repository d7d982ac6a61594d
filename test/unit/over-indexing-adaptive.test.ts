/**
 * Notebook 03's adaptive design as a pure step (no servers): each stop reason, and going on.
 */
import { test } from "node:test";
import assert from "node:assert/strict";
import { adaptiveStep, type AdaptiveState } from "../../lib/experiments/over-indexing/run";
import { overIndexingParams } from "../../lib/experiments/over-indexing/params";

const base: AdaptiveState = {
  claims: [
    { id: "1", verdict: "held" },
    { id: "2", verdict: "inconclusive" },
  ],
  rounds: 5,
  plannedRounds: 5,
  maxRounds: 8,
  needed: 5,
  elapsedS: 200,
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
  assert.match(adaptiveStep({ ...base, rounds: 8 }).stop ?? "", /claim \(2\) still inconclusive at maxRepeats = 8/);
  assert.match(
    adaptiveStep({ ...base, elapsedS: 250 }).stop ?? "",
    /3 more \(to n = 8, where the interval can move\) at ~20 s a round would pass the time budget \(270 s\)/,
  );
  // With a cap of 7, rounds 6 and 7 could only widen the range: none is added.
  assert.match(adaptiveStep({ ...base, maxRounds: 7 }).stop ?? "", /can move is 8, above maxRepeats = 7/);
  // With 3 rounds, 2 more are needed before any verdict: both must fit.
  assert.match(adaptiveStep({ ...base, rounds: 3, elapsedS: 240 }).stop ?? "", /2 more \(to n = 5.*at ~20 s/);
});

test("03 parameters: maxRepeats follows a larger repeats override, and may not be below it", () => {
  assert.equal(overIndexingParams("default", { repeats: 9 }).maxRepeats, 9);
  assert.equal(overIndexingParams("default").maxRepeats, 8);
  assert.throws(
    () => overIndexingParams("default", { repeats: 6, maxRepeats: 5 }),
    /maxRepeats \(5\) is smaller than repeats \(6\)/,
  );
  assert.throws(() => overIndexingParams("default", { budgetSeconds: 0 }), /budgetSeconds must be a positive integer/);
});

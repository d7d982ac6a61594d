/**
 * The progress line's time left: refitted when a trial finishes and when an adaptive round grows the
 * plan, counted down between fits, never below what the trials not yet started need.
 */
import { test } from "node:test";
import assert from "node:assert/strict";
import { modelLeft, notStartedSeconds, shownDone } from "../../lib/experiments/session";
import type { Estimate } from "../../lib/experiments/eta";

const calibration = {
  timedPerSizeSeconds: 0,
  overheadSeconds: 0,
  untimedPerSizeSeconds: 0,
  source: "test",
  constantSetup: false,
};

function estimateOf(seconds: number, remaining: number, setupSeconds?: number): Estimate {
  return {
    seconds,
    maxSeconds: seconds,
    remaining,
    planned: remaining,
    calibration,
    ...(setupSeconds === undefined ? {} : { setup: { seconds: setupSeconds, text: "loading" } }),
  };
}

test("modelLeft: one estimate per (done, total); a grown plan at the same count asks again", () => {
  const asked: number[] = [];
  const trials: { key: string; status: string }[] = [];
  const estimate = (done: ReadonlySet<string>): Estimate => {
    asked.push(done.size);
    return estimateOf(100 - 10 * done.size + 60 * (asked.length - 1), 0);
  };
  const left = modelLeft({ estimate }, { trials: () => trials }, () => 0);
  assert.ok(left);
  assert.equal(left(0, 10), 100);
  assert.equal(left(0, 10), 100, "the same count: the last answer");
  assert.deepEqual(asked, [0]);
  trials.push({ key: "a", status: "ok" });
  assert.equal(left(1, 10), 150);
  // An adaptive round added 5 trials: the same done count, a new total, a new estimate.
  assert.equal(left(1, 15), 210);
  assert.deepEqual(asked, [0, 1, 1]);
});

test("modelLeft counts down between fits, down to the trials not yet started", () => {
  let nowMs = 0;
  const trials: { key: string; status: string }[] = [];
  // A setup of 1000 s, then two trials of 300 s.
  let next = estimateOf(1600, 2, 1000);
  const left = modelLeft({ estimate: () => next }, { trials: () => trials }, () => nowMs);
  assert.ok(left);
  assert.equal(left(0, 2), 1600);
  nowMs = 500_000;
  assert.equal(left(0, 2), 1100, "500 s into the setup");
  nowMs = 999_000;
  assert.equal(left(0, 2), 601);
  nowMs = 1_500_000;
  assert.equal(left(0, 2), 600, "a setup past its estimate: both trials are still to run");
  // The setup done, the first trial finished: the last trial, counted down to nothing left after it.
  trials.push({ key: "a", status: "ok" });
  next = estimateOf(300, 1);
  assert.equal(left(1, 2), 300);
  nowMs = 1_700_000;
  assert.equal(left(1, 2), 100);
  nowMs = 2_000_000;
  assert.equal(left(1, 2), 0);
});

test("the trials not yet started: all of them while the setup runs, else all but the running one", () => {
  assert.equal(notStartedSeconds(estimateOf(1600, 2, 1000)), 600);
  assert.equal(notStartedSeconds(estimateOf(900, 3)), 600);
  assert.equal(notStartedSeconds(estimateOf(300, 1)), 0);
  assert.equal(notStartedSeconds(estimateOf(0, 0)), 0);
});

test("shownDone: a resumed run's stored trials count from its first line; the setup's 0/1 stays", () => {
  assert.equal(shownDone(0, 25, 15), 15); // 03 resumed: the reload's lines
  assert.equal(shownDone(16, 25, 15), 16); // the loop's own count once past them
  assert.equal(shownDone(0, 1, 15), 0); // "starting servers…": the setup's marker
  assert.equal(shownDone(0, 10, 12), 10); // never past the plan
  assert.equal(shownDone(3, 25, 0), 3); // a fresh run
});

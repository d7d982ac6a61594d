/** The progress line's time left: refitted when a trial finishes and when an adaptive round grows the plan. */
import { test } from "node:test";
import assert from "node:assert/strict";
import { modelLeft } from "../../lib/experiments/session";
import type { Estimate } from "../../lib/experiments/eta";

test("modelLeft: one estimate per (done, total); a grown plan at the same count asks again", () => {
  const asked: number[] = [];
  const trials: { key: string; status: string }[] = [];
  const estimate = (done: ReadonlySet<string>): Estimate => {
    asked.push(done.size);
    return {
      seconds: 100 - 10 * done.size + 60 * (asked.length - 1),
      maxSeconds: 0,
      remaining: 0,
      planned: 0,
      calibration: {
        timedPerSizeSeconds: 0,
        overheadSeconds: 0,
        untimedPerSizeSeconds: 0,
        source: "test",
        constantSetup: false,
      },
    };
  };
  const left = modelLeft({ estimate }, { trials: () => trials });
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

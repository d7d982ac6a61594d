import { test } from "node:test";
import assert from "node:assert/strict";
import { ratioOfMedians, spread } from "../../lib/stats/summary";

test("spread: median, min, max of raw values", () => {
  const s = spread([3, 1, 2, 10]);
  assert.equal(s.median, 2.5);
  assert.equal(s.min, 1);
  assert.equal(s.max, 10);
  assert.equal(s.n, 4);
});

test("ratio of medians with a bootstrap interval that contains it", () => {
  const r = ratioOfMedians([2.0, 2.1, 1.9, 2.05, 1.95], [1.0, 1.02, 0.98, 1.01, 0.99]);
  assert.ok(Math.abs(r.ratio - 2) < 1e-9);
  assert.ok(r.ciLow <= r.ratio && r.ratio <= r.ciHigh, `${r.ciLow} ≤ ${r.ratio} ≤ ${r.ciHigh}`);
  assert.ok(r.ciLow > 1.8 && r.ciHigh < 2.2);
  assert.equal(r.rangesOverlap, false);
});

test("the bootstrap is seeded: same trials, same interval", () => {
  const a = ratioOfMedians([1, 2, 3], [1, 1.5, 2]);
  const b = ratioOfMedians([1, 2, 3], [1, 1.5, 2]);
  assert.deepEqual(a, b);
  assert.equal(a.rangesOverlap, true);
});

test("spread of nothing is an error, not NaN", () => {
  assert.throws(() => spread([]), /no values/);
});

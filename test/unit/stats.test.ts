import { test } from "node:test";
import assert from "node:assert/strict";
import { spread } from "../../lib/stats/summary";

test("spread: median, min, max of raw values", () => {
  const s = spread([3, 1, 2, 10]);
  assert.equal(s.median, 2.5);
  assert.equal(s.min, 1);
  assert.equal(s.max, 10);
  assert.equal(s.n, 4);
});

test("spread of nothing is an error, not NaN", () => {
  assert.throws(() => spread([]), /no values/);
});

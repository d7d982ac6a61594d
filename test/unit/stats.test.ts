import { test } from "node:test";
import assert from "node:assert/strict";
import { bytesIn, count, fixed, kilobytes, minusFixed, percent, times } from "../../lib/stats/format";
import { secondsSpread, spread } from "../../lib/stats/summary";

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

test("secondsSpread: a summary's median, min and max seconds, in that order; of nothing an error", () => {
  const s = secondsSpread([3, 1, 2, 10]);
  assert.deepEqual(Object.entries(s), [
    ["medianSeconds", 2.5],
    ["minSeconds", 1],
    ["maxSeconds", 10],
  ]);
  assert.deepEqual(secondsSpread([4]), { medianSeconds: 4, minSeconds: 4, maxSeconds: 4 });
  assert.throws(() => secondsSpread([]), /no values/);
});

test("number formats: decimals, percentages and kB, with one 'n/a' for what a run does not have", () => {
  assert.deepEqual(
    [fixed(1.234, 2), fixed(undefined, 2), fixed(Number.NaN, 1), fixed(Infinity, 0, "")],
    ["1.23", "n/a", "n/a", ""],
  );
  assert.deepEqual(
    [percent(0.125, 1), percent(0.125), percent(undefined), percent(Number.NaN, 0, "")],
    ["12.5 %", "13 %", "n/a", ""],
  );
  assert.deepEqual([kilobytes(1536), kilobytes(undefined)], ["1.5 kB", "n/a"]);
  assert.deepEqual(
    [bytesIn(1536, "KiB", 0), bytesIn(1023, "KiB", 0), bytesIn(3 * 2 ** 20, "MB", 1), bytesIn(0, "kB", 1)],
    ["2 KiB", "1 KiB", "3.0 MB", "0.0 kB"],
  );
  assert.deepEqual(
    [bytesIn(undefined, "MB", 1), bytesIn(NaN, "KiB", 0), bytesIn(Infinity, "kB", 1, "")],
    ["n/a", "n/a", ""],
  );
  assert.deepEqual([times(2.539), times(2.539, 1)], ["2.54×", "2.5×"]);
  assert.deepEqual(
    [count(100_000_000), count(1234.6), count(undefined), count(Number.NaN)],
    ["100,000,000", "1,235", "n/a", "n/a"],
  );
  // A typographic minus, and no sign on a figure that rounds to zero.
  assert.deepEqual(
    [minusFixed(-1.25, 1), minusFixed(-0.04, 1), minusFixed(0.04, 1), minusFixed(2, 0)],
    ["−1.3", "0.0", "0.0", "2"],
  );
});

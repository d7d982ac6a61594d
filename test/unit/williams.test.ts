import { test } from "node:test";
import assert from "node:assert/strict";
import { williamsDesign } from "../../lib/stats/williams";

test("a Williams design balances positions and first-order carry-over, for even and odd n", () => {
  for (let n = 1; n <= 9; n++) {
    const rows = williamsDesign(n);
    assert.equal(rows.length, n % 2 === 0 ? n : 2 * n, `rows for n = ${n}`);
    const times = rows.length / n;
    for (const row of rows)
      assert.deepEqual(
        [...row].sort((a, b) => a - b),
        [...Array(n).keys()],
        `a row is a permutation (n = ${n})`,
      );
    // Every treatment at every position `times` times.
    for (let pos = 0; pos < n; pos++)
      for (let t = 0; t < n; t++)
        assert.equal(rows.filter((r) => r[pos] === t).length, times, `n = ${n}: ${t} at position ${pos}`);
    // Every ordered pair of distinct treatments adjacent `times` times.
    for (let a = 0; a < n; a++)
      for (let b = 0; b < n; b++) {
        if (a === b) continue;
        const adjacent = rows.reduce((c, r) => c + r.slice(1).filter((t, i) => r[i] === a && t === b).length, 0);
        assert.equal(adjacent, times, `n = ${n}: ${b} right after ${a}`);
      }
  }
  // The textbook first row: 0, 1, n−1, 2, n−2.
  assert.deepEqual(williamsDesign(4)[0], [0, 1, 3, 2]);
  assert.throws(() => williamsDesign(0), RangeError);
});

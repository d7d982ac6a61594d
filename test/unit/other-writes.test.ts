/** A window's WAL figures are left out when another database wrote meanwhile: the rule at its margins. */
import { test } from "node:test";
import assert from "node:assert/strict";
import { OTHER_WRITES_SHARE, sharedWalNote, writtenElsewhere } from "../../lib/engines/postgres/other-writes";

const w = (own: number, others: Record<string, number>) => ({ own, others });

test("writtenElsewhere: another database's rows beyond 1 % of the window's own name it; at 1 % or less, not", () => {
  assert.equal(OTHER_WRITES_SHARE, 0.01);
  // The window's own database wrote 10,000 rows.
  assert.deepEqual(writtenElsewhere(w(0, { a: 5 }), w(10_000, { a: 5 })), []);
  assert.deepEqual(writtenElsewhere(w(0, { a: 5 }), w(10_000, { a: 105 })), [], "exactly 1 %: upkeep");
  assert.deepEqual(writtenElsewhere(w(0, { a: 5 }), w(10_000, { a: 106 })), ["a"]);
  // A window that wrote nothing: any other write names its database.
  assert.deepEqual(writtenElsewhere(w(7, { a: 1 }), w(7, { a: 2 })), ["a"]);
  // A statistics reset reads lower: not a write.
  assert.deepEqual(writtenElsewhere(w(0, { a: 10 }), w(100, { a: 0 })), []);
});

test("writtenElsewhere: a database created meanwhile counts from zero; one dropped meanwhile is not named", () => {
  assert.deepEqual(writtenElsewhere(w(0, { a: 1 }), w(100, { a: 1, z: 3, y: 0 })), ["z"]);
  assert.deepEqual(writtenElsewhere(w(0, { a: 1, gone: 4 }), w(100, { a: 1 })), []);
  assert.deepEqual(writtenElsewhere(w(0, {}), w(0, { c: 1, b: 2 })), ["b", "c"]);
});

test("sharedWalNote names up to three databases and counts the rest", () => {
  assert.match(sharedWalNote("idx7/r1", ["a"]), /^WAL figures of idx7\/r1 left out: other databases wrote .*\(a\)/);
  assert.match(sharedWalNote("k", ["a", "b", "c", "d", "e"]), /\(a, b, c and 2 more\)/);
});

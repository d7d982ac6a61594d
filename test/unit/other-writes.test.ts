/** A window's WAL figures are left out when another database wrote meanwhile: the rule at its margins. */
import { test } from "node:test";
import assert from "node:assert/strict";
import { sharedWalNote, writtenElsewhere } from "../../lib/engines/postgres/other-writes";

test("writtenElsewhere: a database whose rows grew is named; equal, fewer or dropped ones are not", () => {
  assert.deepEqual(writtenElsewhere({ a: 10, b: 5 }, { a: 10, b: 5 }), []);
  assert.deepEqual(writtenElsewhere({ a: 10, b: 5 }, { a: 11, b: 5 }), ["a"]);
  // A statistics reset reads lower: not a write.
  assert.deepEqual(writtenElsewhere({ a: 10 }, { a: 0 }), []);
  // Created meanwhile (another run's clone) and written: named; created and not written: not.
  assert.deepEqual(writtenElsewhere({ a: 1 }, { a: 1, z: 3, y: 0 }), ["z"]);
  // Dropped meanwhile: cannot be read afterwards.
  assert.deepEqual(writtenElsewhere({ a: 1, gone: 4 }, { a: 1 }), []);
  assert.deepEqual(writtenElsewhere({}, { c: 1, b: 2 }), ["b", "c"]);
});

test("sharedWalNote names up to three databases and counts the rest", () => {
  assert.match(sharedWalNote("idx7/r1", ["a"]), /^WAL figures of idx7\/r1 left out: other databases wrote .*\(a\)/);
  assert.match(sharedWalNote("k", ["a", "b", "c", "d", "e"]), /\(a, b, c and 2 more\)/);
});

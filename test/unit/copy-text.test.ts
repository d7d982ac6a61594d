/**
 * integerCopyText prints what `String` prints, at every digit count and at both halves' edges, and refuses columns
 * shorter than the rows. The reference is the obvious `join("\t")` it replaced.
 */
import { test } from "node:test";
import assert from "node:assert/strict";
import { integerCopyText, type IntegerColumn } from "../../lib/engines/postgres/copy-text";

const reference = (columns: readonly IntegerColumn[], rows: number) =>
  Array.from(
    { length: rows },
    (_, i) => `${columns.map((c) => (c === "row number" ? i + 1 : typeof c === "number" ? c : c[i])).join("\t")}\n`,
  ).join("");
const text = (columns: readonly IntegerColumn[], rows: number, chunkRows?: number) =>
  Buffer.concat(integerCopyText(columns, rows, chunkRows)).toString("latin1");

test("every digit count and both halves' edges print as String does", () => {
  const edges = [0, 1, 9, 10, 99, 100, 999, 1000, 12345, 99_999_999, 100_000_000, 100_000_001, 2 ** 31 - 1, 2 ** 31];
  const values = [...edges, 123_456_789_012_345, 1_000_000_000_000_000, 9_007_199_254_740_990, Number.MAX_SAFE_INTEGER];
  for (let d = 1; d <= 16; d++) values.push(10 ** (d - 1), 10 ** d - 1, 10 ** (d - 1) + 7);
  const column = Float64Array.from(values);
  assert.equal(text([column], values.length), reference([column], values.length));
});

test("a value that is not a non-negative safe integer is printed by String", () => {
  const odd = [-1, -123_456_789_012, 2 ** 53, 2 ** 60, 1.5, 1e21];
  assert.equal(text([odd], odd.length), reference([odd], odd.length));
});

test("row numbers, constants and arrays make the rows, in chunks that split nowhere but between rows", () => {
  const a = Float64Array.from({ length: 25 }, (_, i) => i * 4_503_599_627_370 + 11);
  const columns: IntegerColumn[] = ["row number", 0, a, 42];
  const chunks = integerCopyText(columns, 25, 10);
  assert.deepEqual(
    chunks.map((c) => c.toString("latin1").split("\n").length - 1),
    [10, 10, 5],
  );
  assert.ok(chunks.every((c) => c[c.length - 1] === 10));
  assert.equal(text(columns, 25, 10), reference(columns, 25));
  assert.equal(text(columns, 25, 1), reference(columns, 25));
});

test("no rows, no text; a column shorter than the rows, or a bad size, is refused", () => {
  assert.deepEqual(integerCopyText(["row number"], 0), []);
  assert.throws(() => integerCopyText([[1, 2]], 3), /a column has 2 values for 3 rows/);
  assert.throws(() => integerCopyText([0], -1), /rows must be a whole number/);
  assert.throws(() => integerCopyText([0], 2, 0), /chunkRows must be a whole number/);
});

test("each chunk keeps its text and no more: not the scratch buffer it was printed in", () => {
  // Chunks above Buffer.poolSize / 2 get a memory block of their own, so the block's size is what a caller keeps.
  const chunks = integerCopyText(["row number", Float64Array.from({ length: 6000 }, () => 2 ** 52)], 6000, 2000);
  assert.equal(chunks.length, 3);
  for (const c of chunks) assert.equal(c.buffer.byteLength, c.length);
  assert.equal(new Set(chunks.map((c) => c.buffer)).size, 3);
});

import { test } from "node:test";
import assert from "node:assert/strict";
import { makeDataset } from "./engine";

test("the dataset depends only on (rows, seed): same values, same shuffled order", () => {
  const a = makeDataset(1000, 42);
  const b = makeDataset(1000, 42);
  assert.deepEqual(a.fields[0], b.fields[0]);
  assert.deepEqual(a.updateOrder, b.updateOrder);
  assert.notDeepEqual(makeDataset(1000, 43).fields[0], a.fields[0]);
  const order = [...a.updateOrder].sort((x, y) => x - y);
  assert.deepEqual(order, [...Array(1000).keys()], "the update order is a permutation: every row once");
  assert.ok(a.fields.every((f) => f.every((v) => Number.isInteger(v) && v >= 0 && v < 2 ** 53)));
});

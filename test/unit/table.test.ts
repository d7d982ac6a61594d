import { test } from "node:test";
import assert from "node:assert/strict";
import { sortedBy, tableHtml } from "../../lib/display/table";
import { readingOrder } from "../../lib/experiments/index-write-cost/present";
import type { ConditionSummary } from "../../lib/experiments/index-write-cost/summarise";

test("tables keep columns aligned when rows have different keys", () => {
  const html = tableHtml([
    { a: 1, b: "x" },
    { a: 2, c: 3, b: "y" },
  ]);
  assert.match(html, /<th>a<\/th><th>b<\/th><th>c<\/th>/);
  assert.match(html, /<tr><td[^>]*>2<\/td><td>y<\/td><td[^>]*>3<\/td><\/tr>/);
});

test("table cells are escaped", () => {
  assert.match(tableHtml([{ name: "<script>" }]), /&lt;script&gt;/);
});

test("sortedBy orders by each key in turn, fixed orders first, missing values last, ties stable", () => {
  const items = [
    { id: 1, mode: "reindex", set: 2 },
    { id: 2, mode: "baseline", set: 2 },
    { id: 3, mode: "other", set: 1 },
    { id: 4, mode: "concurrently", set: 1 },
    { id: 5, mode: "baseline", set: undefined },
    { id: 6, mode: "baseline", set: 1 },
    { id: 7, mode: "baseline", set: 1 },
  ];
  const order = sortedBy(items, (x) => x.set, [(x) => x.mode, ["baseline", "reindex", "concurrently"]]).map(
    (x) => x.id,
  );
  assert.deepEqual(order, [6, 7, 4, 3, 2, 1, 5]);
  assert.deepEqual(sortedBy(["10k", "2k", "100k"], (x) => x).map(String), ["2k", "10k", "100k"]);
});

test("01's conditions read engine → rows → operation → extra indexes → fillfactor, whatever order they ran in", () => {
  const condition = (
    engine: string,
    rows: number,
    operation: string,
    extraIndexes: number,
    fillfactor: number | null,
  ) => ({ engine, rows, operation, extraIndexes, fillfactor }) as unknown as ConditionSummary;
  const ran = [
    condition("postgresql", 10_000, "update_five_fields", 5, 100),
    condition("mongodb", 1_000, "insert", 0, null),
    condition("postgresql", 100_000, "update_one_field", 0, 100),
    condition("postgresql", 10_000, "insert", 1, 100),
    condition("postgresql", 10_000, "update_nonindexed", 5, 70),
    condition("postgresql", 10_000, "update_nonindexed", 5, 100),
    condition("postgresql", 10_000, "insert", 0, 100),
  ];
  const read = readingOrder(ran).map((s) => `${s.engine} ${s.rows} ${s.operation} ${s.extraIndexes} ${s.fillfactor}`);
  assert.deepEqual(read, [
    "postgresql 10000 insert 0 100",
    "postgresql 10000 insert 1 100",
    "postgresql 10000 update_nonindexed 5 70",
    "postgresql 10000 update_nonindexed 5 100",
    "postgresql 10000 update_five_fields 5 100",
    "postgresql 100000 update_one_field 0 100",
    "mongodb 1000 insert 0 null",
  ]);
});

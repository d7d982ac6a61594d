/**
 * 01's next table set up while a trial counts its WAL: taken only by the trial it was made for
 * (same adapter, shape and data), once; never on an adapter whose setup shares the counting session.
 */
import { test } from "node:test";
import assert from "node:assert/strict";
import { makeDataset, type IndexWriteEngine } from "../../lib/experiments/index-write-cost/workload/engine";
import { SetUpAhead, type PlannedTrial } from "../../lib/experiments/index-write-cost/workload/run-trials";

function fakeEngine(setupBesideCount: boolean): IndexWriteEngine & { calls: string[] } {
  const calls: string[] = [];
  return {
    engine: "postgresql",
    setupBesideCount,
    calls,
    recreate: async ({ fillfactor }) => void calls.push(`recreate ${fillfactor}`),
    load: async (d) => void calls.push(`load ${d.rows}`),
    createIndexes: async (fields) => void calls.push(`indexes ${fields.length}`),
    insertBatch: async () => undefined,
    updateBatch: async () => undefined,
    counters: async () => ({}),
    close: async () => undefined,
  };
}

const planned = (
  operation: PlannedTrial["condition"]["operation"],
  extraIndexes: number,
  fillfactor = 100,
): PlannedTrial => ({
  key: `${operation}/${extraIndexes}/${fillfactor}`,
  condition: { engine: "postgresql", rows: 100, extraIndexes, operation, fillfactor },
  repeat: 1,
  position: 0,
});

test("a table set up ahead is taken once, by a trial of its shape on its adapter and data", async () => {
  const data = makeDataset(100, 42);
  const db = fakeEngine(true);
  const ahead = new SetUpAhead();
  const phases = await ahead.setUp(db, planned("update_one_field", 5), data);
  // Each part timed on its own: the next trial's setup is itemised in the record of the trial that ran it.
  assert.deepEqual(Object.keys(phases ?? {}).sort(), ["indexSeconds", "loadSeconds", "recreateSeconds"]);
  assert.ok(Object.values(phases ?? {}).every((s) => s >= 0));
  assert.deepEqual(db.calls, ["recreate 100", "load 100", "indexes 5"]);
  assert.equal(ahead.take(db, planned("update_one_field", 5), data), true);
  assert.equal(ahead.take(db, planned("update_one_field", 5), data), false, "used up");
  // Another shape: an empty table (INSERT), other indexes, another fillfactor, other data, another adapter.
  for (const [other, d, e] of [
    [planned("insert", 5), data, db],
    [planned("update_one_field", 1), data, db],
    [planned("update_one_field", 5, 70), data, db],
    [planned("update_one_field", 5), makeDataset(100, 42), db],
    [planned("update_one_field", 5), data, fakeEngine(true)],
  ] as const) {
    await ahead.setUp(db, planned("update_one_field", 5), data);
    assert.equal(ahead.take(e, other, d), false, `${other.key}: not the table made`);
  }
  // An update of the non-indexed column at 5 indexes loads the same table as one of field1.
  await ahead.setUp(db, planned("update_five_fields", 5), data);
  assert.equal(ahead.take(db, planned("update_nonindexed", 5), data), true);
  // An INSERT trial's table is not loaded.
  db.calls.length = 0;
  await ahead.setUp(db, planned("insert", 0), data);
  assert.deepEqual(db.calls, ["recreate 100", "indexes 0"]);
  ahead.forget();
  assert.equal(ahead.take(db, planned("insert", 0), data), false, "forgotten after a failure");
});

test("an adapter whose setup shares the counting session sets nothing up ahead", async () => {
  const db = fakeEngine(false);
  const ahead = new SetUpAhead();
  assert.equal(await ahead.setUp(db, planned("update_one_field", 1), makeDataset(10, 1)), undefined);
  assert.deepEqual(db.calls, []);
});

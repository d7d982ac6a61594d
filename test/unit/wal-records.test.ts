import { test } from "node:test";
import assert from "node:assert/strict";
import { walRecordCount } from "../../lib/engines/postgres/wal-records";

test("walRecordCount: the named record types summed, a type not seen 0; undefined where no WAL record was counted", () => {
  const c = { "walrec.Btree/INSERT_LEAF": 7, "walrec.Btree/SPLIT_L": 2, "walrec.Heap/INSERT": 5, "wal.bytes": 900 };
  assert.equal(walRecordCount(c, ["Btree/INSERT_LEAF", "Btree/SPLIT_L", "Btree/SPLIT_R"]), 9);
  assert.equal(walRecordCount(c, ["Btree/SPLIT_R"]), 0);
  assert.equal(walRecordCount(c, []), 0);
  assert.equal(walRecordCount({ "wal.bytes": 900 }, ["Btree/INSERT_LEAF"]), undefined);
  assert.equal(walRecordCount({}, []), undefined);
});

/**
 * WalWindows.records at its margins, on a scripted client (no server): no pg_walinspect, an unknown or empty window
 * ask nothing; a counted window comes back as `walrec.*` counters; a window whose WAL is gone has none; the hold
 * is only asked for where pg_walinspect is; walRecordCount sums named record types.
 */
import { test } from "node:test";
import assert from "node:assert/strict";
import type { Client } from "pg";
import { isWalRecordKey, walRecordCount, WalWindows } from "../../lib/engines/postgres/wal-records";

/** Answers the flush, the flushed position (`flushed`) and pg_get_wal_stats (`types`); logs every query. */
function scripted(flushed: number, types: Record<string, string>) {
  const queries: string[] = [];
  const client = {
    query: async (text: string) => {
      queries.push(text);
      if (text.includes("pg_wal_lsn_diff")) return { rows: [{ flushed: String(flushed) }] };
      if (text.includes("pg_get_wal_stats")) return { rows: Object.entries(types).map(([type, n]) => ({ type, n })) };
      if (text.includes("pg_create_physical_replication_slot")) throw new Error("permission denied");
      return { rows: [] };
    },
  };
  return { client: client as unknown as Client, queries };
}

test("records: nothing asked without pg_walinspect, for an unknown window, or one that does not move forward", async () => {
  const { client, queries } = scripted(1000, { "Heap/HOT_UPDATE": "3" });
  assert.equal(await new WalWindows(client, false).records(10, 20, "test"), undefined);
  const windows = new WalWindows(client);
  assert.equal(await windows.records(undefined, 20, "test"), undefined);
  assert.equal(await windows.records(10, undefined, "test"), undefined);
  assert.equal(await windows.records(20, 20, "test"), undefined, "an empty window");
  assert.equal(await windows.records(30, 20, "test"), undefined);
  assert.deepEqual(queries, []);
});

test("records: a counted window's records by type as walrec.* counters; an empty count is no records", async () => {
  const { client } = scripted(1000, { "Heap/HOT_UPDATE": "3", "Btree/INSERT_LEAF": "12" });
  assert.deepEqual(await new WalWindows(client).records(10, 20, "test"), {
    "walrec.Heap/HOT_UPDATE": 3,
    "walrec.Btree/INSERT_LEAF": 12,
  });
  assert.deepEqual(await new WalWindows(scripted(1000, {}).client).records(10, 11, "test"), {});
  assert.ok(isWalRecordKey("walrec.Heap/INSERT"));
  assert.ok(!isWalRecordKey("walrec."), "a type is named");
});

test("records: a window whose WAL was removed has no counts (the trial stands); another error goes up", async () => {
  const fails = (message: string) =>
    ({
      query: async (text: string) => {
        if (text.includes("pg_wal_lsn_diff")) return { rows: [{ flushed: "1000" }] };
        if (text.includes("pg_get_wal_stats")) throw new Error(message);
        return { rows: [] };
      },
    }) as unknown as Client;
  const removed = "requested WAL segment 000000010000000000000001 has already been removed";
  assert.equal(await new WalWindows(fails(removed)).records(10, 20, "test"), undefined);
  await assert.rejects(new WalWindows(fails("connection lost")).records(10, 20, "test"), /connection lost/);
});

test("open: asks for a hold only where pg_walinspect is, and a refusal is not asked again", async () => {
  const without = scripted(0, {});
  await new WalWindows(without.client, false).open();
  assert.deepEqual(without.queries, []);
  const { client, queries } = scripted(0, {});
  const windows = new WalWindows(client);
  await windows.open();
  await windows.open();
  assert.equal(windows.refused, "permission denied");
  assert.equal(queries.filter((q) => q.includes("replication_slot")).length, 1);
});

test("walRecordCount: the named record types summed, a type not seen 0; undefined where no WAL record was counted", () => {
  const c = { "walrec.Btree/INSERT_LEAF": 7, "walrec.Btree/SPLIT_L": 2, "walrec.Heap/INSERT": 5, "wal.bytes": 900 };
  assert.equal(walRecordCount(c, ["Btree/INSERT_LEAF", "Btree/SPLIT_L", "Btree/SPLIT_R"]), 9);
  assert.equal(walRecordCount(c, ["Btree/SPLIT_R"]), 0);
  assert.equal(walRecordCount(c, []), 0);
  assert.equal(walRecordCount({ "wal.bytes": 900 }, ["Btree/INSERT_LEAF"]), undefined);
  assert.equal(walRecordCount({}, []), undefined);
});

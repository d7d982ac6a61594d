/**
 * Counter names are types (lib/stats/counters.ts): a reader's typo does not compile. The
 * `@ts-expect-error` lines below are the proof — `npm run build` (tsc, which checks test/ too) fails
 * on an unused one, so if a counter type ever loosens back to `string`, the build says so. At run
 * time: collectors refuse a name they did not declare, and records from older runs still read.
 */
import { test } from "node:test";
import assert from "node:assert/strict";
import {
  counterDelta,
  counterEntries,
  countersFrom,
  keyGuard,
  sumCounters,
  sumPresentCounters,
  type Counters,
} from "../../lib/stats/counters";
import {
  isPgServerCounterKey,
  PG_IO_COUNTERS,
  PG_SERVER_COUNTERS,
  type PgServerCounterKey,
} from "../../lib/engines/postgres/server-counters";
import type { IndexWriteTrial } from "../../lib/experiments/index-write-cost/workload/run-trials";
import type { OverIndexingTrial } from "../../lib/experiments/over-indexing/workload/run-trials";
import type { ReindexTrial } from "../../lib/experiments/reindex-under-load/workload/run-trials";
import type { CreateIndexTrial } from "../../lib/experiments/create-index-after-load/workload/run-trials";
import type { RoundTripTrial } from "../../lib/experiments/round-trips/workload/trials";
import { summarise } from "../../lib/experiments/index-write-cost/summarise";
import { recorded } from "../support/counters";

/** Reads a trial's counter by name; only names its type declares compile. */
const read = <T extends { readonly counters?: Counters<string> }>(t: T) => t.counters;

test("an unknown counter name is a compile error for every workload's trials (checked by tsc)", () => {
  const server: Counters<PgServerCounterKey> = { "wal.sync": 3, "io.client backend.relation.normal.reads": 2 };
  assert.equal(server["wal.sync"], 3);
  assert.equal(server["io.client backend.relation.normal.reads"], 2);
  // @ts-expect-error "wal.sycn" is no counter of serverCounters
  assert.equal(server["wal.sycn"], undefined);
  // @ts-expect-error pg_stat_io has no "readz" counter
  assert.equal(server["io.client backend.relation.normal.readz"], undefined);
  // @ts-expect-error a collector's record refuses an undeclared name too
  const typo: Counters<PgServerCounterKey> = { "wal.records": 1, "wal.recrods": 1 };
  assert.ok(typo);

  const pg01 = {} as IndexWriteTrial;
  assert.equal(read(pg01)?.["table.n_tup_hot_upd"], undefined);
  // @ts-expect-error 01 has table.n_tup_upd, not table.n_tup_update
  assert.equal(pg01.counters?.["table.n_tup_update"], undefined);
  const round03 = {} as OverIndexingTrial;
  assert.equal(round03.counters?.["table.stock.idx_blks_hit"], undefined);
  // @ts-expect-error 03's per-table counters end in a pg_stat_user_tables column it reads
  assert.equal(round03.counters?.["table.stock.idx_blk_hit"], undefined);
  const run04 = {} as ReindexTrial;
  assert.equal(run04.counters?.["table.pgbench_accounts.n_tup_upd"], undefined);
  // @ts-expect-error 04 does not read heap blocks per table
  assert.equal(run04.counters?.["table.pgbench_accounts.heap_blks_hit"], undefined);
  const trial02 = {} as CreateIndexTrial;
  assert.equal(trial02.counters?.["index.autovacuum.runs"], undefined);
  // @ts-expect-error 02's names start with a phase: load, index or checkpoint
  assert.equal(trial02.counters?.["build.wal.records"], undefined);
  const trial05 = {} as RoundTripTrial;
  assert.equal(trial05.counters?.["db.xact_commit"], undefined);
  // @ts-expect-error 05 records the whole server's counters only
  assert.equal(trial05.counters?.["table.n_tup_upd"], undefined);
  // The tests' own reader is checked the same way.
  assert.equal(recorded(server, "wal.sync"), 3);
  // @ts-expect-error a misspelt counter name is a compile error (and, past the compiler, a throw)
  assert.throws(() => recorded(server, "wal.sycn"), /counter wal.sycn was recorded/);
});

test("serverCounters' names: every declared one is accepted, pg_stat_io rows by counter, nothing else", () => {
  for (const name of PG_SERVER_COUNTERS) assert.ok(isPgServerCounterKey(name), name);
  for (const c of PG_IO_COUNTERS) assert.ok(isPgServerCounterKey(`io.checkpointer.relation.normal.${c}`), c);
  for (const name of ["wal.sycn", "io.reads", "io.client backend.relation.normal.readz", "table.x.n_tup_ins", ""]) {
    assert.equal(isPgServerCounterKey(name), false, name);
  }
  const guard = keyGuard<"a" | `t.${string}.n`>(["a"], [{ prefix: "t.", suffixes: ["n"] }]);
  assert.deepEqual(
    ["a", "t.x.n", "t..n", "t.n", "b", "t.x.m"].map((k) => guard(k)),
    [true, true, false, false, false, false],
  );
});

test("a collector refuses a name it did not declare and a value that is not a number; NULL is left out", () => {
  const rows = [
    { name: "wal.records", value: "12" },
    { name: "wal.sync", value: null },
  ];
  assert.deepEqual(countersFrom(rows, isPgServerCounterKey, "test"), { "wal.records": 12 });
  assert.throws(
    () => countersFrom([{ name: "wal.recrods", value: 1 }], isPgServerCounterKey, "test"),
    /test: counter "wal.recrods" is not one of its declared counters/,
  );
  assert.throws(
    () => countersFrom([{ name: "wal.records", value: "n/a" }], isPgServerCounterKey, "test"),
    /not a number/,
  );
});

test("deltas keep levels; entries and sums skip what is absent", () => {
  const before: Counters<PgServerCounterKey> = { "wal.records": 10, "size.database": 100 };
  const after: Counters<PgServerCounterKey> = { "wal.records": 15, "size.database": 120, "wal.sync": 2 };
  assert.deepEqual(counterDelta(before, after), { "wal.records": 5, "size.database": 120, "wal.sync": 2 });
  const io: Counters<PgServerCounterKey> = {
    "io.client backend.relation.normal.reads": 2,
    "io.checkpointer.relation.normal.writes": 5,
    "io.client backend.relation.bulkread.reads": 3,
    "wal.sync": undefined,
  };
  assert.equal(sumCounters(io, "io.client backend.", ".reads"), 5);
  // None by that name: undefined where a sum may be absent, 0 where it may not; one at 0 is present.
  assert.deepEqual(
    [sumPresentCounters(io, "io.client backend.", ".reads"), sumPresentCounters(io, "io.", ".writes")],
    [5, 5],
  );
  assert.deepEqual(
    [
      sumPresentCounters(io, "wal."),
      sumPresentCounters(undefined, ""),
      sumCounters(io, "wal."),
      sumCounters(undefined, ""),
    ],
    [undefined, undefined, 0, 0],
  );
  assert.equal(sumPresentCounters({ "wal.sync": 0 }, "wal."), 0);
  assert.deepEqual(
    counterEntries(io).map(([k]) => k),
    Object.keys(io).filter((k) => k !== "wal.sync"),
  );
});

test("trials on disk from an earlier version (names since removed, names since added missing) still summarise", () => {
  // As a run store reads trials.jsonl: plain JSON, counters keyed by whatever that version wrote.
  const line = (extra: number, seconds: number) =>
    JSON.stringify({
      key: `postgresql/1000/insert/${extra}/100/1`,
      condition: { engine: "postgresql", rows: 1000, operation: "insert", extraIndexes: extra, fillfactor: 100 },
      repeat: 1,
      status: "ok",
      seconds,
      counters: { "table.n_tup_ins": 1000, "wal.records": 2000, "some.retired_counter": 7 },
      startedAt: "2026-11-30T10:00:00Z",
      finishedAt: "2026-11-30T10:00:01Z",
    });
  const trials = [line(0, 1), line(5, 2)].map((l) => JSON.parse(l) as IndexWriteTrial);
  const s = summarise(trials);
  assert.equal(s.length, 2);
  const five = s.find((x) => x.extraIndexes === 5);
  assert.equal(five?.walRecordsPerRow, 2);
  assert.equal(five?.btreeInsertsPerRow, undefined, "no walrec.* in this old record: not measured, not 0");
});

/**
 * The progress line of a long server-side statement (server-activity.ts): PostgreSQL 17's progress
 * views where one covers the statement, else the WAL it has written since it was first seen. Its
 * reads end when their watcher gives up on the work, even if the work never settles.
 */
import { test } from "node:test";
import assert from "node:assert/strict";
import net from "node:net";
import { ActivityReader, withActivity } from "../../lib/workloads/server-activity";
import { resumeHint } from "../../lib/experiments/session";
import type { StartedServer } from "../../lib/targets/types";

const server = { engine: "postgresql" } as unknown as StartedServer;

const base = {
  pid: 42,
  query_start: new Date("2026-11-30T20:00:00Z"),
  seconds: 130,
  query: "INSERT INTO foo SELECT i AS id, 'C' || lpad(CAST((random() *",
  wal_lsn_bytes: "1000000",
  ci_phase: null,
  blocks_done: null,
  blocks_total: null,
  tuples_done: null,
  tuples_total: null,
  copy_tuples: null,
  copy_bytes: null,
  copy_bytes_total: null,
  vacuum_phase: null,
  heap_scanned: null,
  heap_total: null,
};

test("CREATE INDEX shows its phase and share done; COPY its rows and bytes; VACUUM its heap blocks", () => {
  const reader = new ActivityReader(server);
  assert.equal(
    reader.describe({
      ...base,
      query: "CREATE INDEX foo_code_idx ON foo (code)",
      ci_phase: "building index: loading tuples in tree",
      tuples_done: "45000000",
      tuples_total: "100000000",
    }),
    "CREATE INDEX: building index: loading tuples in tree 45 % · running 2 min 10 s",
  );
  assert.equal(
    reader.describe({
      ...base,
      ci_phase: "building index: sorting live tuples",
      blocks_done: "0",
      blocks_total: "540000",
      tuples_done: "0",
      tuples_total: "0",
    }),
    "CREATE INDEX: building index: sorting live tuples · running 2 min 10 s",
    "the sort moves no counter: no share that would read 0 % for minutes",
  );
  assert.equal(
    reader.describe({
      ...base,
      ci_phase: "building index: scanning table",
      blocks_done: "270000",
      blocks_total: "540000",
    }),
    "CREATE INDEX: building index: scanning table 50 % · running 2 min 10 s",
  );
  assert.equal(
    reader.describe({ ...base, copy_tuples: "1500000", copy_bytes: String(3 * 2 ** 30), copy_bytes_total: "0" }),
    "COPY: 1,500,000 rows, 3.00 GiB · running 2 min 10 s",
  );
  assert.equal(
    reader.describe({ ...base, vacuum_phase: "scanning heap", heap_scanned: "10", heap_total: "40" }),
    "VACUUM: scanning heap 25 % · running 2 min 10 s",
  );
});

test("an INSERT … SELECT (no progress view) shows the WAL written since it was first seen", async () => {
  const reader = new ActivityReader(server);
  assert.equal(
    reader.describe(base),
    "INSERT INTO foo SELECT i AS id, 'C' || lpad(CAST((random() *… · running 2 min 10 s",
    "first sight: nothing to compare with yet",
  );
  await new Promise((r) => setTimeout(r, 20));
  const later = reader.describe({ ...base, seconds: 145, wal_lsn_bytes: String(1_000_000 + 300 * 2 ** 20) });
  assert.match(later, /· 300 MiB of WAL in the last \d+(\.\d)? s \(\d+(\.\d+)? GiB\/s\) · running 2 min 25 s$/);
  // Another statement (another start) starts from its own first sight.
  assert.doesNotMatch(reader.describe({ ...base, query_start: new Date("2026-11-30T20:05:00Z") }), /WAL/);
});

test("a run cut short by a lost engine says what it kept (failed trials not counted) and how to resume", () => {
  const store = {
    runId: "20261130T2000_02-create-index-after-load_ab12",
    directory: "/data/results/20261130T2000_02-create-index-after-load_ab12",
    trials: () => [{ status: "ok" }, { status: "ok" }, { status: "failed" }],
  };
  assert.equal(
    resumeHint(store, 7),
    '2 of 7 trials finished and are kept in /data/results/20261130T2000_02-create-index-after-load_ab12. Once the engine answers again, resume with the same parameters and { resumeId: "20261130T2000_02-create-index-after-load_ab12" } in the run\'s options; its container is removed then (or by `npm run clean`: its record is kept)',
  );
});

test("the activity reads end when their stop signal aborts, though the work never settles (a trial given up after a stall)", async () => {
  // A listener that counts the reads' connections and never answers: the dead host's place.
  let connects = 0;
  const sockets: net.Socket[] = [];
  const listener = net.createServer((socket) => {
    connects++;
    sockets.push(socket);
  });
  await new Promise<void>((resolve) => listener.listen(0, "127.0.0.1", resolve));
  const port = (listener.address() as net.AddressInfo).port;
  const target = {
    engine: "postgresql",
    connection: { host: "127.0.0.1", port, user: "u", password: "p", database: "d" },
  } as unknown as StartedServer;
  const stop = new AbortController();
  const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));
  try {
    void withActivity(
      target,
      () => undefined,
      () => new Promise<never>(() => undefined),
      {
        intervalMs: 20,
        stop: stop.signal,
      },
    );
    while (connects === 0) await sleep(10);
    stop.abort();
    // A read already under way may still connect once; none starts after that.
    await sleep(100);
    const settled = connects;
    await sleep(300);
    assert.equal(connects, settled, "no read started after the stop");
  } finally {
    for (const s of sockets) s.destroy();
    listener.close();
  }
});

// test-tier: fast — embedded PostgreSQL servers on OS-chosen ports, one at a time
/**
 * A timed window's WAL counted after checkpoints inside the window: without a hold, pg_walinspect
 * finds the window's first segments removed (01 at `full` failed a trial so); with one, the count
 * is there; the hold is a temporary slot, gone when its session ends (a killed run keeps no WAL);
 * an external server's pre-flight asks for the privilege the slot needs (REPLICATION); the count
 * flushes the window's tail itself rather than wait for the WAL writer; each B-tree's own entries are counted
 * by the page they change.
 */
import { test } from "node:test";
import assert from "node:assert/strict";
import type { Client } from "pg";
import { connect } from "../../lib/engines/postgres/connect";
import {
  btreeEntriesBetween,
  flushWal,
  WalHold,
  WalWindows,
  walRecordCountRows,
} from "../../lib/engines/postgres/wal-records";
import { EmbeddedPostgresTarget } from "../../lib/targets/embedded/embedded-postgres";
import { ExternalTarget } from "../../lib/targets/external/external-target";
import type { PreflightReport } from "../../lib/targets/external/preflight";
import type { ServerSpec } from "../../lib/targets/types";

const lsn = async (c: Client): Promise<number> =>
  Number((await c.query<{ b: string }>("SELECT pg_wal_lsn_diff(pg_current_wal_lsn(), '0/0')::text AS b")).rows[0].b);

/** Writes a few WAL segments (16 MB each) with a checkpoint after each, so that old ones are removed. */
async function churn(c: Client): Promise<void> {
  for (let i = 0; i < 4; i++) {
    await c.query("INSERT INTO t SELECT g, repeat('x', 200) FROM generate_series(1, 60000) g");
    await c.query("SELECT pg_switch_wal()");
    await c.query("CHECKPOINT");
  }
}

test("WAL held from a window's start survives the checkpoints inside it; without the hold it is removed", async () => {
  // The smallest pg_wal the server allows, so that checkpoints remove segments at once.
  const server = await new EmbeddedPostgresTarget().start({
    engine: "postgresql",
    name: "wal-hold-test",
    settings: { max_wal_size: "32MB", min_wal_size: "32MB", wal_keep_size: "0" },
  });
  const c = await connect(server.connection);
  try {
    await c.query("CREATE EXTENSION IF NOT EXISTS pg_walinspect");
    await c.query("CREATE TABLE t (id int, pad text)");

    const unheld = await lsn(c);
    await churn(c);
    assert.equal(await walRecordCountRows(c, unheld, await lsn(c)), undefined, "removed WAL: no count, no throw");

    const windows = new WalWindows(c);
    await windows.open();
    assert.equal(windows.refused, undefined);
    const from = await lsn(c);
    await churn(c);
    const rows = await windows.count(from, await lsn(c));
    assert.ok(rows, "the held window is counted");
    // A page's first row is logged as INSERT+INIT.
    const inserts = rows
      .filter((r) => /^walrec\.Heap\/INSERT(\+INIT)?$/.test(r.name))
      .reduce((n, r) => n + Number(r.value), 0);
    assert.equal(inserts, 4 * 60000, "every insert of the window is counted");
    const slots = await c.query("SELECT slot_name FROM pg_replication_slots");
    assert.deepEqual(slots.rows, [], "count released the hold");
  } finally {
    await c.end();
    await server.stop();
  }
});

test("flushWal flushes what another session wrote under synchronous_commit = off, before the WAL writer would", async () => {
  // The WAL writer flushes asynchronous commits every wal_writer_delay: 10 s here, longer than the test waits.
  const server = await new EmbeddedPostgresTarget().start({
    engine: "postgresql",
    name: "wal-flush",
    settings: { synchronous_commit: "off", wal_writer_delay: "10s" },
  });
  const [c, writer] = [await connect(server.connection), await connect(server.connection)];
  const position = async (fn: "pg_current_wal_flush_lsn" | "pg_current_wal_insert_lsn") =>
    Number((await c.query<{ b: string }>(`SELECT pg_wal_lsn_diff(${fn}(), '0/0')::text AS b`)).rows[0].b);
  const flushed = () => position("pg_current_wal_flush_lsn");
  try {
    // A WAL writer round flushes all it finds where it has not flushed for wal_writer_delay (its first round, or
    // 10 s on); in between only past wal_writer_flush_after (1 MB). Wait for a round to flush the first insert, so
    // that the second falls in between.
    await writer.query("CREATE TABLE t (id int)");
    await writer.query("INSERT INTO t SELECT generate_series(1, 1000)");
    const first = await position("pg_current_wal_insert_lsn");
    for (let waited = 0; (await flushed()) < first; waited += 20) {
      if (waited > 30_000) assert.fail("the WAL writer flushed nothing in 30 s");
      await new Promise((r) => setTimeout(r, 20));
    }
    await writer.query("INSERT INTO t SELECT generate_series(1, 1000)");
    const written = await position("pg_current_wal_insert_lsn");
    assert.ok((await flushed()) < written, "the insert's commit did not flush (synchronous_commit = off)");
    // A commit whose transaction wrote no WAL (a bare xid) stays asynchronous: it flushes nothing.
    await c.query("BEGIN; SET LOCAL synchronous_commit = on; SELECT pg_current_xact_id(); COMMIT");
    assert.ok((await flushed()) < written, "a bare xid's commit flushed nothing");
    await flushWal(c);
    assert.ok((await flushed()) >= written, "flushed through the insert");
  } finally {
    await Promise.all([c.end(), writer.end()]);
    await server.stop();
  }
});

test("each B-tree's own entries: every inserted row and non-HOT update, splits included; none for an index whose table took no write, nor for another database's", async () => {
  const server = await new EmbeddedPostgresTarget().start({ engine: "postgresql", name: "wal-btree-entries" });
  const c = await connect(server.connection);
  try {
    await c.query("CREATE EXTENSION IF NOT EXISTS pg_walinspect");
    await c.query("CREATE DATABASE other");
    await c.query("CREATE TABLE t (id int PRIMARY KEY, a int, b int); CREATE INDEX t_a ON t (a)");
    await c.query("CREATE TABLE idle (id int); CREATE INDEX idle_id ON idle (id)");
    const other = await connect({ ...server.connection, database: "other" });
    await other.query("CREATE TABLE t (id int PRIMARY KEY, a int); CREATE INDEX t_a ON t (a)");
    const start = (await c.query<{ l: string }>("SELECT pg_current_wal_lsn()::text AS l")).rows[0].l;
    // Enough rows to split leaf pages (a split's record carries its entry: without them the count falls short);
    // 500 updates of a, not HOT since t_a reads it, so each enters both indexes.
    await c.query("INSERT INTO t SELECT g, g, g FROM generate_series(1, 20000) g");
    await c.query("UPDATE t SET a = -a WHERE id <= 500");
    await other.query("INSERT INTO t SELECT g, g FROM generate_series(1, 3000) g");
    await other.end();
    await flushWal(c);
    const end = (await c.query<{ l: string }>("SELECT pg_current_wal_flush_lsn()::text AS l")).rows[0].l;
    const entries = await btreeEntriesBetween(c, start, end);
    assert.deepEqual(entries, { t_a: 20500, t_pkey: 20500 }, "the other database's t_a is not this one's");
  } finally {
    await c.end();
    await server.stop();
  }
});

test("a WAL hold is a temporary slot: its session's end drops it", async () => {
  const server = await new EmbeddedPostgresTarget().start({ engine: "postgresql", name: "wal-hold-session" });
  const watcher = await connect(server.connection);
  try {
    const c = await connect(server.connection);
    const hold = await WalHold.take(c);
    if (typeof hold === "string") assert.fail(`the server refused the hold: ${hold}`);
    const slots = async () =>
      (await watcher.query<{ slot_name: string }>("SELECT slot_name FROM pg_replication_slots")).rows.map(
        (r) => r.slot_name,
      );
    assert.deepEqual(await slots(), [hold.slot]);
    await c.end();
    for (let i = 0; i < 50 && (await slots()).length > 0; i++) await new Promise((r) => setTimeout(r, 100));
    assert.deepEqual(await slots(), [], "dropped with its session");
  } finally {
    await watcher.end();
    await server.stop();
  }
});

test("a server that refuses the hold (wal_level = minimal) is named once and not asked again", async () => {
  const server = await new EmbeddedPostgresTarget().start({
    engine: "postgresql",
    name: "wal-hold-minimal",
    settings: { wal_level: "minimal", max_wal_senders: "0" },
  });
  const c = await connect(server.connection);
  try {
    const windows = new WalWindows(c);
    await windows.open();
    assert.match(windows.refused ?? "", /wal_level/);
    await windows.open();
    const from = await lsn(c);
    await c.query("CREATE TABLE t (id int)");
    await c.query("INSERT INTO t SELECT generate_series(1, 10)");
    await c.query("CREATE EXTENSION IF NOT EXISTS pg_walinspect");
    assert.ok(await windows.count(from, await lsn(c)), "counted without a hold while the WAL is there");
  } finally {
    await c.end();
    await server.stop();
  }
});

test("the pre-flight refuses 02's decoding trials to a role without REPLICATION, naming it; with it they pass", async () => {
  const server = await new EmbeddedPostgresTarget().start({ engine: "postgresql", name: "wal-hold-preflight" });
  const admin = await connect(server.connection);
  const spec: ServerSpec = {
    engine: "postgresql",
    name: "wal-hold-preflight",
    uses: { notebook: "02 CREATE INDEX after load", walHold: { measures: "the WAL-decoding trials" } },
  };
  const password = "no-repl-secret-3";
  try {
    await admin.query(`CREATE ROLE lab_norepl LOGIN CREATEDB PASSWORD '${password}'`);
    await admin.query("GRANT pg_checkpoint TO lab_norepl");
    const uri = `postgresql://lab_norepl:${password}@127.0.0.1:${server.connection.port}/postgres?sslmode=disable`;
    let report: PreflightReport | undefined;
    await assert.rejects(
      new ExternalTarget(uri, { onPreflight: (r) => (report = r) }).start(spec),
      /role "lab_norepl" has no REPLICATION privilege, so it cannot make the temporary replication slot that keeps WAL for the WAL-decoding trials \(ALTER ROLE lab_norepl REPLICATION\)/,
    );
    assert.match(report?.text ?? "", /REPLICATION no \(wal_level replica\)/);
    assert.ok(!(report?.text ?? "").includes(password));

    await admin.query("ALTER ROLE lab_norepl REPLICATION");
    const started = await new ExternalTarget(uri, { onPreflight: (r) => (report = r) }).start(spec);
    await started.stop();
    assert.match(report?.text ?? "", /REPLICATION yes/);
    assert.doesNotMatch(report?.text ?? "", /refused/);
  } finally {
    await admin.query("DROP ROLE IF EXISTS lab_norepl").catch(() => undefined);
    await admin.end();
    await server.stop();
  }
});

/**
 * Two costs between 01's trials, each against what it replaced, on one embedded server, alternated:
 * - the WAL count of a timed window under `synchronous_commit = off`: after `flushWal` (a commit that
 *   wrote a logical message, so it flushes) against after a commit that held only an xid (it flushes
 *   nothing, so the count polls until the WAL writer has flushed the window);
 * - a loaded table's setup: COPY into a table with its primary key against COPY, then the primary key
 *   built by one sort; the key's size is printed for both (the same index).
 * Medians of `--rounds` (default 8) in ms. Alone: `node build/bench/between-trials.js [--rounds N] [--json]`.
 */
import { Readable } from "node:stream";
import { pipeline } from "node:stream/promises";
import type { Client } from "pg";
import { from as copyFrom } from "pg-copy-streams";
import { median } from "simple-statistics";
import { connect, endClient } from "../lib/engines/postgres/connect";
import { flushWal, walRecordCountRows } from "../lib/engines/postgres/wal-records";
import { EmbeddedPostgresTarget } from "../lib/targets/embedded/embedded-postgres";
import { has, lastValue, noPositionals, readCommandArgs } from "../scripts/cli-args";

const COLUMNS = "id bigint NOT NULL, counter bigint NOT NULL, f1 bigint, f2 bigint, f3 bigint, f4 bigint, f5 bigint";
const ms = (t0: bigint) => Number(process.hrtime.bigint() - t0) / 1e6;
const lsn = async (c: Client) =>
  Number(
    (await c.query<{ b: string }>("SELECT pg_wal_lsn_diff(pg_current_wal_insert_lsn(), '0/0')::text AS b")).rows[0].b,
  );

/** One 10,000-row UPDATE window, then its count after `flush`: the flush and the count timed together. */
async function countAfter(c: Client, writer: Client, flush: (c: Client) => Promise<unknown>): Promise<number> {
  const from = await lsn(c);
  await writer.query("UPDATE t SET counter = counter + 1 WHERE id <= 10000");
  const to = await lsn(c);
  const t0 = process.hrtime.bigint();
  await flush(c);
  if (!(await walRecordCountRows(c, from, to))) throw new Error("the window's WAL was not counted");
  return ms(t0);
}

/** DROP, CREATE, COPY `rows` rows, the primary key during (`during`) or after the load; ms and the key's bytes. */
async function load(c: Client, copy: readonly Buffer[], during: boolean): Promise<[number, number]> {
  await c.query("DROP TABLE IF EXISTS l");
  await c.query("CHECKPOINT");
  const t0 = process.hrtime.bigint();
  await c.query(`CREATE TABLE l (${COLUMNS}${during ? ", PRIMARY KEY (id)" : ""})`);
  await pipeline(Readable.from(copy), c.query(copyFrom("COPY l FROM STDIN")));
  if (!during) await c.query("ALTER TABLE l ADD PRIMARY KEY (id)");
  await c.query("ANALYZE l");
  const took = ms(t0);
  const { rows } = await c.query<{ b: string }>("SELECT pg_relation_size('l_pkey')::text AS b");
  return [took, Number(rows[0].b)];
}

async function main(): Promise<void> {
  const args = readCommandArgs(process.argv.slice(2), { rounds: { type: "string" }, json: { type: "boolean" } });
  noPositionals(args);
  const rounds = Number(lastValue(args, "rounds") ?? 8);
  if (!Number.isInteger(rounds) || rounds < 1) throw new Error(`--rounds takes a whole number ≥ 1, got ${rounds}`);
  const server = await new EmbeddedPostgresTarget().start({
    engine: "postgresql",
    name: "between-trials",
    settings: { synchronous_commit: "off" },
  });
  const [c, writer] = [await connect(server.connection), await connect(server.connection)];
  try {
    await c.query("CREATE EXTENSION IF NOT EXISTS pg_walinspect");
    await writer.query(`CREATE TABLE t (${COLUMNS}, PRIMARY KEY (id))`);
    await writer.query("INSERT INTO t SELECT g, 0, g, g, g, g, g FROM generate_series(1, 100000) g");
    const bareXid = (x: Client) =>
      x.query("BEGIN; SET LOCAL synchronous_commit = on; SELECT pg_current_xact_id(); COMMIT");
    const lines = Array.from(
      { length: 100_000 },
      (_, i) => `${i + 1}\t0\t${i}\t${i * 7}\t${i * 13}\t${i * 31}\t${i * 61}\n`,
    );
    const copy = Array.from({ length: 10 }, (_, k) => Buffer.from(lines.slice(k * 10_000, (k + 1) * 10_000).join("")));
    const [flushed, polled, during, after] = [[], [], [], []] as number[][];
    const bytes = { during: 0, after: 0 };
    for (let r = 0; r < rounds; r++) {
      // Alternated, so that drift lands on both sides.
      for (const first of r % 2 ? [true, false] : [false, true]) {
        (first ? flushed : polled).push(await countAfter(c, writer, first ? flushWal : bareXid));
        const [took, size] = await load(c, copy, first);
        (first ? during : after).push(took);
        bytes[first ? "during" : "after"] = size;
      }
    }
    const result = {
      rounds,
      walCountMs: { flushWal: median(flushed), bareXidCommit: median(polled) },
      loadMs: { primaryKeyDuringLoad: median(during), primaryKeyAfterLoad: median(after) },
      primaryKeyBytes: bytes,
    };
    console.log(has(args, "json") ? JSON.stringify(result) : result);
  } finally {
    await Promise.all([endClient(c), endClient(writer)]);
    await server.stop();
  }
}

main().catch((error: unknown) => {
  console.error(error instanceof Error ? error.message : error);
  process.exit(1);
});

/**
 * The lab's PostgreSQL batch write path (1,000 single-row statements
 * per round trip, one transaction per batch) against pgbench sending the same statements, same
 * rows, in pipeline mode (`\startpipeline` … `\endpipeline`, `-M prepared`), on the same server;
 * and the share of the lab's time spent outside the server (pg_stat_statements). Each ratio is the median of paired
 * rounds, the two sides back to back.
 */
import { spawnSync } from "node:child_process";
import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import { median } from "simple-statistics";
import type { Client } from "pg";
import { EmbeddedPostgresTarget } from "../lib/targets/embedded/embedded-postgres";
import { PostgresIndexWriteTable } from "../lib/experiments/index-write-cost/workload/postgres-table";
import { connect } from "../lib/engines/postgres/connect";
import { batchRanges, makeDataset } from "../lib/experiments/index-write-cost/workload/engine";
import { UPDATED_COLUMNS, type Operation } from "../lib/experiments/index-write-cost/workload/operations";
import { clientToolEnv } from "../lib/workloads/pgbench";
import { findHostPgbench, PgbenchNotFoundError } from "../lib/workloads/pgbench/locate";
import { has, readCommandArgs, refuse, UsageError } from "../scripts/cli-args";

const TABLE = "write_cost_rows";

/**
 * The pgbench side, like for like: one pipeline of `batchSize` parameterised single-row statements
 * per transaction (`-M prepared`), rows / batchSize transactions on one connection, so the server
 * sees the same statements, values and commits as from the lab. pgbench has no per-row input, so
 * its own expressions produce the rows: INSERT ids count up from 1 (`-D id=0`, a client variable
 * that persists across transactions) with pseudo-random values in [0, 2^53) like the lab's; UPDATE
 * ids are `permute()`d, so every row is updated once in a shuffled order, as in the lab.
 * What differs, and favours the lab: pgbench prepares each of the script's `batchSize` lines as a
 * statement of its own (the lab parses one), so the server keeps `batchSize` cached plans.
 */
interface PgbenchPlan {
  readonly script: string;
  readonly transactions: number;
  /** `-D name=value` definitions. */
  readonly defines: Readonly<Record<string, string>>;
}

const BELOW_2_POW_53 = "9007199254740991";

function pgbenchPlan(rows: number, operation: Operation, batchSize: number): PgbenchPlan {
  const lines = ["\\startpipeline"];
  if (operation === "insert") {
    for (let k = 0; k < batchSize; k++) {
      lines.push("\\set id :id + 1");
      for (let f = 1; f <= 5; f++) lines.push(`\\set f${f} hash(:id, ${f}) & ${BELOW_2_POW_53}`);
      lines.push(
        `INSERT INTO ${TABLE} (id, counter, field1, field2, field3, field4, field5) VALUES (:id, 0, :f1, :f2, :f3, :f4, :f5);`,
      );
    }
  } else {
    const sets = UPDATED_COLUMNS[operation].map((c) => `${c} = ${c} + 1`).join(", ");
    for (let k = 0; k < batchSize; k++) {
      lines.push("\\set n :n + 1");
      lines.push(`\\set id permute(:n, ${rows}, 42) + 1`);
      lines.push(`UPDATE ${TABLE} SET ${sets} WHERE id = :id;`);
    }
  }
  lines.push("\\endpipeline");
  return {
    script: `${lines.join("\n")}\n`,
    transactions: rows / batchSize,
    defines: operation === "insert" ? { id: "0" } : { n: "-1" },
  };
}

/** Planning + execution time the server spent on the benchmark's statements, ms (track_planning on). */
async function serverTime(client: Client): Promise<{ ms: number; rows: number }> {
  const { rows } = await client.query<{ ms: number; rows: number }>(
    "SELECT coalesce(sum(total_plan_time + total_exec_time), 0)::float8 AS ms, coalesce(sum(rows), 0)::int AS rows FROM pg_stat_statements WHERE query ILIKE 'insert into write_cost_rows%' OR query ILIKE 'update write_cost_rows%'",
  );
  return rows[0];
}

/** Every row written exactly once by both sides: a script that silently did less would flatter it. */
function checkRows(who: string, operation: Operation, touched: number, rows: number): void {
  if (touched !== rows)
    throw new Error(`${who} ${operation}: the statements touched ${touched} rows, expected ${rows}`);
}

export interface WritePathResult {
  readonly operation: Operation;
  readonly rows: number;
  readonly batchSize: number;
  readonly labSeconds: number;
  /** pgbench's latency average × transactions: connection set-up is not in it, as it is not in the lab's. */
  readonly pgbenchSeconds: number;
  /** lab / pgbench, the median of the rounds' paired ratios; goal ≤ 1.10. */
  readonly ratio: number;
  /** The paired rounds (the two sides back to back, which first alternating) and their ratios' range. Absent in
   * reports written before rounds were paired. */
  readonly rounds?: number;
  readonly ratioRange?: readonly [number, number];
  /** Share of each side's time not spent planning or executing the statements in the server. */
  readonly outsideServerShare: number;
  readonly pgbenchOutsideServerShare: number;
  /** Server time (plan + execute) of pgbench's statements / the lab's: the cached-plan difference. */
  readonly serverTimeRatio: number;
}

/** One side's timed seconds and the server's planning + execution time of its statements, ms. */
type Side = { readonly seconds: number; readonly serverMs: number };

export async function benchWritePath(
  rows = 100_000,
  batchSize = 1000,
  operations: Operation[] = ["insert", "update_nonindexed", "update_one_field", "update_five_fields"],
  rounds = 3,
): Promise<WritePathResult[]> {
  if (!Number.isInteger(rounds) || rounds < 1) throw new Error(`rounds must be a whole number ≥ 1, got ${rounds}`);
  if (!Number.isInteger(rows) || rows <= 0 || rows % batchSize !== 0) {
    throw new Error(
      `rows (${rows}) must be a positive multiple of the batch size (${batchSize}): pgbench runs whole batches`,
    );
  }
  // The bench compares against pgbench on this host: pgbench inside a container would add docker's hops.
  const pgbench = findHostPgbench()?.path;
  if (!pgbench)
    throw new PgbenchNotFoundError(
      "pgbench not found on this host: install the PostgreSQL client tools (npm run setup) or set DBLAB_PGBENCH",
    );
  const server = await new EmbeddedPostgresTarget().start({
    engine: "postgresql",
    name: "bench",
    settings: {
      shared_buffers: "1GB",
      synchronous_commit: "off",
      shared_preload_libraries: "pg_stat_statements",
      "pg_stat_statements.track_planning": "on",
    },
  });
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), "dblab-bench-"));
  const results: WritePathResult[] = [];
  try {
    const admin = await connect(server.connection);
    await admin.query("CREATE EXTENSION pg_stat_statements");
    const table = await PostgresIndexWriteTable.open(server.connection);
    const dataset = makeDataset(rows, 42);
    // Both sides start from the same table and from empty statement statistics.
    const freshStart = async (operation: Operation): Promise<void> => {
      await table.recreate({ fillfactor: 100 });
      if (operation !== "insert") await table.load(dataset);
      await table.createIndexes([]);
      await admin.query("SELECT pg_stat_statements_reset()");
    };
    const labSide = async (operation: Operation): Promise<Side> => {
      await freshStart(operation);
      const t0 = process.hrtime.bigint();
      for (const [start, end] of batchRanges(rows, batchSize)) {
        if (operation === "insert") await table.insertBatch(dataset, start, end);
        else await table.updateBatch(dataset, operation, start, end);
      }
      const seconds = Number(process.hrtime.bigint() - t0) / 1e9;
      await table.counters(); // flushes the writer's statistics
      const lab = await serverTime(admin);
      checkRows("lab", operation, lab.rows, rows);
      return { seconds, serverMs: lab.ms };
    };
    // pgbench, same statements and rows, pipelined.
    const pgbenchSide = async (operation: Operation): Promise<Side> => {
      await freshStart(operation);
      const plan = pgbenchPlan(rows, operation, batchSize);
      const script = path.join(dir, `${operation}.sql`);
      fs.writeFileSync(script, plan.script);
      const c = server.connection;
      const defines = Object.entries(plan.defines).flatMap(([k, v]) => ["-D", `${k}=${v}`]);
      const args = [
        "-n",
        "-t",
        String(plan.transactions),
        "-M",
        "prepared",
        ...defines,
        "-f",
        script,
        "-h",
        c.host,
        "-p",
        String(c.port),
        "-U",
        c.user,
        c.database,
      ];
      const out = spawnSync(pgbench, args, {
        env: clientToolEnv(c),
        encoding: "utf8",
        maxBuffer: 64 * 2 ** 20,
      });
      if (out.status !== 0) throw new Error(`pgbench failed: ${out.stderr}`);
      const latency = /latency average = ([\d.]+) ms/.exec(out.stdout);
      if (!latency) throw new Error(`no latency in pgbench output:\n${out.stdout}`);
      const pgb = await serverTime(admin); // pg_stat_statements counts each statement as it ends
      checkRows("pgbench", operation, pgb.rows, rows);
      return { seconds: (Number(latency[1]) * plan.transactions) / 1000, serverMs: pgb.ms };
    };
    // A machine's write path changes speed for minutes at a time: each ratio is formed within a round.
    for (const operation of operations) {
      const paired: { lab: Side; pgb: Side }[] = [];
      for (let round = 0; round < rounds; round++) {
        if (round % 2 === 0) {
          const lab = await labSide(operation);
          paired.push({ lab, pgb: await pgbenchSide(operation) });
        } else {
          const pgb = await pgbenchSide(operation);
          paired.push({ lab: await labSide(operation), pgb });
        }
      }
      const of = (f: (p: { lab: Side; pgb: Side }) => number) => median(paired.map(f));
      const ratios = paired.map((p) => p.lab.seconds / p.pgb.seconds);
      results.push({
        operation,
        rows,
        batchSize,
        labSeconds: of((p) => p.lab.seconds),
        pgbenchSeconds: of((p) => p.pgb.seconds),
        ratio: median(ratios),
        rounds,
        ratioRange: [Math.min(...ratios), Math.max(...ratios)],
        outsideServerShare: of((p) => 1 - p.lab.serverMs / 1000 / p.lab.seconds),
        pgbenchOutsideServerShare: of((p) => 1 - p.pgb.serverMs / 1000 / p.pgb.seconds),
        serverTimeRatio: of((p) => p.pgb.serverMs / p.lab.serverMs),
      });
    }
    await table.close();
    await admin.end();
  } finally {
    await server.stop();
    fs.rmSync(dir, { recursive: true, force: true });
  }
  return results;
}

/** `node build/bench/write-path.js [ROWS]`: the rows to write, a whole number (default 100000). */
function mainRows(): number | undefined {
  const usage = "node build/bench/write-path.js --help";
  try {
    const parsed = readCommandArgs(process.argv.slice(2), { help: { type: "boolean", short: "h" } });
    if (has(parsed, "help")) {
      console.log(
        "Usage: node build/bench/write-path.js [ROWS]\nThe lab's write path against pgbench, ROWS rows (default 100000).",
      );
      return undefined;
    }
    const [raw, extra] = parsed.positionals;
    if (extra !== undefined) throw new UsageError(`unknown argument "${extra}"`);
    const rows = Number(raw ?? 100_000);
    if (!Number.isInteger(rows) || rows < 1) throw new UsageError(`ROWS must be a whole number ≥ 1, got "${raw}"`);
    return rows;
  } catch (e) {
    if (!(e instanceof UsageError)) throw e;
    process.exitCode = refuse("write-path", e, usage);
    return undefined;
  }
}

const rows = require.main === module ? mainRows() : undefined;
if (rows !== undefined) {
  benchWritePath(rows).then(
    (r) => console.table(r),
    (e) => {
      console.error(e);
      process.exit(1);
    },
  );
}

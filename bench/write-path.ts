/**
 * Benchmark 1 and 2 of issue 7: the lab's PostgreSQL batch write path (1,000 single-row statements
 * per round trip, one transaction per batch) against pgbench sending the same statements, same
 * rows, in pipeline mode (`\startpipeline` … `\endpipeline`, `-M extended`), on the same server;
 * and the share of the lab's time spent outside the server (pg_stat_statements).
 */
import { spawnSync } from "node:child_process";
import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import type { Client } from "pg";
import { EmbeddedPostgresTarget } from "../lib/targets/embedded/embedded-postgres";
import { PostgresIndexWriteTable } from "../lib/engines/postgres/index-write-table";
import { connect } from "../lib/engines/postgres/connect";
import { batchRanges, makeDataset, type Dataset } from "../lib/workloads/index-write-cost/dataset";
import { UPDATED_COLUMNS, type Operation } from "../lib/workloads/index-write-cost/operations";
import { findPgbench } from "./support/pgbench-binary";

const TABLE = "write_cost_rows";

/**
 * The pgbench side. UPDATE: one pipeline of `batchSize` statements per script run, ids from
 * `\set id random(1, rows)`, `-M prepared`, run rows/batchSize times — the same statement shape and
 * count as the lab (pgbench has no per-row input, so the ids are random, not the shuffled order).
 * INSERT needs the same unique ids, which pgbench can only take literally: the whole data set as one
 * script with `-M extended` (each statement parsed), which favours the lab; reported as such.
 */
interface PgbenchPlan {
  /** One script per pgbench invocation; each runs once (`-t 1`) unless `transactions` says more. */
  readonly scripts: readonly string[];
  readonly mode: string;
  readonly transactions: number;
}

function pgbenchPlan(dataset: Dataset, operation: Operation, batchSize: number): PgbenchPlan {
  const f = dataset.fields;
  if (operation === "insert") {
    // One small script per batch: pgbench's time grows faster than linearly with script length.
    const scripts: string[] = [];
    for (const [start, end] of batchRanges(dataset.rows, batchSize)) {
      const lines = ["\\startpipeline"];
      for (let i = start; i < end; i++) {
        lines.push(`INSERT INTO ${TABLE} (id, counter, field1, field2, field3, field4, field5) VALUES (${i + 1}, 0, ${f[0][i]}, ${f[1][i]}, ${f[2][i]}, ${f[3][i]}, ${f[4][i]});`);
      }
      lines.push("\\endpipeline");
      scripts.push(`${lines.join("\n")}\n`);
    }
    return { scripts, mode: "extended", transactions: 1 };
  }
  const sets = UPDATED_COLUMNS[operation].map((c) => `${c} = ${c} + 1`).join(", ");
  const lines = ["\\startpipeline"];
  for (let k = 0; k < batchSize; k++) {
    lines.push(`\\set id${k} random(1, ${dataset.rows})`);
    lines.push(`UPDATE ${TABLE} SET ${sets} WHERE id = :id${k};`);
  }
  lines.push("\\endpipeline");
  return { scripts: [`${lines.join("\n")}\n`], mode: "prepared", transactions: Math.ceil(dataset.rows / batchSize) };
}

async function serverExecMs(client: Client): Promise<number> {
  const { rows } = await client.query<{ ms: number }>(
    "SELECT coalesce(sum(total_exec_time), 0)::float8 AS ms FROM pg_stat_statements WHERE query ILIKE 'insert into write_cost_rows%' OR query ILIKE 'update write_cost_rows%'",
  );
  return rows[0].ms;
}

export interface WritePathResult {
  readonly operation: Operation;
  /** pgbench's -M: "prepared" (same statement shape) or "extended" (literal rows, parsed each time). */
  readonly pgbenchMode: string;
  readonly rows: number;
  readonly labSeconds: number;
  readonly pgbenchSeconds: number;
  /** lab / pgbench; goal ≤ 1.10. */
  readonly ratio: number;
  /** Share of the lab's time not spent executing statements in the server. */
  readonly outsideServerShare: number;
}

export async function benchWritePath(rows = 100_000, batchSize = 1000, operations: Operation[] = ["insert", "update_nonindexed", "update_one_field"]): Promise<WritePathResult[]> {
  const pgbench = findPgbench();
  const server = await new EmbeddedPostgresTarget().start({
    engine: "postgresql",
    name: "bench",
    settings: { shared_buffers: "1GB", synchronous_commit: "off", shared_preload_libraries: "pg_stat_statements" },
  });
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), "dblab-bench-"));
  const results: WritePathResult[] = [];
  try {
    const admin = await connect(server.connection);
    await admin.query("CREATE EXTENSION pg_stat_statements");
    const table = await PostgresIndexWriteTable.open(server.connection);
    const dataset = makeDataset(rows, 42);
    for (const operation of operations) {
      // The lab's path.
      await table.recreate({ fillfactor: 100 });
      if (operation !== "insert") await table.load(dataset);
      await admin.query("SELECT pg_stat_statements_reset()");
      const t0 = process.hrtime.bigint();
      for (const [start, end] of batchRanges(rows, batchSize)) {
        if (operation === "insert") await table.insertBatch(dataset, start, end);
        else await table.updateBatch(dataset, operation, start, end);
      }
      const labSeconds = Number(process.hrtime.bigint() - t0) / 1e9;
      await table.counters(); // flushes the writer's statistics
      const execMs = await serverExecMs(admin);

      // pgbench, same statements and rows, pipelined.
      await table.recreate({ fillfactor: 100 });
      if (operation !== "insert") await table.load(dataset);
      const plan = pgbenchPlan(dataset, operation, batchSize);
      const c = server.connection;
      let pgbenchSeconds = 0;
      for (const [n, text] of plan.scripts.entries()) {
        const script = path.join(dir, `${operation}-${n}.sql`);
        fs.writeFileSync(script, text);
        const args = ["-n", "-t", String(plan.transactions), "-M", plan.mode, "-f", script, "-h", c.host, "-p", String(c.port), "-U", c.user, c.database];
        const out = spawnSync(pgbench, args, { env: { ...process.env, PGPASSWORD: c.password }, encoding: "utf8", maxBuffer: 64 * 2 ** 20 });
        if (out.status !== 0) throw new Error(`pgbench failed: ${out.stderr}`);
        const latency = /latency average = ([\d.]+) ms/.exec(out.stdout);
        if (!latency) throw new Error(`no latency in pgbench output:\n${out.stdout}`);
        // latency average is per script run; connection set-up is not in it.
        pgbenchSeconds += (Number(latency[1]) * plan.transactions) / 1000;
      }
      results.push({
        operation,
        pgbenchMode: plan.mode,
        rows,
        labSeconds,
        pgbenchSeconds,
        ratio: labSeconds / pgbenchSeconds,
        outsideServerShare: 1 - execMs / 1000 / labSeconds,
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

if (require.main === module) {
  benchWritePath(Number(process.argv[2] ?? 100_000)).then((r) => console.table(r), (e) => {
    console.error(e);
    process.exit(1);
  });
}

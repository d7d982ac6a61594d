// test-tier: host — runs three notebooks at once, one of them on this machine's Docker daemon
/**
 * Many runs at once, as a team or one impatient user starts them, each in a process of its own:
 * - on one machine, embedded and Docker mixed: 01 and 02 on embedded servers, 04 in a container;
 * - on one external server reached over verified TLS: two 06 runs and one 03 run.
 * All finish; each run's trials are its own (its own results folder, its own run id in every
 * database and container it made); nothing is left afterwards on the server, on the engine or in
 * the state folder all of them share.
 *
 * The form CI runs is the smaller one: smoke sizes. The full form is the same test at a profile of
 * the user's, with each run also timed alone afterwards, so that the note can say what sharing cost:
 *   DBLAB_LOAD_PROFILE=default DBLAB_LOAD_ALONE=1 node build/scripts/test.js integration/load
 * (`npm run test:load`). DBLAB_LOAD_REPORT=<file> writes the figures as a markdown table.
 */
import { test, type TestContext } from "node:test";
import assert from "node:assert/strict";
import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import Docker from "dockerode";
import { Client } from "pg";
import { LAB_LABEL } from "../../lib/targets/docker/docker-client";
import { runDatabasePrefix } from "../../lib/targets/run-names";
import { findHostClientTool, findHostPgbench } from "../../lib/workloads/pgbench";
import { runInChild, type ChildRun } from "../support/run-child";
import { opensslMissing } from "../support/test-ca";
import { startTlsPostgres } from "../support/tls-postgres";

const PROFILE = process.env.DBLAB_LOAD_PROFILE ?? "smoke";
const ALONE = process.env.DBLAB_LOAD_ALONE === "1";
const TIMEOUT_MS = PROFILE === "smoke" ? 900_000 : 4 * 3_600_000;

interface Planned {
  readonly notebook: string;
  readonly target: "embedded" | "docker" | "external";
}

interface Figures {
  readonly form: string;
  readonly runs: readonly ChildRun[];
  readonly wallSeconds: number;
  readonly alone?: readonly ChildRun[];
  readonly leftAfter: string;
}

const figures: Figures[] = [];

function box(name: string): { results: string; state: string; remove(): void } {
  const results = fs.mkdtempSync(path.join(os.tmpdir(), `dblab-load-${name}-`));
  const state = fs.mkdtempSync(path.join(os.tmpdir(), `dblab-load-${name}-state-`));
  return {
    results,
    state,
    remove: () => {
      fs.rmSync(results, { recursive: true, force: true });
      fs.rmSync(state, { recursive: true, force: true });
    },
  };
}

/** The runs at once, then (full form) each alone in turn, in results folders of their own. */
async function runAll(
  planned: readonly Planned[],
  env: (results: string) => NodeJS.ProcessEnv,
  results: string,
): Promise<{ runs: ChildRun[]; wallSeconds: number; alone?: ChildRun[] }> {
  const began = Date.now();
  const runs = await Promise.all(planned.map((p) => runInChild(p.notebook, PROFILE, p.target, env(results))));
  const wallSeconds = (Date.now() - began) / 1000;
  if (!ALONE) return { runs, wallSeconds };
  const alone: ChildRun[] = [];
  for (const p of planned) {
    const dir = fs.mkdtempSync(path.join(results, "alone-"));
    alone.push(await runInChild(p.notebook, PROFILE, p.target, env(dir)));
  }
  return { runs, wallSeconds, alone };
}

interface StoredTrial {
  readonly key: string;
  readonly status: string;
  readonly walRecords?: object;
  readonly walShared?: readonly string[];
}

function trialsOf(r: ChildRun): StoredTrial[] {
  return fs
    .readFileSync(path.join(r.directory, "trials.jsonl"), "utf8")
    .split("\n")
    .filter((l) => l.trim())
    .map((l) => JSON.parse(l) as StoredTrial);
}

/** Each run finished every trial, in its own folder, under its own id. */
function assertOwnTrials(runs: readonly ChildRun[]): void {
  for (const r of runs) {
    assert.ok(r.trials > 0, `${r.runId} recorded trials`);
    assert.equal(r.ok, r.trials, `${r.runId}: every trial finished`);
    const lines = trialsOf(r);
    assert.deepEqual(
      lines.map((l) => l.key).sort(),
      [...r.keys].sort(),
      `${r.runId}: its trials.jsonl holds its own trials`,
    );
  }
  assert.equal(new Set(runs.map((r) => r.runId)).size, runs.length, "a run id each");
  assert.equal(new Set(runs.map((r) => r.directory)).size, runs.length, "a results folder each");
}

/** The state folder the runs shared holds no record once they are gone (watchers may take a moment). */
async function recordsLeft(state: string): Promise<string[]> {
  const dir = path.join(state, "resources");
  const deadline = Date.now() + 20_000;
  const list = () => (fs.existsSync(dir) ? fs.readdirSync(dir) : []);
  while (list().length && Date.now() < deadline) await new Promise((r) => setTimeout(r, 250));
  return list();
}

async function dockerUnavailable(docker: Docker): Promise<string | undefined> {
  try {
    await docker.ping();
    return undefined;
  } catch (error) {
    return `no Docker daemon answers on /var/run/docker.sock: ${String(error)}`;
  }
}

function skipReason(): string | undefined {
  if (!findHostPgbench() || !findHostClientTool("psql")) return "no pgbench or psql on this machine";
  return undefined;
}

test(
  "three runs at once on one machine, embedded and Docker mixed: all finish, each its own, nothing left",
  { timeout: TIMEOUT_MS },
  async (t: TestContext) => {
    const docker = new Docker({ socketPath: "/var/run/docker.sock" });
    const why = skipReason() ?? (await dockerUnavailable(docker));
    if (why) return t.skip(why);
    const b = box("machine");
    try {
      const planned: Planned[] = [
        { notebook: "index-write-cost", target: "embedded" },
        { notebook: "create-index-after-load", target: "embedded" },
        { notebook: "reindex-under-load", target: "docker" },
      ];
      const env = (results: string): NodeJS.ProcessEnv => ({
        ...process.env,
        DBLAB_RESULTS_DIR: results,
        DBLAB_STATE_DIR: b.state,
        DOCKER_HOST: undefined,
        DBLAB_TARGET: undefined,
        DBLAB_POSTGRES_URI: undefined,
      });
      const { runs, wallSeconds, alone } = await runAll(planned, env, b.results);
      assertOwnTrials(runs);
      for (const [i, r] of runs.entries())
        assert.deepEqual([...new Set(r.serverKinds)], [planned[i]?.target], `${r.runId} ran on ${planned[i]?.target}`);
      const containers = await docker.listContainers({ all: true, filters: { label: [LAB_LABEL] } });
      const ours = containers.filter((c) => runs.some((r) => c.Labels[`${LAB_LABEL}.run-id`] === r.runId));
      const records = await recordsLeft(b.state);
      assert.deepEqual(
        ours.map((c) => c.Names.join(",")),
        [],
        "no container of these runs is left on the engine",
      );
      assert.deepEqual(records, [], "no record is left in the shared state folder");
      figures.push({
        form: "one machine: 01 and 02 embedded, 04 on Docker",
        runs,
        wallSeconds,
        alone,
        leftAfter: `containers of the runs ${ours.length}, records in the state folder ${records.length}`,
      });
    } finally {
      b.remove();
    }
  },
);

test(
  "two 06 runs and one 03 run at once against one external TLS server: all finish, each its own, nothing left",
  { timeout: TIMEOUT_MS },
  async (t: TestContext) => {
    const why = skipReason() ?? opensslMissing();
    if (why) return t.skip(why);
    const server = await startTlsPostgres("load-tls");
    const b = box("external");
    const watcher = new Client(server.server.connection);
    await watcher.connect();
    // Every lab database seen on the server while the runs go on.
    const seen = new Set<string>();
    let watching = true;
    const watch = (async () => {
      while (watching) {
        const { rows } = await watcher.query<{ datname: string }>(
          "SELECT datname FROM pg_database WHERE datname LIKE 'dblab%'",
        );
        for (const r of rows) seen.add(r.datname);
        await new Promise((r) => setTimeout(r, 100));
      }
    })();
    try {
      const planned: Planned[] = [
        { notebook: "your-indexes", target: "external" },
        { notebook: "your-indexes", target: "external" },
        { notebook: "over-indexing", target: "external" },
      ];
      const env = (results: string): NodeJS.ProcessEnv => ({
        ...process.env,
        DBLAB_TARGET: "external",
        DBLAB_POSTGRES_URI: server.uri,
        DBLAB_RESULTS_DIR: results,
        DBLAB_STATE_DIR: b.state,
      });
      const { runs, wallSeconds, alone } = await runAll(planned, env, b.results);
      watching = false;
      await watch;
      assertOwnTrials(runs);
      for (const r of runs) {
        // Every window's WAL was held until it was counted: on this server the other runs'
        // checkpoints recycled a window's WAL before it was read ("… has already been removed").
        const withoutWal = trialsOf(r)
          .filter((x) => x.status === "ok" && !x.walRecords)
          .map((x) => x.key);
        assert.deepEqual(withoutWal, [], `${r.runId}: every trial kept its WAL counts`);
      }
      // The server's WAL counters see every database: a window beside another run's pgbench is
      // named, and its WAL figures are left out of the summary (other-writes.ts). The three runs
      // overlap for most of their time, so some windows must be; alone, none may be.
      const shared = runs.flatMap((r) => trialsOf(r).filter((x) => x.walShared?.length));
      assert.ok(shared.length > 0, "windows beside another run's writes are named");
      for (const r of alone ?? [])
        assert.deepEqual(
          trialsOf(r)
            .filter((x) => x.walShared?.length)
            .map((x) => `${x.key}: ${x.walShared?.join(", ")}`),
          [],
          `${r.runId} alone: no window shares its WAL`,
        );
      // Every database any run made carries one run's id, and each run made some.
      const prefixes = runs.map((r) => runDatabasePrefix(r.runId));
      for (const name of seen)
        assert.ok(
          prefixes.some((p) => name === p || name.startsWith(`${p}_`)) ||
            (alone ?? []).some((r) => name.startsWith(runDatabasePrefix(r.runId))),
          `${name} carries a run's id (${prefixes.join(", ")})`,
        );
      for (const p of prefixes) assert.ok(seen.has(p), `${p} was made`);
      assert.ok(
        [...seen].some((n) => n.endsWith("_inventory_template")) && [...seen].some((n) => n.endsWith("_yi_template")),
        [...seen].join(", "),
      );
      const held = await watcher.query<{ what: string }>(
        `SELECT 'database ' || datname AS what FROM pg_database WHERE datname LIKE 'dblab%'
         UNION ALL SELECT 'slot ' || slot_name FROM pg_replication_slots
         UNION ALL SELECT 'session ' || datname || ' ' || coalesce(application_name, '') FROM pg_stat_activity
                   WHERE datname LIKE 'dblab%' AND pid <> pg_backend_pid()`,
      );
      const records = await recordsLeft(b.state);
      assert.deepEqual(
        held.rows.map((r) => r.what),
        [],
        "nothing left on the server",
      );
      assert.deepEqual(records, [], "no record is left in the shared state folder");
      figures.push({
        form: `one external TLS server (${server.address}): two 06 runs and one 03 run`,
        runs,
        wallSeconds,
        alone,
        leftAfter:
          `databases, slots and sessions of the lab ${held.rows.length}, records ${records.length}; windows ` +
          `beside another run's writes (their WAL figures left out): ${shared.length} of ` +
          `${runs.reduce((a, r) => a + r.trials, 0)}`,
      });
    } finally {
      watching = false;
      await watch.catch(() => undefined);
      await watcher.end();
      await server.stop();
      b.remove();
    }
  },
);

test("the load test's figures", (t) => {
  const lines = [
    `Load test at profile ${PROFILE} (${os.cpus().length} CPUs)${ALONE ? "" : "; DBLAB_LOAD_ALONE=1 times each run alone too"}`,
    "",
    "| form | run | notebook | target | trials | at once | alone | at once ÷ alone |",
    "|---|---|---|---|---|---|---|---|",
  ];
  for (const f of figures) {
    for (const [i, r] of f.runs.entries()) {
      const a = f.alone?.[i];
      lines.push(
        `| ${i === 0 ? f.form : ""} | ${r.runId} | ${r.notebook} | ${r.target} | ${r.ok}/${r.trials} | ` +
          `${r.seconds.toFixed(0)} s | ${a ? `${a.seconds.toFixed(0)} s (${a.ok}/${a.trials})` : "—"} | ` +
          `${a ? `${(r.seconds / a.seconds).toFixed(2)}×` : "—"} |`,
      );
    }
    const aloneSum = f.alone?.reduce((s, r) => s + r.seconds, 0);
    lines.push(
      `| | wall | | | | ${f.wallSeconds.toFixed(0)} s | ${aloneSum ? `${aloneSum.toFixed(0)} s one after another` : "—"} | ` +
        `${aloneSum ? `${(f.wallSeconds / aloneSum).toFixed(2)}×` : "—"} |`,
      `| | left afterwards | ${f.leftAfter} | | | | | |`,
    );
  }
  const text = lines.join("\n");
  t.diagnostic(text);
  console.log(text);
  const report = process.env.DBLAB_LOAD_REPORT;
  if (report) fs.writeFileSync(report, `${text}\n`);
});

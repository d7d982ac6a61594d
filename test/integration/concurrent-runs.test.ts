// test-tier: shared — its own embedded PostgreSQL servers (one ssl=on), runs in children and kernels, own folders
/**
 * Runs one after another on one server, an embedded PostgreSQL used as an external one on loopback
 * and reached over verified TLS as a managed one is: `npm run reproduce` of 03 and of 04 killed with
 * SIGKILL mid-pgbench (it cannot drop what it made there), then the next run against that server:
 * once it finishes, the server holds no database, session or role of the dead run. Each kill waits
 * for the state it then asserts on, seen on the server (pgbench's sessions active; a clone's
 * CREATE DATABASE held waiting: CloneHold), and each test starts from the shared server checked and
 * cleaned of what an earlier one left (cleanLabDatabases). Runs at once on one server are
 * load.test.ts's.
 */
import { after, test, type TestContext } from "node:test";
import assert from "node:assert/strict";
import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import { Client } from "pg";
import { jupyterUnavailableReason } from "../../lib/jupyter/execute";
import { projectRoot } from "../../lib/jupyter/kernel-spec";
import { processTree } from "../../lib/runtime/reaper";
import { isProcessAlive } from "../../lib/runtime/resource-registry";
import type { EmbeddedPostgresServer } from "../../lib/targets/embedded/embedded-postgres";
import { LAB_DATABASE_COMMENT } from "../../lib/targets/external/external-target";
import { runDatabasePrefix } from "../../lib/targets/run-names";
import { findHostClientTool, findHostPgbench } from "../../lib/workloads/pgbench";
import { isPgbench, logsUnder, pgbenchUnder, runReproduce, title } from "../support/reproduce-child";
import { runDirectory, trialLines } from "../support/run-files";
import { cleanLabDatabases } from "../support/lab-databases";
import { opensslMissing } from "../support/test-ca";
import { startTlsPostgres, type TlsPostgres } from "../support/tls-postgres";

/** The kill tests' server, reached over verified TLS as a managed one is; shared by them, started by the first. */
let tlsServer: Promise<TlsPostgres> | undefined;
const startTlsServer = (): Promise<TlsPostgres> => (tlsServer ??= startTlsPostgres("kill-tls"));

after(async () => {
  await (await tlsServer?.catch(() => undefined))?.stop();
});

interface Catalog {
  /** The lab's databases, each with its comment (the lab's marker and its owner). */
  readonly databases: readonly { readonly name: string; readonly comment: string | null }[];
  readonly roles: readonly string[];
  /** Sessions in a lab database, by database and application. */
  readonly sessions: readonly string[];
  /** Replication slots (a run's WAL holds are temporary slots, gone with their session). */
  readonly slots: readonly string[];
}

/** What the server holds that a run could have made: databases, roles, sessions in its databases. */
async function catalog(server: EmbeddedPostgresServer): Promise<Catalog> {
  const c = new Client(server.connection);
  await c.connect();
  try {
    const databases = await c.query<{ name: string; comment: string | null }>(
      `SELECT datname AS name, shobj_description(oid, 'pg_database') AS comment FROM pg_database
       WHERE datname LIKE 'dblab%' ORDER BY datname`,
    );
    const roles = await c.query<{ rolname: string }>("SELECT rolname FROM pg_roles ORDER BY rolname");
    const sessions = await c.query<{ s: string }>(
      `SELECT datname || ' ' || coalesce(application_name, '') AS s FROM pg_stat_activity
       WHERE datname LIKE 'dblab%' AND pid <> pg_backend_pid() ORDER BY 1`,
    );
    const slots = await c.query<{ slot_name: string }>("SELECT slot_name FROM pg_replication_slots ORDER BY 1");
    return {
      slots: slots.rows.map((r) => r.slot_name),
      databases: databases.rows,
      roles: roles.rows.map((r) => r.rolname),
      sessions: sessions.rows.map((r) => r.s),
    };
  } finally {
    await c.end();
  }
}

const OWNER_PID = /\(owner \S+ pid (\d+)/;

interface KillCase {
  readonly notebook: "03" | "04";
  /** The killed run's sizes: its fault-matrix overrides, so that the kill lands mid-pgbench of a later trial. */
  readonly sets: readonly string[];
  /** The next run's: the smallest run of the notebook that still makes its template and clones. */
  readonly nextSets: readonly string[];
  /**
   * Which processes get the SIGKILL: "lab" the runner, nbclient and the kernel (what a kill -9 or
   * the OOM killer of a kernel does; pgbench and the kernel's watcher live in sessions of their own
   * and are left to the lab), "all" every process under the runner, watcher and pgbench included
   * (nothing of the lab survives to clean up; only the server does).
   */
  readonly kill: "lab" | "all";
  /**
   * When: "pgbench" once pgbench's sessions are active on the server, "create-database" while the
   * server holds a clone's CREATE DATABASE … TEMPLATE (the server finishes that copy for a client
   * that died, and the lab's COMMENT on the clone, its mark, never comes): see holdClone.
   */
  readonly point: "pgbench" | "create-database";
}

function filesUnder(root: string): string[] {
  if (!fs.existsSync(root)) return [];
  return fs
    .readdirSync(root, { withFileTypes: true })
    .flatMap((e) => (e.isDirectory() ? filesUnder(path.join(root, e.name)) : [path.join(root, e.name)]));
}

const seconds = (from: number, to: number = Date.now()): string => `${((to - from) / 1000).toFixed(1)} s`;

const quoted = (name: string): string => `"${name.replace(/"/g, '""')}"`;

/** A clone's CREATE DATABASE, seen waiting in the server: its backend and the clone's name. */
interface HeldClone {
  readonly pid: number;
  readonly clone: string;
}

/**
 * Makes the run's next clone wait inside its CREATE DATABASE, where the test sees it, until the
 * test lets it go. Killing when a backend's title showed the copy raced it: on a slower box the
 * copy had committed and the lab's COMMENT had marked it before the SIGKILL landed, or the copy had
 * not committed when the catalog was read. Here `holder` opens a transaction that comments the
 * template (with the comment it already has), which takes ShareUpdateExclusiveLock on it, and the
 * copy's ShareLock on its template waits for that; connections to the template take a lock that
 * does not conflict. `heldClone` then finds a CREATE DATABASE … TEMPLATE of it waiting on that
 * lock: the state the test kills in. ROLLBACK lets the copy go on for a client that is gone.
 */
class CloneHold {
  private template: { readonly name: string; readonly oid: number } | undefined;

  /**
   * `holder` keeps the transaction open; `observer` looks (pg_stat_activity, read inside a
   * transaction, is the snapshot of its first read: the holder would never see the copy arrive).
   */
  constructor(
    private readonly holder: Client,
    private readonly observer: Client,
  ) {}

  /** Takes the lock once the run's template is made (and marked: its recreateDatabase is over). */
  async take(): Promise<boolean> {
    if (this.template) return true;
    const { rows } = await this.holder.query<{ name: string; oid: number; comment: string | null }>(
      `SELECT datname AS name, oid::int AS oid, shobj_description(oid, 'pg_database') AS comment
       FROM pg_database WHERE datname LIKE 'dblab%\\_template'`,
    );
    const made = rows.find((r) => r.comment !== null);
    if (!made || made.comment === null) return false;
    await this.holder.query("BEGIN");
    await this.holder.query(`COMMENT ON DATABASE ${quoted(made.name)} IS '${made.comment.replace(/'/g, "''")}'`);
    this.template = { name: made.name, oid: made.oid };
    return true;
  }

  /** The run's clone waiting on the lock, if it is there yet. */
  async held(): Promise<HeldClone | undefined> {
    if (!this.template) return undefined;
    const { rows } = await this.observer.query<{ pid: number; query: string }>(
      `SELECT a.pid, a.query FROM pg_locks l JOIN pg_stat_activity a ON a.pid = l.pid
       WHERE l.locktype = 'object' AND l.classid = 'pg_database'::regclass AND l.objid = $1 AND NOT l.granted`,
      [this.template.oid],
    );
    for (const r of rows) {
      const m = /^CREATE DATABASE (\S+) TEMPLATE (\S+)/.exec(r.query);
      if (m?.[2] === this.template.name) return { pid: r.pid, clone: m[1] };
    }
    return undefined;
  }

  async release(): Promise<void> {
    if (this.template) await this.holder.query("ROLLBACK");
    this.template = undefined;
  }
}

async function killThenNextRun(t: TestContext, c: KillCase): Promise<void> {
  const missing =
    jupyterUnavailableReason() ??
    opensslMissing() ??
    (!findHostPgbench() || !findHostClientTool("psql") ? "no pgbench or psql on this machine" : undefined);
  if (missing) return void t.skip(missing);
  const { server, uri, password } = await startTlsServer();
  const box = fs.mkdtempSync(path.join(os.tmpdir(), `dblab-kill-${c.notebook}-`));
  const state = path.join(box, "state");
  const reports = path.join(box, "reports");
  const env = (results: string): NodeJS.ProcessEnv => ({
    ...process.env,
    DBLAB_TARGET: "external",
    DBLAB_POSTGRES_URI: uri,
    DBLAB_RESULTS_DIR: path.join(box, results),
    DBLAB_STATE_DIR: state,
  });
  const args = (sets: readonly string[]) => [
    "--profile",
    "smoke",
    "--only",
    c.notebook,
    ...sets.map((s) => `--set=${s}`),
    "--reports-dir",
    reports,
  ];
  await cleanLabDatabases(t, server);
  const before = await catalog(server);
  const probe = new Client(server.connection);
  await probe.connect();
  const holder = new Client(server.connection);
  await holder.connect();
  const hold = new CloneHold(holder, probe);
  let held: HeldClone | undefined;
  const dead = runReproduce(args(c.sets), env("dead"));
  let ended = false;
  void dead.done.then(() => (ended = true));
  const seenPgbench = new Set<number>();
  // The kernel's watcher, when spared, writes its log into the state folder as it ends.
  const watchers = new Set<number>();
  try {
    // The point: a trial on disk, and the next one at pgbench or in its clone's CREATE DATABASE.
    const began = Date.now();
    const atPoint = async (): Promise<boolean> => {
      if (!trialLines(path.join(box, "dead")).some((x) => x.status === "ok")) return false;
      if (c.point === "create-database") {
        if (!(await hold.take())) return false;
        held = await hold.held();
        return held !== undefined;
      }
      if (pgbenchUnder(dead.child.pid ?? 0) === undefined) return false;
      const { rows } = await probe.query(
        "SELECT 1 FROM pg_stat_activity WHERE application_name = 'pgbench' AND state = 'active' AND datname LIKE 'dblab%'",
      );
      return rows.length > 0;
    };
    let reached = false;
    while (!ended && Date.now() - began < 240_000 && !(reached = await atPoint()))
      await new Promise((r) => setTimeout(r, 20));
    assert.ok(
      reached && !ended,
      `the run never reached ${c.point === "create-database" ? "a clone's CREATE DATABASE waiting on its template" : "pgbench's sessions active on the server"} after a finished trial (waited ${seconds(began)}):\n${(await Promise.race([dead.done, Promise.resolve({ output: "(running)" })])).output.slice(-3000)}`,
    );
    const tree = processTree(dead.child.pid ?? 0);
    for (const p of tree) if (isPgbench(p)) seenPgbench.add(p);
    const spared = (p: number) => c.kill === "lab" && (isPgbench(p) || /watcher\.js/.test(title(p)));
    const killed = tree.filter((p) => !spared(p));
    for (const p of tree) if (spared(p) && /watcher\.js/.test(title(p))) watchers.add(p);
    const titles = new Map(
      tree.map((p) => [
        p,
        title(p)
          .split(" ")
          .slice(0, 2)
          .map((w) => path.basename(w))
          .join(" "),
      ]),
    );
    const killedAt = Date.now();
    for (const p of killed) {
      try {
        process.kill(p, "SIGKILL");
      } catch {
        // gone already
      }
    }
    const deadOut = await dead.done;
    ended = true;
    if (held) {
      // Its client is gone: the server goes on with the copy, commits it and then finds no one to
      // answer. What is on the server is read once that backend is gone.
      const clone = held;
      await hold.release();
      const releasedAt = Date.now();
      const running = async () =>
        (await probe.query("SELECT 1 FROM pg_stat_activity WHERE pid = $1", [clone.pid])).rows.length > 0;
      while ((await running()) && Date.now() - releasedAt < 120_000) await new Promise((r) => setTimeout(r, 100));
      assert.ok(
        !(await running()),
        `the server never finished the killed run's CREATE DATABASE of ${clone.clone}: backend ${clone.pid} still there ${seconds(releasedAt)} after the test let it go`,
      );
      t.diagnostic(
        `${c.notebook}: the killed run's CREATE DATABASE of ${clone.clone} ended ${seconds(releasedAt)} after it was let go`,
      );
    }
    t.diagnostic(
      `${c.notebook}: SIGKILL ${seconds(began, killedAt)} after the start to ${killed.map((p) => `${p} ${titles.get(p)}`).join("; ")}` +
        `; spared: ${
          tree
            .filter(spared)
            .map((p) => `${p} ${titles.get(p)}`)
            .join("; ") || "none"
        }`,
    );

    // Right after: the dead run's databases stay (no process of it could drop them), each marked as its.
    const runId = path.basename(runDirectory(path.join(box, "dead")) ?? "");
    const prefix = runDatabasePrefix(runId);
    // A statement the server was running for a killed client goes on to its end (a copy commits).
    let left = await catalog(server);
    const sessionsAtKill = left.sessions;
    while (left.sessions.length && Date.now() - killedAt < 30_000) {
      await new Promise((r) => setTimeout(r, 100));
      left = await catalog(server);
    }
    const settledAt = Date.now();
    const leftNames = left.databases.map((d) => d.name);
    t.diagnostic(
      `${c.notebook}: on the server right after the kill: ${leftNames.join(", ")} (unmarked: ` +
        `${
          left.databases
            .filter((d) => d.comment === null)
            .map((d) => d.name)
            .join(", ") || "none"
        }); ` +
        `sessions at the kill: ${sessionsAtKill.join(", ") || "none"}, gone ${seconds(killedAt, settledAt)} after it`,
    );
    assert.ok(leftNames.includes(prefix), `the run's own database ${prefix} is left: ${leftNames.join(", ")}`);
    assert.ok(
      leftNames.some((n) => n.endsWith("_template")),
      `its template is left: ${leftNames.join(", ")}`,
    );
    const unmarked = left.databases.filter((d) => d.comment === null).map((d) => d.name);
    assert.deepEqual(
      unmarked,
      held ? [held.clone] : [],
      `unmarked: ${unmarked.join(", ") || "none"} (the clone being copied at the kill, if any)`,
    );
    for (const d of left.databases) {
      assert.ok(d.name === prefix || d.name.startsWith(`${prefix}_`), `${d.name} is the dead run's`);
      if (d.comment === null) continue;
      assert.ok(d.comment.startsWith(LAB_DATABASE_COMMENT), `${d.name} carries the lab's comment: ${d.comment}`);
      const owner = Number(OWNER_PID.exec(d.comment)?.[1]);
      assert.ok(killed.includes(owner) && !isProcessAlive(owner), `${d.name}'s owner ${owner} was killed`);
    }
    // pgbench: killed with the rest, or (spared) ended by the kernel's watcher.
    const alive = () => [...seenPgbench].filter((p) => isProcessAlive(p) && isPgbench(p));
    while (alive().length && Date.now() - killedAt < 10_000) await new Promise((r) => setTimeout(r, 50));
    assert.deepEqual(alive(), [], `no pgbench of the dead run left (seen: ${[...seenPgbench].join(", ")})`);
    t.diagnostic(
      `${c.notebook}: its pgbench (${[...seenPgbench].join(", ")}) gone ${seconds(killedAt)} after the kill`,
    );

    // The next run against the same server, as the same user, from the same machine.
    const nextAt = Date.now();
    const next = runReproduce(args(c.nextSets), env("next"));
    let goneAt: number | undefined;
    let watching = true;
    const watch = (async () => {
      while (watching && goneAt === undefined) {
        const names = (await catalog(server)).databases.map((d) => d.name);
        if (!leftNames.some((n) => names.includes(n))) goneAt = Date.now();
        else await new Promise((r) => setTimeout(r, 100));
      }
    })();
    const nextOut = await Promise.race([
      next.done,
      new Promise<undefined>((r) => setTimeout(() => r(undefined), 300_000).unref()),
    ]);
    watching = false;
    await watch;
    assert.ok(nextOut, "the next run ended within 300 s");
    const nextId = path.basename(runDirectory(path.join(box, "next")) ?? "");
    const texts = [
      deadOut.output,
      nextOut.output,
      ...[runId, nextId].flatMap((id) =>
        [reports, path.join(projectRoot(), ".jupyter-runtime", "runs")].flatMap((d) => logsUnder(d, id)),
      ),
      ...[path.join(box, "dead"), path.join(box, "next"), state, reports]
        .flatMap(filesUnder)
        .map((f) => fs.readFileSync(f, "utf8")),
    ];
    const said = texts.join("\n");
    const dropped = [
      ...new Set(
        [...said.matchAll(/external target: dropped (\S+), left on \S+ by a lab run that is gone/g)].map((m) => m[1]),
      ),
    ].sort();
    t.diagnostic(
      `${c.notebook}: the next run (${nextId}) ended ${nextOut.code} after ${seconds(nextAt)}; the dead run's databases were gone ` +
        `${goneAt === undefined ? "never" : seconds(nextAt, goneAt)} after it started; its notebook says it dropped: ` +
        `${dropped.join(", ") || "nothing"}`,
    );
    assert.equal(nextOut.code, 0, `the next run finished:\n${nextOut.output.slice(-3000)}`);
    assert.deepEqual(
      dropped,
      [...leftNames].sort(),
      "the next run dropped every database the dead run left, and said so",
    );
    // Headless as well: reproduce's own output says it, from the run's notes.
    for (const name of leftNames)
      assert.match(
        nextOut.output,
        new RegExp(`note: external target: dropped ${name},`),
        `reproduce says it dropped ${name}`,
      );
    const nextTrials = trialLines(path.join(box, "next"));
    assert.ok(
      nextTrials.length > 0 && nextTrials.every((x) => x.status === "ok"),
      "the next run's trials all finished",
    );

    // Once it finished: nothing of either run on the server, no record of them here, no password anywhere.
    const afterwards = await catalog(server);
    assert.deepEqual(afterwards.databases, [], "no lab database left on the server");
    assert.deepEqual(afterwards.sessions, [], "no session left in a lab database");
    assert.deepEqual(afterwards.roles, before.roles, "no role made or left");
    assert.deepEqual(afterwards.slots, [], "no replication slot left");
    const records = path.join(state, "resources");
    assert.deepEqual(fs.existsSync(records) ? fs.readdirSync(records) : [], [], "no resource record left");
    for (const text of texts)
      assert.ok(!text.includes(password), "the server's password is in an output, a report or a log");
  } finally {
    await holder.end();
    await probe.end();
    // A failed wait leaves the run going: all of it, so that nothing of it outlives the test.
    if (!ended && dead.child.pid)
      for (const p of processTree(dead.child.pid))
        try {
          process.kill(p, "SIGKILL");
        } catch {
          // gone already
        }
    for (const p of seenPgbench) if (isProcessAlive(p) && isPgbench(p)) process.kill(p, "SIGKILL");
    const waitFrom = Date.now();
    while ([...watchers].some((p) => isProcessAlive(p)) && Date.now() - waitFrom < 15_000)
      await new Promise((r) => setTimeout(r, 100));
    fs.rmSync(box, { recursive: true, force: true });
  }
}

/** 03 killed (its fault-matrix sizes), then its smallest run that still makes its template and clones. */
const OVER_INDEXING = {
  notebook: "03",
  sets: ["indexLevels=[7,14]", "durationSeconds=4"],
  nextSets: ["indexLevels=[7]", "durationSeconds=2", "maxRepeats=1"],
  kill: "lab",
} as const;

test(
  "kill -9 of a 03 run mid-pgbench (runner and kernel), then the next run there: nothing of the dead run left on the server",
  { timeout: 600_000 },
  (t) =>
    killThenNextRun(t, {
      ...OVER_INDEXING,
      point: "pgbench",
    }),
);

test(
  "kill -9 of a 03 run inside the CREATE DATABASE of a clone, then the next run there: the unmarked clone dropped with the rest",
  { timeout: 600_000 },
  (t) =>
    killThenNextRun(t, {
      ...OVER_INDEXING,
      point: "create-database",
    }),
);

test(
  "kill -9 of a 04 run mid-pgbench (every process, watcher and pgbench too), then the next run there: nothing of the dead run left on the server",
  { timeout: 600_000 },
  (t) =>
    killThenNextRun(t, {
      notebook: "04",
      sets: ["durationSeconds=6", "sets=2", 'modes=["baseline","reindex"]'],
      nextSets: ["durationSeconds=2", 'modes=["baseline"]'],
      kill: "all",
      point: "pgbench",
    }),
);

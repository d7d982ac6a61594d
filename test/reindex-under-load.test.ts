import { test } from "node:test";
import assert from "node:assert/strict";
import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import { reindexUnderLoadParams } from "../lib/params/reindex-under-load";
import { ParameterError } from "../lib/params/validate";
import { EmbeddedPostgresTarget } from "../lib/targets/embedded/embedded-postgres";
import { RunStore } from "../lib/results/run-store";
import { findHostPgbench, locatePgbench } from "../lib/workloads/pgbench";
import { createTemplate } from "../lib/workloads/reindex-under-load/databases";
import { lockTimeline } from "../lib/workloads/reindex-under-load/lock-timeline";
import type { ActivitySample, SessionSample } from "../lib/workloads/reindex-under-load/activity-sampler";
import { planRuns, runPlan, type ReindexCondition } from "../lib/workloads/reindex-under-load/run-trials";
import { summarise, windowStats } from "../lib/experiments/reindex-under-load/summarise";
import { checkClaims } from "../lib/experiments/reindex-under-load/claims";

test("parameters: profiles resolve; bad values are refused with a clear message", () => {
  const d = reindexUnderLoadParams("default");
  assert.equal(d.scale, 100, "default runs the seed's scale");
  assert.equal(d.clients, 2);
  assert.equal(d.durationSeconds, 30);
  assert.deepEqual(d.modes, ["baseline", "reindex", "concurrently"]);
  assert.throws(() => reindexUnderLoadParams("smoke", { scal: 1 } as never), /unknown parameter "scal"/);
  assert.throws(() => reindexUnderLoadParams("smoke", { reindexStartSeconds: 10, durationSeconds: 5 }), /must be less than durationSeconds/);
  assert.throws(() => reindexUnderLoadParams("smoke", { threads: 3 }), /threads \(3\) cannot exceed clients \(2\)/);
  assert.throws(() => reindexUnderLoadParams("smoke", { initSteps: "dtGv" }), /include "p"/);
  assert.throws(() => reindexUnderLoadParams("smoke", { modes: ["reindex", "reindex"] }), /lists a mode twice/);
  assert.throws(() => reindexUnderLoadParams("smoke", { modes: ["vacuum"] as never }), ParameterError);
  assert.throws(() => reindexUnderLoadParams("smoke", { restartBetweenRuns: "yes" as never }), /true or false/);
  assert.throws(() => reindexUnderLoadParams("nope"), /profile must be one of smoke, default, full/);
  assert.throws(() => reindexUnderLoadParams("default", { maxSets: 1 }), /maxSets \(1\) is smaller than sets \(2\)/);
  assert.equal(reindexUnderLoadParams("default", { sets: 7 }).maxSets, 7, "raising sets raises the ceiling with it");
});

function session(pid: number, over: Partial<SessionSample> = {}): SessionSample {
  return { pid, app: "pgbench", state: "active", waitType: null, wait: null, blockedBy: [], lock: null, query: "UPDATE …", ...over };
}

test("run plan: set 1 in the seed's order, each later set starts one mode further on", () => {
  const order = planRuns(3, ["baseline", "reindex", "concurrently"]).map((r) => r.key);
  assert.deepEqual(order, [
    "set1/baseline", "set1/reindex", "set1/concurrently",
    "set2/reindex", "set2/concurrently", "set2/baseline",
    "set3/concurrently", "set3/baseline", "set3/reindex",
  ]);
  assert.deepEqual(planRuns(2, ["reindex"]).map((r) => r.key), ["set1/reindex", "set2/reindex"]);
  assert.deepEqual(planRuns(2, ["baseline", "reindex", "concurrently"]).map((r) => r.position), [0, 1, 2, 0, 1, 2]);
});

test("lock timeline: blocked intervals from table-lock waits, row-lock contention kept apart", () => {
  const reindexPid = 99;
  const blocked = (pid: number) =>
    session(pid, { waitType: "Lock", wait: "relation", blockedBy: [reindexPid], lock: "relation pgbench_accounts RowExclusiveLock" });
  const rowWait = session(2, { waitType: "Lock", wait: "transactionid", blockedBy: [1], lock: "transactionid 5 ShareLock" });
  const reindex = session(reindexPid, { app: "dblab-reindex" });
  const samples: ActivitySample[] = [
    { t: 0, sessions: [session(1), rowWait], builds: [] },
    { t: 100, sessions: [blocked(1), session(2), reindex], builds: [{ pid: 99, command: "REINDEX", phase: "building index: scanning table", index: "x", blocksDone: 0, blocksTotal: 9 }] },
    { t: 200, sessions: [blocked(1), blocked(2), reindex], builds: [{ pid: 99, command: "REINDEX", phase: "building index: scanning table", index: "x", blocksDone: 5, blocksTotal: 9 }] },
    { t: 300, sessions: [blocked(1), blocked(2), reindex], builds: [{ pid: 99, command: "REINDEX", phase: "building index: loading tuples in tree", index: "x", blocksDone: 0, blocksTotal: 0 }] },
    { t: 400, sessions: [session(1), session(2)], builds: [] },
  ];
  const tl = lockTimeline(samples, "pgbench", reindexPid);
  assert.equal(tl.intervalMs, 100);
  assert.equal(tl.intervals.length, 1, "the row-lock wait at t=0 is not a blocked interval");
  assert.deepEqual([tl.intervals[0].startMs, tl.intervals[0].endMs, tl.intervals[0].maxSessions], [100, 400, 2]);
  assert.equal(tl.intervals[0].lock, "relation pgbench_accounts RowExclusiveLock");
  assert.equal(tl.blockedSeconds, 0.3);
  assert.equal(tl.allBlockedSeconds, 0.2);
  assert.equal(tl.blockedByReindexSeconds, 0.3);
  assert.ok(Math.abs(tl.lockWaitSessionSeconds - 0.5) < 1e-9);
  assert.deepEqual(tl.phases.map((p) => p.phase), ["building index: scanning table", "building index: loading tuples in tree"]);
  assert.ok(tl.waitShares["Lock:relation"] > 0.4 && tl.waitShares["Lock:transactionid"] > 0);
  assert.deepEqual(tl.reindexWaitShares, { CPU: 1 });
});

test("within-run cost of a REINDEX window: transactions lost at the rate kept outside it", () => {
  const start = 1_700_000_000_000;
  const series = Array.from({ length: 10 }, (_, i) => ({
    second: i,
    epochMs: start + i * 1000,
    transactions: i === 3 || i === 4 ? 0 : 100,
    tps: i === 3 || i === 4 ? 0 : 100,
    latencyAvgMs: 1,
    latencyMaxMs: 1,
  }));
  const w = windowStats(series, start, 10, start + 3000, start + 5000)!;
  assert.equal(w.during, 0);
  assert.equal(w.outside, 100);
  assert.ok(Math.abs(w.lostShare! - 0.2) < 1e-9, "2 s of 10 at zero TPS = 20 % of the run");
  const half = windowStats(series, start, 10, start + 2500, start + 3500)!;
  assert.equal(half.during, 50, "buckets count in proportion to their overlap");
  assert.equal(windowStats(series, start, 10, start + 20_000, start + 21_000), undefined, "a window after the run has no cost");
});

test("the protocol on embedded PostgreSQL: baseline, REINDEX and CONCURRENTLY runs with timings, waits and counters", async (t) => {
  if (!findHostPgbench()) {
    t.skip("no pgbench on this machine (install postgresql-client or set DBLAB_PGBENCH)");
    return;
  }
  const root = fs.mkdtempSync(path.join(os.tmpdir(), "dblab-results-test-"));
  const server = await new EmbeddedPostgresTarget().start({ engine: "postgresql", name: "04-test", settings: { shared_preload_libraries: "pg_stat_statements" } });
  try {
    const runner = await locatePgbench(server);
    const template = await createTemplate(server, 5, "dtGvp", runner);
    assert.equal(template.accountsRows, 500_000);
    assert.equal(template.statements, true, "pg_stat_statements in the template, so in every clone");
    const store = RunStore.open<ReindexCondition>({ notebook: "test-04", params: { scale: 5 }, root });
    const plan = planRuns(1, ["baseline", "reindex", "concurrently"]);
    const settings = { clients: 2, threads: 1, durationSeconds: 3, reindexStartSeconds: 1, sampleIntervalMs: 25, restartBetweenRuns: true };
    const trials = await runPlan({ server, runner, plan, settings, store });
    assert.equal(store.trials().length, 3, "each run appended to trials.jsonl");
    for (const trial of trials) {
      assert.equal(trial.status, "ok", trial.error);
      assert.equal(trial.restarted, true);
      const b = trial.pgbench!;
      assert.ok(b.summary.tps > 0 && b.series.length >= 3);
      const upd = trial.counters!["table.pgbench_accounts.n_tup_upd"];
      assert.ok(Math.abs(upd - b.summary.transactions) <= 2, `accounts updates ${upd} ≈ transactions ${b.summary.transactions}`);
      assert.ok(trial.timeline!.samples > 20, "sampled throughout the run");
      const server = trial.updateAccountsServer;
      assert.ok(server && Math.abs(server.calls - b.summary.transactions) <= 2, `pg_stat_statements: ${JSON.stringify(server)} calls ≈ transactions`);
    }
    const [, plain, concurrent] = trials;
    for (const trial of [plain, concurrent]) {
      const r = trial.reindex!;
      assert.deepEqual(r.statements.map((s) => s.index), ["pgbench_accounts_pkey", "pgbench_branches_pkey", "pgbench_tellers_pkey"]);
      const startOffset = (r.startMs - trial.pgbench!.startedAtMs) / 1000;
      assert.ok(startOffset >= 0.95 && startOffset < 2, `REINDEX started ${startOffset} s into the run`);
    }
    assert.ok(plain.reindex!.statements[0].sql === "REINDEX INDEX pgbench_accounts_pkey");
    assert.ok(concurrent.reindex!.statements[0].sql.includes("CONCURRENTLY"));
    // A plain REINDEX blocks the UPDATE on pgbench_accounts: the sampler sees it, blocked by the REINDEX pid.
    assert.ok(plain.timeline!.blockedByReindexSeconds > 0, `blocked by REINDEX: ${JSON.stringify(plain.timeline!.locks)}`);
    assert.ok(Object.keys(plain.timeline!.locks).some((l) => l.includes("pgbench_accounts")));
    assert.ok(concurrent.timeline!.phases.length > 0, "CONCURRENTLY's phases sampled from pg_stat_progress_create_index");
    const s = summarise(trials, 3, 2);
    assert.equal(s.runs.length, 3);
    assert.ok(s.runs.find((r) => r.mode === "reindex")!.tpsVsBaseline! > 0);
    const claims = checkClaims(s);
    assert.deepEqual(claims.map((c) => c.id), ["1", "2", "3a", "3b"]);
    assert.deepEqual(
      claims.map((c) => c.verdict),
      ["not tested at this scale", "not tested at this scale", "inconclusive", "inconclusive"],
      "3 s runs are outside the seed's 30 s protocol; one set never decides a claim",
    );
    assert.match(claims[0].decidedBy, /3 s runs \(the seed: 30 s\)/);
    assert.deepEqual(trials.map((t) => t.position), [0, 1, 2], "each run records its place in its set's order");
  } finally {
    await server.stop();
    fs.rmSync(root, { recursive: true, force: true });
  }
});

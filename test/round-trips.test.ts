import { test } from "node:test";
import assert from "node:assert/strict";
import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import { roundTripsParams, ROUND_TRIPS_PROFILES } from "../lib/params/round-trips";
import { CASE_INFO, CASES, statements } from "../lib/workloads/round-trips/cases";
import { changedRows } from "../lib/workloads/round-trips/dataset";
import { summariseLags } from "../lib/workloads/round-trips/replication";
import { runRoundTrips } from "../lib/experiments/round-trips/run";
import { summarise } from "../lib/experiments/round-trips/summarise";
import { checkClaims } from "../lib/experiments/round-trips/claims";
import { ownRecords } from "../lib/runtime/resource-registry";
import { embeddedPostgresBinaries } from "../lib/targets/embedded/postgres-binaries";

const bad: [string, () => unknown, RegExp][] = [
  ["unknown parameter", () => roundTripsParams("smoke", { statement: 5 } as never), /05-round-trips: unknown parameter "statement"/],
  ["unknown case", () => roundTripsParams("smoke", { cases: ["select2"] } as never), /cases\[0\] must be one of select1, update_autocommit/],
  ["unknown environment", () => roundTripsParams("smoke", { environments: ["mars"] } as never), /environments\[0\] must be one of local, same-az/],
  ["no environments", () => roundTripsParams("smoke", { environments: [] }), /environments must be a non-empty list/],
  ["more statements than rows", () => roundTripsParams("smoke", { statements: 20_000 }), /statements \(20000\) cannot exceed rows \(10000\)/],
  ["negative round trip", () => roundTripsParams("smoke", { crossAzRttMs: -1 }), /crossAzRttMs must be a number ≥ 0, got -1/],
  ["round trip in seconds by mistake", () => roundTripsParams("smoke", { standbyRttMs: 1700 }), /standbyRttMs is a round trip in milliseconds; 1700 ms/],
  ["sweep not a list", () => roundTripsParams("smoke", { sweepStandbyRttsMs: 1.7 } as never), /sweepStandbyRttsMs must be a list of round trips in ms/],
  ["unknown sync level", () => roundTripsParams("smoke", { syncLevels: ["always"] } as never), /syncLevels\[0\] must be one of off, local, remote_write, on, remote_apply/],
  ["unknown network", () => roundTripsParams("smoke", { network: "tc" } as never), /network must be one of auto, netem, proxy/],
  ["statements not an integer", () => roundTripsParams("smoke", { statements: 1.5 }), /statements must be a positive integer, got 1.5/],
];
for (const [name, run, message] of bad) {
  test(`round-trips parameters: ${name} is refused clearly`, () => assert.throws(run, message));
}

test("round-trips profiles resolve; the seed's scale is in full; empty sweep lists switch the sweep off", () => {
  for (const profile of ["smoke", "default", "full"]) roundTripsParams(profile);
  assert.equal(ROUND_TRIPS_PROFILES.full.statements, 10_000);
  assert.equal(ROUND_TRIPS_PROFILES.full.repeats, 5);
  const p = roundTripsParams("default");
  assert.equal(p.sameAzRttMs, 0.2);
  assert.equal(p.crossAzRttMs, 1.7);
  const off = roundTripsParams("smoke", { sweepStandbyRttsMs: [], syncLevels: [] });
  assert.deepEqual(off.sweepStandbyRttsMs, []);
  assert.deepEqual(off.syncLevels, []);
});

test("every case sends the round trips its info says, like the seed's SQL files", () => {
  for (const c of CASES) {
    const sql = [...statements(c, 25)];
    assert.equal(sql.length, CASE_INFO[c].roundTrips(25), c);
  }
  assert.deepEqual([...statements("update_each_transaction", 1)], ["BEGIN", "UPDATE benchmark_accounts SET status = 'active' WHERE id = 1", "COMMIT"]);
  assert.match([...statements("bulk_update", 3)][0], /WHERE id IN \(1, 2, 3\)$/);
  // Seed data: every 5th id suspended, other even ids active, odd ids inactive.
  assert.equal(changedRows(10), 6);
});

test("lag samples: the fastest standby decides an ANY 1 quorum", () => {
  const s = summariseLags([
    [
      { name: "s1", state: "streaming", syncState: "quorum", writeLagMs: 1, flushLagMs: 2, replayLagMs: 3 },
      { name: "s2", state: "streaming", syncState: "quorum", writeLagMs: 4, flushLagMs: 5, replayLagMs: 6 },
    ],
    [
      { name: "s1", state: "streaming", syncState: "quorum", writeLagMs: 7, flushLagMs: 8, replayLagMs: 9 },
      { name: "s2", state: "streaming", syncState: "quorum", writeLagMs: 1, flushLagMs: null, replayLagMs: 1 },
    ],
  ]);
  assert.equal(s.samples, 2);
  assert.equal(s.quorumFlushLagMs, 5, "median of per-sample minimum flush lags (2 and 8)");
  assert.equal(s.perStandby.s2.flushLagMs, 5);
});

test("round trips on embedded PostgreSQL: delays reached, commits counted, standbys confirm, all cleaned up", async (t) => {
  try {
    embeddedPostgresBinaries();
  } catch (error) {
    t.skip(`embedded PostgreSQL binaries missing: ${String(error)}`);
    return;
  }
  const root = fs.mkdtempSync(path.join(os.tmpdir(), "dblab-rt-test-"));
  const saved = process.env.DBLAB_RESULTS_DIR;
  process.env.DBLAB_RESULTS_DIR = root;
  try {
    const n = 60;
    const p = roundTripsParams("smoke", {
      target: "embedded",
      network: "proxy",
      environments: ["local", "cross-az", "quorum-same-az"],
      cases: ["select1", "update_autocommit", "update_one_transaction"],
      statements: n,
      crossAzRttMs: 1.0,
      standbyRttMs: 0.6,
      sweepStandbyRttsMs: [0.6],
      syncLevels: ["off", "on"],
      sweepCommits: 20,
      calibrationSamples: 60,
    });
    const run = await runRoundTrips(p, { profile: "test" });
    assert.equal(run.trials.length, 3 * 3 + 2, "3 environments × 3 cases + 2 sweep levels");
    for (const trial of run.trials) assert.equal(trial.status, "ok", `${trial.key}: ${trial.error ?? ""}`);
    assert.ok(fs.existsSync(path.join(run.directory, "trials.jsonl")));
    assert.ok(fs.existsSync(path.join(run.directory, "calibration.json")));

    const get = (key: string) => run.trials.find((t) => t.key.startsWith(key))!;
    const autocommit = get("case/local/update_autocommit");
    const oneTx = get("case/local/update_one_transaction");
    assert.ok(autocommit.counters!["wal.sync"] >= n, `each autocommit UPDATE flushes WAL (${autocommit.counters!["wal.sync"]} syncs)`);
    assert.ok(oneTx.counters!["wal.sync"] <= 3, `one transaction flushes once (${oneTx.counters!["wal.sync"]})`);
    assert.ok(autocommit.counters!["db.xact_commit"] >= n);
    assert.ok(autocommit.counters!["wal.sync_time_ms"] > 0, "track_wal_io_timing is on");

    const local = get("case/local/select1").statementTimes!.p50Ms;
    const cross = get("case/cross-az/select1").statementTimes!.p50Ms;
    // Added ≥ most of what was asked; no upper bound (a busy machine only adds time: issue 15).
    assert.ok(cross > local + 0.6, `the cross-AZ link added its ~1.0 ms (local ${local}, cross ${cross})`);
    assert.equal(get("case/cross-az/select1").roundTrips, n);

    const quorum = get("case/quorum-same-az/update_autocommit");
    assert.ok(quorum.lags && quorum.lags.quorumFlushLagMs !== null, "standby flush lag sampled during the run");
    assert.ok(quorum.lags!.quorumFlushLagMs! > 0.3, `a commit waits for a standby 0.6 ms away (${quorum.lags!.quorumFlushLagMs} ms)`);
    assert.deepEqual(Object.keys(quorum.lags!.perStandby).sort(), ["s1", "s2"]);

    const off = get("sweep/0.6ms/off").statementTimes!.p50Ms;
    const on = get("sweep/0.6ms/on").statementTimes!.p50Ms;
    assert.ok(on > off + 0.3, `synchronous_commit = on waits for the standby (off ${off} ms, on ${on} ms)`);

    const standbyCal = run.calibrations.filter((c) => c.link === "s1" || c.link === "s2");
    assert.ok(standbyCal.length >= 2 && standbyCal.every((c) => c.achievedRttMs > 0.3), "both standby links calibrated");
    assert.ok(run.metadata.servers.length >= 3, "primary and two standbys described");

    const summary = summarise(run);
    const env = summary.environments.find((e) => e.environment === "quorum-same-az")!;
    assert.ok(env.commitMs! > 0.3, `(autocommit − one transaction) / N shows the standby wait (${env.commitMs} ms)`);
    const claims = checkClaims(summary);
    assert.deepEqual(claims.map((c) => c.id), ["a", "b", "c (same AZ)", "d", "e"]);
    for (const c of claims) assert.ok(["held", "did not hold", "inconclusive"].includes(c.verdict));
  } finally {
    if (saved === undefined) delete process.env.DBLAB_RESULTS_DIR;
    else process.env.DBLAB_RESULTS_DIR = saved;
    fs.rmSync(root, { recursive: true, force: true });
  }
  assert.deepEqual(ownRecords(), [], "servers, standbys and proxies all stopped and unregistered");
});

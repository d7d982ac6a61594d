import { test } from "node:test";
import assert from "node:assert/strict";
import fs from "node:fs";
import path from "node:path";
import { seedSets } from "./present";
import { params as reindexUnderLoadParams } from ".";
import { ParameterError } from "../../params/validate";
import { lockTimeline } from "./workload/activity";
import type { ActivitySample, SessionSample } from "./workload/activity";
import { planRuns, runLengthFor } from "./workload/run-trials";
import { windowStats } from "./summarise";

/** The seed's stall share per set: added UPDATE latency × transactions ÷ its 2 clients (all blocked) ÷ the run. */
const seedStallShares = () =>
  seedSets().map((s) => (((s.reindexUpdateMs ?? NaN) - (s.baselineUpdateMs ?? NaN)) / 1000) * (s.reindexTps / 2));

test("the seed's stall share per set, from its published latencies and TPS: 25 %, 20 %, 22 %", () => {
  assert.deepEqual(
    seedStallShares().map((x) => Math.round(x * 1000) / 1000),
    [0.253, 0.198, 0.217],
    "set 1: 0.562 ms × 26,956 ÷ 2 ≈ 7.6 s of 30 s",
  );
});

test("run length from the measured rebuild: rebuild ÷ share in whole seconds, within 6–60 s, the start at its planned fraction", () => {
  const planned = { durationSeconds: 30, reindexStartSeconds: 10 };
  assert.deepEqual(runLengthFor(4, 0.25, planned), { durationSeconds: 16, reindexStartSeconds: 5.3 });
  assert.deepEqual(runLengthFor(2.1, 0.25, planned), { durationSeconds: 8, reindexStartSeconds: 2.7 });
  assert.equal(runLengthFor(1, 0.25, planned).durationSeconds, 6, "never shorter than 6 s");
  assert.equal(runLengthFor(1.4, 0.25, planned).durationSeconds, 6, "5.6 s rounds to 6");
  assert.equal(runLengthFor(16, 0.25, planned).durationSeconds, 60, "never longer than a minute");
  assert.throws(() => runLengthFor(0, 0.25, planned), /needs a rebuild > 0 s/);
  assert.throws(() => runLengthFor(4, 1, planned), /a share in \(0, 1\)/);
});

test("parameters: profiles resolve; bad values are refused with a clear message", () => {
  const d = reindexUnderLoadParams("default");
  assert.equal(d.stallShare, 0, "no profile shapes its run length from the rebuild");
  assert.equal(reindexUnderLoadParams("full").stallShare, 0);
  assert.equal(d.durationSeconds, 10, "default: a fixed 10 s run, the CONCURRENTLY build inside it");
  assert.equal(reindexUnderLoadParams("full").durationSeconds, 30, "full: the seed's protocol");
  assert.equal(d.clients, 2);
  assert.deepEqual(d.modes, ["baseline", "reindex", "concurrently"], "default: CONCURRENTLY too, 5 sets");
  assert.equal(d.sets, 5, "5 sets: the range of 5 covers the median with 93.75 %");
  assert.equal(reindexUnderLoadParams("full").scale, 100, "full: the seed's scale");
  assert.equal(reindexUnderLoadParams("smoke").stallShare, 0, "smoke: its 4 s as given");
  for (const bad of [-0.1, 1, "0.25"])
    assert.throws(
      () => reindexUnderLoadParams("smoke", { stallShare: bad as never }),
      /stallShare must be a number ≥ 0 and < 1 \(a share of the run/,
    );
  assert.throws(() => reindexUnderLoadParams("smoke", { scal: 1 } as never), /unknown parameter "scal"/);
  assert.throws(
    () => reindexUnderLoadParams("smoke", { reindexStartSeconds: 10, durationSeconds: 5 }),
    /must be less than durationSeconds/,
  );
  assert.throws(() => reindexUnderLoadParams("smoke", { threads: 3 }), /threads \(3\) cannot exceed clients \(2\)/);
  assert.throws(() => reindexUnderLoadParams("smoke", { initSteps: "dtGv" }), /include "p"/);
  assert.throws(() => reindexUnderLoadParams("smoke", { modes: ["reindex", "reindex"] }), /lists a mode twice/);
  assert.throws(() => reindexUnderLoadParams("smoke", { modes: ["vacuum"] as never }), ParameterError);
  assert.throws(() => reindexUnderLoadParams("smoke", { restartBetweenRuns: "yes" as never }), /true or false/);
  assert.throws(() => reindexUnderLoadParams("nope"), /profile must be one of smoke, default, full/);
  assert.throws(() => reindexUnderLoadParams("default", { maxSets: 1 }), /maxSets \(1\) is smaller than sets \(5\)/);
  assert.equal(
    reindexUnderLoadParams("default", { sets: 9 }).maxSets,
    9,
    "raising sets past maxSets raises the ceiling with it",
  );
});

function session(pid: number, over: Partial<SessionSample> = {}): SessionSample {
  return {
    pid,
    app: "pgbench",
    state: "active",
    waitType: null,
    wait: null,
    blockedBy: [],
    lock: null,
    query: "UPDATE …",
    ...over,
  };
}

test("run plan: set 1 in the seed's order, each later set starts one mode further on", () => {
  const order = planRuns(3, ["baseline", "reindex", "concurrently"]).map((r) => r.key);
  assert.deepEqual(order, [
    "set1/baseline",
    "set1/reindex",
    "set1/concurrently",
    "set2/reindex",
    "set2/concurrently",
    "set2/baseline",
    "set3/concurrently",
    "set3/baseline",
    "set3/reindex",
  ]);
  assert.deepEqual(
    planRuns(2, ["reindex"]).map((r) => r.key),
    ["set1/reindex", "set2/reindex"],
  );
  assert.deepEqual(
    planRuns(2, ["baseline", "reindex", "concurrently"]).map((r) => r.position),
    [0, 1, 2, 0, 1, 2],
  );
});

test("lock timeline: blocked intervals from table-lock waits, row-lock contention kept apart", () => {
  const reindexPid = 99;
  const blocked = (pid: number) =>
    session(pid, {
      waitType: "Lock",
      wait: "relation",
      blockedBy: [reindexPid],
      lock: "relation pgbench_accounts RowExclusiveLock",
    });
  const rowWait = session(2, {
    waitType: "Lock",
    wait: "transactionid",
    blockedBy: [1],
    lock: "transactionid 5 ShareLock",
  });
  const reindex = session(reindexPid, { app: "dblab-reindex" });
  const samples: ActivitySample[] = [
    { t: 0, sessions: [session(1), rowWait], builds: [] },
    {
      t: 100,
      sessions: [blocked(1), session(2), reindex],
      builds: [
        {
          pid: 99,
          command: "REINDEX",
          phase: "building index: scanning table",
          index: "x",
          blocksDone: 0,
          blocksTotal: 9,
        },
      ],
    },
    {
      t: 200,
      sessions: [blocked(1), blocked(2), reindex],
      builds: [
        {
          pid: 99,
          command: "REINDEX",
          phase: "building index: scanning table",
          index: "x",
          blocksDone: 5,
          blocksTotal: 9,
        },
      ],
    },
    {
      t: 300,
      sessions: [blocked(1), blocked(2), reindex],
      builds: [
        {
          pid: 99,
          command: "REINDEX",
          phase: "building index: loading tuples in tree",
          index: "x",
          blocksDone: 0,
          blocksTotal: 0,
        },
      ],
    },
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
  assert.deepEqual(
    tl.phases.map((p) => p.phase),
    ["building index: scanning table", "building index: loading tuples in tree"],
  );
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
  assert.equal(
    windowStats(series, start, 10, start + 20_000, start + 21_000),
    undefined,
    "a window after the run has no cost",
  );
  // 100 ms buckets (04's runs): a stall from 3.3 s to 4.5 s is measured to the bucket, not blurred over
  // whole seconds: the lost share is the stall's 12 % of the run.
  const fine = Array.from({ length: 100 }, (_, i) => {
    const stalled = i >= 33 && i < 45;
    return {
      second: i / 10,
      epochMs: start + i * 100,
      transactions: stalled ? 0 : 10,
      tps: stalled ? 0 : 100,
      latencyAvgMs: 1,
      latencyMaxMs: 1,
    };
  });
  const stall = windowStats(fine, start, 10, start + 3300, start + 4500)!;
  assert.equal(stall.during, 0);
  assert.ok(Math.abs(stall.lostShare! - 0.12) < 1e-9, `${stall.lostShare}`);
  // A window that keeps half the rate: each 100 ms bucket counts wholly inside, not a tenth of it.
  const slow = fine.map((p, i) => (i >= 33 && i < 45 ? { ...p, transactions: 5, tps: 50 } : p));
  const half100 = windowStats(slow, start, 10, start + 3300, start + 4500)!;
  assert.ok(Math.abs(half100.during - 50) < 1e-9, `${half100.during}`);
  assert.ok(Math.abs(half100.lostShare! - 0.06) < 1e-9, `${half100.lostShare}`);
  const partial = windowStats(fine, start, 10, start + 3250, start + 4500)!;
  assert.ok(Math.abs(partial.during - 4) < 1e-9, `half of bucket 32's 10 transactions in 1.25 s: ${partial.during}`);
});

test("quotes.json's figures are the seed's published ones: the drops, drop ÷ stall share, the UPDATE multiples", () => {
  const quotes = JSON.parse(
    fs.readFileSync(path.resolve(__dirname, "../../../../lib/experiments/reindex-under-load/quotes.json"), "utf8"),
  ) as { quotes: Record<string, { figure?: string }> };
  const sets = seedSets();
  const range = (xs: number[], f: (x: number) => string) => `${f(Math.min(...xs))}–${f(Math.max(...xs))}`;
  const drops = sets.map((s) => 1 - s.reindexTps / s.baselineTps);
  const shares = seedStallShares();
  const multiples = sets.map((s) => (s.reindexUpdateMs ?? NaN) / (s.baselineUpdateMs ?? NaN));
  assert.ok(quotes.quotes.drop.figure?.includes(`(${range(drops, (x) => (x * 100).toFixed(1))} % lower)`));
  assert.ok(
    quotes.quotes.plainLocks.figure?.endsWith(
      `${range(
        drops.map((d, i) => d / shares[i]),
        (x) => x.toFixed(2),
      )} over its three sets`,
    ),
  );
  assert.ok(quotes.quotes.updateLatency.figure?.includes(`×${range(multiples, (x) => x.toFixed(2))}`));
});

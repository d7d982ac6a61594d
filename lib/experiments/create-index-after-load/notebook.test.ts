import { test } from "node:test";
import assert from "node:assert/strict";
import { CREATE_INDEX_AFTER_LOAD_PROFILES } from "./params";
import { ParameterError } from "../../params/validate";
import { planTrials, type CreateIndexCondition } from "./workload/plan";
import { loadSql } from "./workload/sql";
import { parseBackendUsage, parseSortTrace, settled } from "./workload/session";
import { experiment, serverSpec } from ".";

test("parameters: profiles resolve, bad values are refused with a clear message", () => {
  for (const profile of ["smoke", "default", "full"]) assert.ok(experiment.params(profile).rows > 0);
  assert.equal(CREATE_INDEX_AFTER_LOAD_PROFILES.full.rows, 100_000_000, "full is the seed's scale");
  const refuses = (overrides: object, message: RegExp) =>
    assert.throws(
      () => experiment.params("smoke", overrides),
      (e: unknown) => e instanceof ParameterError && message.test(e.message),
    );
  refuses({ row: 5 }, /unknown parameter "row".*Known parameters: .*rows/);
  refuses({ rows: 0 }, /rows must be a positive integer, got 0/);
  refuses({ rows: 1.5 }, /rows must be a positive integer/);
  refuses({ keyOrders: ["sorted"] }, /keyOrders must include "random"/);
  refuses({ keyOrders: ["reverse"] }, /keyOrders\[0\] must be one of random, sorted/);
  refuses({ randomSeed: 2 }, /randomSeed must be a number ≥ -1 and ≤ 1 \(a setseed\(\) value\)/);
  refuses({ memorySweepMB: [0] }, /memorySweepMB\[0\] must be an integer from 1/);
  refuses({ workerSweep: [9] }, /workerSweep\[0\] must be an integer from 0 to 8/);
  refuses({ maxWalSizeMB: 16 }, /maxWalSizeMB.* from 32/);
  refuses({ walAnatomyRows: -1 }, /walAnatomyRows must be an integer ≥ 0/);
  refuses({ target: "cloud" }, /target must be one of auto, embedded, docker, external/);
  const p = experiment.params("default", { memorySweepMB: [64, 64, 4] });
  assert.deepEqual(p.memorySweepMB, [64, 4], "duplicates dropped, order kept");
  const spec = serverSpec(p);
  assert.equal(spec.settings?.track_io_timing, "on");
  assert.equal(spec.settings?.track_wal_io_timing, "on");
  assert.equal(spec.settings?.max_wal_size, "1024MB");
});

test("the plan: headline repeats, alternating method order, sweeps, one WAL-decoding pair", () => {
  const p = experiment.params("smoke", {
    rows: 1000,
    repeats: 3,
    rowSweep: [100, 1000],
    sweepRepeats: 2,
    memorySweepMB: [1, 8],
    workerSweep: [0, 2],
    walAnatomyRows: 500,
  });
  const plan = planTrials(p);
  const of = (pred: (c: CreateIndexCondition) => boolean) => plan.filter((t) => pred(t.condition));
  assert.equal(
    of((c) => c.kind === "load" && c.rows === 1000 && c.keyOrder === "random").length,
    6,
    "3 repeats × 2 methods, the headline not doubled by the sweep",
  );
  assert.equal(of((c) => c.kind === "load" && c.rows === 100).length, 4);
  assert.equal(of((c) => c.kind === "load" && c.keyOrder === "sorted").length, 4);
  assert.equal(of((c) => c.kind === "build").length, 2 * 2 * 2);
  assert.equal(of((c) => c.kind === "wal_anatomy").length, 2);
  const headline = of((c) => c.kind === "load" && c.rows === 1000 && c.keyOrder === "random");
  assert.deepEqual(
    headline.slice(0, 4).map((t) => t.condition.method),
    ["load_then_index", "index_then_load", "index_then_load", "load_then_index"],
  );
  assert.equal(new Set(plan.map((t) => t.key)).size, plan.length, "keys are unique (resume relies on them)");
});

test("the load SQL is the seed's; sorted codes are ascending without a sort", () => {
  assert.match(
    loadSql(100, "random"),
    /'C' \|\| lpad\(CAST\(\(random\(\) \* 10000\)::integer AS text\), 5, '0'\).*generate_series\(1, 100\)/,
  );
  assert.doesNotMatch(loadSql(100, "sorted"), /ORDER BY|random/);
  assert.throws(() => loadSql(0, "random"), /positive integer/);
});

test("statement reports: getrusage and trace_sort notices are parsed", () => {
  const usage = parseBackendUsage([
    {
      message: "QUERY STATISTICS",
      detail:
        "! system usage stats:\n!\t2.161299 s user, 0.153260 s system, 2.778540 s elapsed\n!\t[3.29 s user, 0.31 s system total]\n" +
        "!\t97716 kB max resident size\n!\t0/624912 [1048/1088104] filesystem blocks in/out\n!\t197/389 [389/499] voluntary/involuntary context switches",
    },
  ]);
  assert.deepEqual(usage, {
    userS: 2.161299,
    systemS: 0.15326,
    elapsedS: 2.77854,
    fsBlocksIn: 0,
    fsBlocksOut: 624912,
    voluntarySwitches: 197,
    involuntarySwitches: 389,
  });
  assert.equal(parseBackendUsage([{ message: "something else" }]), undefined);
  const serial = parseSortTrace([
    { message: "begin index sort: unique = f, workMem = 1024, randomAccess = f" },
    { message: "worker -1 switching to external sort with 7 tapes: CPU: user: 0.01 s" },
    { message: "worker -1 finished writing run 1 to tape 0: CPU: user: 0.02 s" },
    { message: "worker -1 finished writing run 2 to tape 1: CPU: user: 0.03 s" },
    { message: "varstr_abbrev: abbrev_distinct after 160: 157.5" },
    { message: "external sort of worker -1 ended, 1210 disk blocks used: CPU: user: 0.24 s" },
  ]);
  assert.equal(serial?.spilled, true);
  assert.equal(serial?.maxRuns, 2);
  assert.equal(serial?.diskBlocks, 1210);
  assert.equal(serial?.parallelParticipants, 0);
  assert.ok(!serial?.lines.some((l) => l.includes("varstr_abbrev")), "abbreviated-key chatter left out");
  const parallel = parseSortTrace([
    { message: "performsort of worker 0 starting: CPU" },
    { message: "performsort of worker 1 starting: CPU" },
    { message: "worker 0 finished writing run 1 to tape 0: CPU" },
    { message: "worker 1 finished writing run 1 to tape 0: CPU" },
    {
      message:
        "parallel external sort of worker 0 ended, 10 disk blocks used: CPU: user: 0.19 s, system: 0.06 s, elapsed: 0.54 s",
    },
    {
      message:
        "parallel external sort of worker 1 ended, 12 disk blocks used: CPU: user: 0.28 s, system: 0.02 s, elapsed: 0.54 s",
      where: "parallel worker",
    },
    {
      message:
        "parallel external sort of worker -1 ended, 22 disk blocks used: CPU: user: 0.04 s, system: 0.00 s, elapsed: 0.6 s",
    },
  ]);
  assert.ok(
    Math.abs(parallel!.workerCpuS - 0.3) < 1e-9,
    "only the worker process's CPU: the leader's is in its getrusage()",
  );
  assert.equal(parallel?.parallelParticipants, 2);
  assert.equal(parallel?.spilled, false, "one run per worker is the hand-over to the leader, not a spill");
  assert.equal(parallel?.diskBlocks, 22, "the leader's figure, not the sum again");
  const inMemory = parseSortTrace([{ message: "internal sort of worker -1 ended, 25 KB used: CPU" }]);
  assert.deepEqual([inMemory?.spilled, inMemory?.memoryKB], [false, 25]);
});

test("the wait after a phase ends only when the WAL is flushed, the late counters stand still and a CHECKPOINT is counted", () => {
  const quiet = { wal_write: 10, wal_sync: 4, checkpoints: 3, buffers_written: 100, unflushed: 0 };
  assert.ok(settled(quiet, { ...quiet }), "two alike readings with the WAL flushed");
  assert.ok(settled(quiet, { ...quiet, unflushed: 24 }), "an insert position past a page header is nothing to write");
  assert.ok(!settled(quiet, { ...quiet, unflushed: 8192 }), "WAL the WAL writer has still to write");
  assert.ok(!settled(quiet, { ...quiet, wal_write: 11 }), "the WAL writer reported since the last reading");
  assert.ok(!settled(quiet, { ...quiet, buffers_written: 120 }), "the checkpointer reported since the last reading");
  assert.ok(!settled(quiet, { ...quiet }, 3), "the CHECKPOINT's own count not yet published");
  assert.ok(settled({ ...quiet, checkpoints: 4 }, { ...quiet, checkpoints: 4 }, 3), "and once it is");
});

/**
 * The ETA's arithmetic at its edges: no stored runs (the CPU probe's fallback), stored trials of one
 * size (setup taken as constant, said so), of several sizes (overhead and per-size cost fitted apart), a
 * resumed run with some trials done, and a plan whose adaptive rounds raise the ceiling.
 */
import { test } from "node:test";
import assert from "node:assert/strict";
import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import {
  calibrate,
  chooseReference,
  estimateRun,
  estimateUnits,
  etaText,
  fitCalibration,
  fitKinds,
  formatDuration,
  grownSeconds,
  growthExponent,
  growthText,
  MIN_GROWTH_SECONDS,
  probeCalibration,
  probeCheck,
  referenceFromStored,
  scaledRates,
  storedSamples,
  withReferenceShape,
  unitSeconds,
  type MachineReference,
  type ProbeReadings,
  type Probes,
  type ReferenceRates,
  type ReferenceSet,
  type Calibration,
  type PlannedUnit,
} from "../../lib/experiments/eta";
import { EXPERIMENTS, findExperiment } from "../../lib/experiments/registry";
import { progressReporter } from "../../lib/display/progress";
import { durationText } from "../../lib/stats/format";
import { readProgress } from "../../scripts/reproduce";
import { INDEX_WRITE_COST_PROFILES } from "../../lib/experiments/index-write-cost/params";
import { estimate as indexWriteCost } from "../../lib/experiments/index-write-cost/eta";
import {
  estimate as overIndexing,
  estimateFor,
  storedBuildRates,
  storedLoads,
} from "../../lib/experiments/over-indexing/eta";
import { FREE_BYTES_ENV } from "../../lib/targets/disk-need";
import { estimate as yourIndexes, indexesToDrop } from "../../lib/experiments/your-indexes/eta";
import { estimate as reindexUnderLoad, expectedRunLength } from "../../lib/experiments/reindex-under-load/eta";
import { estimate as roundTrips } from "../../lib/experiments/round-trips/eta";
import { params as roundTripsParams } from "../../lib/experiments/round-trips";
import { params as reindexUnderLoadParams } from "../../lib/experiments/reindex-under-load";
import { OVER_INDEXING_PROFILES } from "../../lib/experiments/over-indexing/params";
import { experiment as yourIndexesExperiment } from "../../lib/experiments/your-indexes";

const FLAT: Calibration = {
  timedPerSizeSeconds: 0.001,
  overheadSeconds: 2,
  untimedPerSizeSeconds: 0,
  source: "test",
  constantSetup: false,
};

/** Fixed probes: a CPU reading, and a write-path reading or none. */
const probesOf = (cpu: number, write?: number): Probes => ({ cpu: () => cpu, write: () => write });
/**
 * A reference file's own CPU model and `k` × its CPU probe (the most of its span, where it has one), no write-path
 * reading: the file read at a CPU factor k (k ≥ 1).
 */
const probesAt = (r: MachineReference, k: number): Probes => ({
  cpu: () => k * (r.spans?.cpu[1] ?? r.cpuProbeSeconds),
  write: () => undefined,
  model: () => r.cpuModel,
});
/** The CPU probe of the Xeon reference files (the literals' normalisation they keep). */
const REFERENCE_PROBE_SECONDS = 0.05;
/** A reference set of one machine's rates, as a model holds its files. */
const oneReference = (rates: ReferenceRates, readings: Partial<ProbeReadings> = {}): ReferenceSet => {
  const r: MachineReference = {
    file: "/x/eta-reference.test.json",
    cpuModel: "Test CPU",
    cpuProbeSeconds: REFERENCE_PROBE_SECONDS,
    writeProbeSeconds: null,
    fittedOn: "2026-12-04",
    rates,
    sizes: [],
    constants: {},
    ...readings,
  };
  return { dir: "/x", all: () => [r] };
};

test("formatDuration: seconds, minutes, hours with minutes", () => {
  assert.equal(formatDuration(0.2), "about 1 s");
  assert.equal(formatDuration(40), "about 40 s");
  assert.equal(formatDuration(12 * 60), "about 12 min");
  assert.equal(formatDuration(7 * 3600 + 40 * 60), "about 7 h 40 min");
  assert.equal(formatDuration(2 * 3600), "about 2 h");
});

test("a plan's time is the sum of its trials' fixed or timed seconds plus their untimed part", () => {
  const units: PlannedUnit[] = [
    { key: "a", size: 1000, fixedSeconds: 0 }, // 1 s timed + 2 s overhead
    { key: "b", size: 1000, fixedSeconds: 300 }, // a 300 s round: its fixed time, not the timed rate
  ];
  const e = estimateUnits(units, units, new Set(), FLAT);
  assert.equal(e.seconds, 3 + 302);
  assert.equal(e.remaining, 2);
  assert.equal(e.maxSeconds, e.seconds);
});

test("a resumed run: only the trials not yet done count, and the line says how many are left", () => {
  const units: PlannedUnit[] = [1, 2, 3, 4].map((i) => ({ key: `k${i}`, size: 1000, fixedSeconds: 0 }));
  const e = estimateUnits(units, units, new Set(["k1", "k3", "not-in-plan"]), FLAT);
  assert.equal(e.seconds, 6);
  assert.equal(e.remaining, 2);
  assert.equal(e.planned, 4);
  assert.match(
    etaText(e, "RUN1"),
    /^about 6 s here; 2 of 4 trials left, .*; resumable with npm run reproduce -- --resume RUN1$/,
  );
  // Everything done: nothing left, zero seconds.
  const all = estimateUnits(units, units, new Set(units.map((u) => u.key)), FLAT);
  assert.equal(all.seconds, 0);
  assert.equal(all.remaining, 0);
  assert.equal(etaText(all, "RUN1"), "nothing left to run here (4 of 4 trials done)");
});

test("adaptive rounds raise the ceiling, said beside the planned time", () => {
  const planned: PlannedUnit[] = [{ key: "r1", size: 1, fixedSeconds: 3600 }];
  const maximal: PlannedUnit[] = [...planned, { key: "r2", size: 1, fixedSeconds: 3600 }];
  const e = estimateUnits(planned, maximal, new Set(), { ...FLAT, overheadSeconds: 0 });
  assert.equal(e.maxSeconds, 7200);
  assert.match(etaText(e), /^about 1 h here, up to 2 h with every adaptive round; 1 trials/);
});

test("fitCalibration: no usable sample gives none; one size a constant setup, flagged as rough", () => {
  assert.equal(fitCalibration([], "x"), undefined);
  assert.equal(fitCalibration([{ size: 0, timedSeconds: 1, wallSeconds: 2 }], "x"), undefined);
  const one = fitCalibration(
    [
      { size: 2000, timedSeconds: 0.02, wallSeconds: 0.47 },
      { size: 2000, timedSeconds: 0.04, wallSeconds: 0.49 },
      { size: 2000, timedSeconds: 0.03, wallSeconds: 0.6 },
    ],
    "x",
  );
  assert.ok(one);
  assert.equal(one.constantSetup, true);
  assert.equal(one.untimedPerSizeSeconds, 0);
  assert.ok(Math.abs(one.overheadSeconds - 0.45) < 1e-9, String(one.overheadSeconds));
  assert.ok(Math.abs(one.timedPerSizeSeconds - 0.03 / 2000) < 1e-12);
  assert.match(
    etaText(estimateUnits([{ key: "a", size: 1, fixedSeconds: 0 }], [], new Set(), one)),
    /rough: .*taken as constant/,
  );
});

test("fitCalibration: sizes spanning ≥ 4× split the untimed part into overhead and per-size cost", () => {
  // untimed = 0.5 s + 10 µs a row, exactly.
  const samples = [10_000, 100_000, 1_000_000].map((size) => ({
    size,
    timedSeconds: size * 2e-6,
    wallSeconds: size * 2e-6 + 0.5 + size * 1e-5,
  }));
  const c = fitCalibration(samples, "x");
  assert.ok(c);
  assert.equal(c.constantSetup, false);
  assert.ok(Math.abs(c.overheadSeconds - 0.5) < 1e-6, String(c.overheadSeconds));
  assert.ok(Math.abs(c.untimedPerSizeSeconds - 1e-5) < 1e-12, String(c.untimedPerSizeSeconds));
  assert.ok(Math.abs(c.timedPerSizeSeconds - 2e-6) < 1e-15);
  // A falling untimed part (noise) never gives a negative cost.
  const falling = fitCalibration(
    [
      { size: 1000, timedSeconds: 0, wallSeconds: 3 },
      { size: 10_000, timedSeconds: 0, wallSeconds: 1 },
    ],
    "x",
  );
  assert.ok(falling);
  assert.ok(falling.untimedPerSizeSeconds >= 0 && falling.overheadSeconds >= 0);
});

function withResults(files: Record<string, Record<string, string>>, body: (root: string) => void): void {
  const root = fs.mkdtempSync(path.join(os.tmpdir(), "dblab-eta-"));
  try {
    for (const [dir, contents] of Object.entries(files)) {
      fs.mkdirSync(path.join(root, dir));
      for (const [name, text] of Object.entries(contents)) fs.writeFileSync(path.join(root, dir, name), text);
    }
    body(root);
  } finally {
    fs.rmSync(root, { recursive: true, force: true });
  }
}

test("no stored runs: the CPU probe scales the reference figures, and the line says so", () => {
  withResults({}, (root) => {
    const file = indexWriteCost.references?.all()[0];
    assert.ok(file);
    const slow = calibrate("01-index-write-cost", indexWriteCost, root, probesAt(file, 2));
    const fast = calibrate("01-index-write-cost", indexWriteCost, root, probesAt(file, 1));
    assert.ok(slow && fast);
    assert.match(
      slow.source,
      /CPU probe 2\.00× its time for all of it \(CPU only: (that machine has|no write-path reading here).*no stored run/,
    );
    assert.ok(Math.abs(slow.overheadSeconds - 2 * fast.overheadSeconds) < 1e-12);
    // MongoDB's half counts only where MongoDB will run: 180 trials each engine at full.
    const planned = (env: Record<string, string | undefined>) =>
      withEnv(env, () =>
        estimateRun("01-index-write-cost", indexWriteCost, INDEX_WRITE_COST_PROFILES.full, new Set(), root, fast),
      );
    const both = planned({ DBLAB_MONGODB_URI: "mongodb://127.0.0.1:1/x", DBLAB_TARGET: "embedded" });
    const pgOnly = planned({
      DBLAB_MONGODB_URI: undefined,
      DBLAB_MONGOD: undefined,
      PATH: root,
      DBLAB_TARGET: "embedded",
    });
    assert.ok(both && pgOnly);
    assert.equal(both.planned, 360);
    assert.equal(pgOnly.planned, 180);
    assert.ok(Math.abs(both.seconds - 2 * pgOnly.seconds) < 1e-6 * both.seconds);
  });
  // A model without reference rates and nothing stored: no estimate rather than a made-up one.
  const bare = { units: () => [], size: () => 1 };
  assert.equal(calibrate("01-index-write-cost", bare, "/nonexistent", probesOf(0.05)), undefined);
  assert.equal(estimateRun("01-index-write-cost", bare, {}, new Set(), "/nonexistent"), undefined);
});

test("every notebook in the registry but 00 (it reads runs: nothing to time) has an ETA model with reference rates", () => {
  for (const entry of EXPERIMENTS) {
    const e = entry.estimate?.("smoke", entry.id === "00" ? { runs: [] } : {});
    if (entry.id === "00") assert.equal(e, undefined);
    else assert.ok(e && e.planned > 0 && e.seconds > 0, `${entry.slug}: no ETA`);
  }
  assert.ok(findExperiment("04").estimate);
});

test("04's run length: the params' without a stall share or a stored calibration, else the stored rebuild rate at this scale ÷ the share", () => {
  const p = reindexUnderLoadParams("full");
  const calibration = JSON.stringify({
    seconds: 2.932,
    stallShare: 0.253,
    durationSeconds: 12,
    reindexStartSeconds: 4.1,
  });
  withResults({}, (root) => {
    const none = { root, notebook: "04-reindex-under-load" };
    // Nothing stored: the reference file's rebuild rate at this machine's probe, × scale ÷ share, rounded
    // (inside the run's 6–60 s bounds at scale 100); at a probe twice as slow, twice the rate.
    const file = reindexUnderLoad.references?.all().find((r) => r.constants.rebuildSecondsPerScale !== undefined);
    const perScale = file?.constants.rebuildSecondsPerScale;
    assert.ok(file && perScale !== undefined);
    for (const k of [1, 2])
      assert.equal(
        expectedRunLength({ ...p, scale: 100, stallShare: 0.253 }, none, probesAt(file, k)),
        Math.round((k * perScale * 100) / 0.253),
      );
    assert.equal(expectedRunLength({ ...p, stallShare: 0 }, none, probesAt(file, 1)), p.durationSeconds);
  });
  withResults(
    {
      "R1_04-reindex-under-load_aaaa": {
        "params.json": JSON.stringify({ scale: 50 }),
        "calibration.json": calibration,
      },
      // Another notebook's file and a run without params say nothing.
      "R2_03-over-indexing_bbbb": { "params.json": JSON.stringify({ scale: 1 }), "calibration.json": calibration },
      "R3_04-reindex-under-load_cccc": { "calibration.json": calibration },
    },
    (root) => {
      const stored = { root, notebook: "04-reindex-under-load" };
      // 2.932 s at scale 50 → 5.86 s at 100; ÷ 0.253 → 23 s (inside the run's 6–60 s bounds).
      assert.equal(expectedRunLength({ ...p, scale: 100, stallShare: 0.253 }, stored), 23);
      assert.equal(expectedRunLength({ ...p, stallShare: 0 }, stored), p.durationSeconds);
      const e = estimateRun(
        "04-reindex-under-load",
        reindexUnderLoad,
        { ...p, scale: 100, stallShare: 0.253 },
        new Set(),
        root,
        {
          ...FLAT,
          overheadSeconds: 0,
        },
      );
      assert.ok(e);
      assert.equal(e.seconds, e.planned * 23);
    },
  );
});

test("stored runs: finished trials of the same notebook calibrate; a torn line, a failed trial and other notebooks do not", () => {
  const trial = (rows: number, seconds: number, wall: number, status = "ok") =>
    JSON.stringify({
      key: `postgresql/${rows}/insert/idx0/ff100/r1`,
      condition: { engine: "postgresql", rows, extraIndexes: 0, operation: "insert", fillfactor: 100 },
      status,
      seconds,
      startedAt: "2026-12-01T10:00:00.000Z",
      finishedAt: new Date(Date.parse("2026-12-01T10:00:00.000Z") + wall * 1000).toISOString(),
    });
  withResults(
    {
      "R1_01-index-write-cost_aaaa": {
        "params.json": "{}",
        "trials.jsonl": [
          trial(10_000, 0.1, 1.6),
          trial(100_000, 1, 3.5),
          trial(100_000, 50, 99, "failed"),
          "{torn",
        ].join("\n"),
      },
      "R2_03-over-indexing_bbbb": { "params.json": "{}", "trials.jsonl": trial(1, 1, 1000) },
      "R3_01-index-write-cost_cccc": { "trials.jsonl": trial(10_000, 100, 100) }, // no params.json
    },
    (root) => {
      const never = (): never => {
        throw new Error("the probe must not run when stored runs exist");
      };
      const c = calibrate("01-index-write-cost", indexWriteCost, root, { cpu: never, write: never });
      assert.ok(c);
      assert.equal(c.source, "1 stored run(s) of this notebook here");
      // untimed: 1.5 s at 10k, 2.5 s at 100k → 1.389 s + 11.1 µs a row.
      assert.equal(c.constantSetup, false);
      assert.ok(Math.abs(c.untimedPerSizeSeconds - 1 / 90_000) < 1e-9, String(c.untimedPerSizeSeconds));
      assert.ok(Math.abs(c.timedPerSizeSeconds - 1e-5) < 1e-12);
    },
  );
});

test("03's full profile: 5 rounds of 5 levels at 300 s planned, 8 rounds at most", () => {
  const e = estimateRun("03-over-indexing", overIndexing, OVER_INDEXING_PROFILES.full, new Set(), "/nonexistent", {
    ...FLAT,
    overheadSeconds: 0,
  });
  assert.ok(e);
  assert.equal(e.planned, OVER_INDEXING_PROFILES.full.indexLevels.length * 5);
  // Nothing stored: the load and the builds are the reference machine's, scaled by the probe.
  assert.ok(e.setup);
  assert.match(
    e.setup.text,
    /loading the data first, about .* \(the reference of Intel.*eta-reference\.xeon\.json.*CPU probe [0-9.]+× its time for (all of it|the per-trial overhead).*at scale 1, ∝ scale\)/,
  );
  const rounds = e.seconds - e.setup.seconds;
  assert.ok(rounds >= e.planned * 300 - 1e-6, String(rounds));
  // Every round has the same levels: 8 rounds are 8/5 of 5.
  assert.ok(Math.abs((e.maxSeconds - e.setup.seconds) / rounds - 8 / 5) < 1e-9);
});

test("06's default: the schema's five secondary indexes and one candidate, the baseline between every two, 8 rounds to 11", () => {
  const p = yourIndexesExperiment.params("default");
  assert.deepEqual(indexesToDrop(p), [
    "orders_customer_idx",
    "orders_status_idx",
    "order_lines_product_idx",
    "products_category_idx",
    "suppliers_country_idx",
  ]);
  const e = estimateRun("06-your-indexes", yourIndexes, p, new Set(), "/nonexistent", {
    ...FLAT,
    overheadSeconds: 0.5,
  });
  assert.ok(e);
  // 6 variants and 7 baseline runs a round; each run's timed part is its write run and the read script after it.
  assert.equal(e.planned, 13 * p.repeats);
  assert.equal(p.reads.length, 1);
  const timed = p.durationSeconds + p.readSeconds;
  assert.equal(e.seconds, e.planned * (timed + 0.5));
  assert.equal(e.maxSeconds, 13 * p.maxRepeats * (timed + 0.5));
  // Without read scripts, the write run alone.
  const bare = estimateRun("06-your-indexes", yourIndexes, { ...p, reads: [] }, new Set(), "/nonexistent", {
    ...FLAT,
    overheadSeconds: 0.5,
  });
  assert.equal(bare?.seconds, e.planned * (p.durationSeconds + 0.5));
  // A resumed run: the keys are the run's own (planRounds), so its finished trials are not counted.
  const done = new Set(["baseline/r1.1", "drop:orders_customer_idx/r1", "add:1/r1"]);
  assert.equal(estimateRun("06-your-indexes", yourIndexes, p, done, "/nonexistent", FLAT)?.remaining, e.planned - 3);
  // Named indexes: those only; an unreadable schema for "all": none dropped (the run's check says why).
  assert.deepEqual(indexesToDrop({ existing: ["a"], schema: "/no/such" }), ["a"]);
  assert.deepEqual(indexesToDrop({ existing: "all", schema: "/no/such" }), []);
});

test("per-kind growth: from the medians at each kind's two largest sizes, the exponent kept within [1, 1.5] and shrunk toward 1 below a decade", () => {
  const at = (kind: string, size: number, timedSeconds: number) => ({
    kind,
    size,
    timedSeconds,
    wallSeconds: timedSeconds + 1,
  });
  const kinds = fitKinds([
    // 02 here: loading into an indexed table 3.5 s at 1M rows, 55 s at 10M (exponent 1.20).
    at("B", 1e6, 3.5),
    at("B", 1e7, 50),
    at("B", 1e7, 60),
    // Loading then indexing: faster than linear between two sizes is noise, taken as linear.
    at("A", 1e6, 2.5),
    at("A", 1e7, 19),
    // Tiny trials say nothing about growth: one size left, linear from it.
    at("C", 1e3, 0.01),
    at("C", 1e6, 4),
    // Steeper than 1.5 is capped.
    at("D", 1e6, 1),
    at("D", 2e6, 10),
  ]);
  assert.ok(kinds);
  assert.equal(kinds.B.size, 1e7);
  assert.equal(kinds.B.seconds, 55);
  assert.ok(Math.abs(kinds.B.exponent - Math.log(55 / 3.5) / Math.log(10)) < 1e-9);
  assert.equal(kinds.A.exponent, 1);
  assert.equal(kinds.C.exponent, 1);
  assert.equal(kinds.C.size, 1e6);
  // Capped at 1.5, then shrunk toward 1 for sizes only 2× apart (0.3 of a decade).
  assert.ok(Math.abs(kinds.D.exponent - (1 + 0.5 * Math.log10(2))) < 1e-12);
  assert.equal(fitKinds([{ size: 1, timedSeconds: 1, wallSeconds: 1 }]), undefined);
  // B's untimed second at 10M (wall − timed) grows with the size: 10 s at 100M.
  assert.equal(kinds.B.untimedSeconds, 1);
  // A unit of kind B at 100M: 55 s × 10^1.2 timed and its own setup; a unit of no fitted kind: the per-size rates.
  const c: Calibration = { ...FLAT, overheadSeconds: 0, kinds };
  const b = unitSeconds({ key: "b", size: 1e8, fixedSeconds: 0, kind: "B" }, c);
  assert.ok(Math.abs(b - (55 * 10 ** kinds.B.exponent + 10)) < 1e-6);
  assert.equal(unitSeconds({ key: "x", size: 1000, fixedSeconds: 0, kind: "X" }, c), 1);
  // A fixed run length is not grown; the setup is.
  assert.equal(unitSeconds({ key: "f", size: 1e8, fixedSeconds: 30, kind: "B" }, c), 40);
  assert.match(
    growthText(c),
    /timed part ∝ size\^k past the largest stored size \(B \^1\.20 from 10M, A \^1\.00 from 10M/,
  );
});

test("05: each environment and case is its own kind, so a few slow kinds are not read at the many cheap ones' median rate", () => {
  const full = roundTripsParams("full");
  const def = roundTripsParams("default");
  const units = roundTrips.units(full, false, { root: "/nonexistent", notebook: "05-round-trips" });
  // Every planned unit has the kind its stored trial's condition will name.
  const condition = (u: PlannedUnit): Record<string, unknown> => {
    const [what, a, b] = u.key.split("/");
    return what === "case"
      ? { kind: "case", environment: a, case: b, statements: u.size }
      : { kind: "commit-level", standbyRttMs: Number(a.replace("ms", "")), level: b, commits: u.size };
  };
  for (const u of units) assert.equal(roundTrips.kind?.(condition(u)), u.kind, u.key);
  // Stored default trials: 34 kinds at 0.14 ms a statement, one (a cross-AZ quorum commit) at 9 ms.
  const stored = roundTrips.units(def, false, { root: "/nonexistent", notebook: "05-round-trips" }).map((u) => {
    const perStatement = u.kind === "case/quorum-cross-az/update_each_transaction" ? 9e-3 : 1.4e-4;
    return { kind: u.kind, size: u.size, timedSeconds: u.size * perStatement, wallSeconds: u.size * perStatement };
  });
  const c = fitCalibration(stored, "test");
  assert.ok(c?.kinds);
  const e = estimateUnits(units, units, new Set(), c);
  const slow = units.filter((u) => u.kind === "case/quorum-cross-az/update_each_transaction");
  const expected = units.reduce((t, u) => t + u.size * (slow.includes(u) ? 9e-3 : 1.4e-4), 0);
  assert.ok(Math.abs(e.seconds - expected) / expected < 1e-9, `${e.seconds} vs ${expected}`);
  // One median rate over every trial would have read the slow kind at the cheap rate.
  const single = estimateUnits(units, units, new Set(), { ...c, kinds: undefined });
  assert.ok(single.seconds < 0.5 * expected, `median rate ${single.seconds} s vs ${expected} s`);
  assert.match(growthText(c), /per kind \(40 kinds, k 1\.00–1\.00 from 400 or 150\)/);
});

test("the progress line's time left: the model's while it can say, marked so; the duration formats", () => {
  const file = path.join(fs.mkdtempSync(path.join(os.tmpdir(), "dblab-progress-")), "p.jsonl");
  const before = process.env.DBLAB_PROGRESS_FILE;
  process.env.DBLAB_PROGRESS_FILE = file;
  try {
    const p = progressReporter("t", (done) => (done === 1 ? 4000 : undefined));
    p.update(1, 3, "one done");
    p.update(2, 3, "two done");
    const lines = fs
      .readFileSync(file, "utf8")
      .trim()
      .split("\n")
      .map((l) => JSON.parse(l) as { leftSeconds?: number });
    assert.equal(lines[0].leftSeconds, 4000);
    assert.equal(lines[1].leftSeconds, undefined, "no model answer: the naive estimate is not sent as the model's");
    assert.equal(readProgress(file), "t: 2/3 two done");
    p.update(1, 3, "again");
    assert.equal(readProgress(file), "t: 1/3 (about 1 h 7 min left) again");
  } finally {
    if (before === undefined) delete process.env.DBLAB_PROGRESS_FILE;
    else process.env.DBLAB_PROGRESS_FILE = before;
    fs.rmSync(path.dirname(file), { recursive: true, force: true });
  }
  const estimate = (s: number) => durationText(s, "estimate");
  assert.deepEqual(
    [estimate(40), estimate(600), estimate(3600), estimate(4000)],
    ["40 s", "10 min", "1 h", "1 h 7 min"],
  );
  assert.deepEqual(
    [durationText(2.46), durationText(42.4), durationText(263), durationText(4020)],
    ["2.5 s", "42 s", "4 min 23 s", "1 h 7 min"],
  );
});

test("grownSeconds: linear below the largest stored size, grown by growthExponent past it", () => {
  assert.equal(grownSeconds([], 1), undefined);
  // Per-size medians: 2 s and 4 s at 1 → 3 s.
  const below = grownSeconds(
    [
      { size: 1, seconds: 2 },
      { size: 1, seconds: 4 },
      { size: 10, seconds: 30 },
    ],
    5,
  );
  assert.deepEqual(below, { seconds: 15, exponent: 1, from: 10 });
  // 10× apart, 20× the seconds: raw 1.30, a full decade, kept.
  const past = grownSeconds(
    [
      { size: 1, seconds: 1 },
      { size: 10, seconds: 20 },
    ],
    100,
  );
  assert.ok(past && Math.abs(past.exponent - Math.log10(20)) < 1e-9);
  assert.ok(past && Math.abs(past.seconds - 20 * 10 ** Math.log10(20)) < 1e-6);
  // Steeper than 1.5 is kept at 1.5; falling is linear; a lone size is linear.
  assert.equal(
    growthExponent([
      { size: 1, seconds: 1 },
      { size: 10, seconds: 1000 },
    ]),
    1.5,
  );
  assert.equal(
    growthExponent([
      { size: 1, seconds: 10 },
      { size: 10, seconds: 5 },
    ]),
    1,
  );
  assert.equal(growthExponent([{ size: 10, seconds: 5 }]), 1);
  // Half a decade apart: half the slope past 1.
  const half = growthExponent([
    { size: 1, seconds: 1 },
    { size: 10 ** 0.5, seconds: 10 ** 0.5 * 10 ** (0.5 ** 2) },
  ]);
  assert.ok(Math.abs(half - 1.25) < 1e-9, String(half));
});

/** A stored 03 run at `dataScale`: its load seconds, and two rounds, one that built level 39's 32 indexes. */
function stored03(dataScale: number, loadSeconds: number, buildSeconds: number): Record<string, string> {
  const round = (key: string, level: number, prepared: object) =>
    JSON.stringify({
      key,
      condition: { level },
      status: "ok",
      seconds: 6,
      startedAt: "2026-12-01T00:00:00.000Z",
      finishedAt: "2026-12-01T00:00:07.000Z",
      prepared,
    });
  return {
    "params.json": JSON.stringify({ dataScale }),
    "metadata.json": JSON.stringify({
      template: { loadSeconds: { products: loadSeconds / 2, stock: loadSeconds / 2 } },
    }),
    "trials.jsonl": [
      round("idx39/r1", 39, { indexSeconds: buildSeconds, builtLevelTemplate: true, fromLevelTemplate: true }),
      round("idx39/r2", 39, { indexSeconds: 0, builtLevelTemplate: false, fromLevelTemplate: true }),
      "{torn",
    ].join("\n"),
  };
}

test("03: the data's load and the template's indexes are added once, and a level's builds past the template to each of its rounds", () => {
  withResults(
    {
      "R1_03-over-indexing_aaaa": stored03(0.002, 3.2, 0.64),
      "R2_03-over-indexing_bbbb": stored03(0.01, 16, 3.2),
    },
    (root) => {
      const stored = { root, notebook: "03-over-indexing" };
      assert.deepEqual(
        storedLoads(stored).sort((a, b) => a.size - b.size),
        [
          { size: 0.002, seconds: 3.2 },
          { size: 0.01, seconds: 16 },
        ],
      );
      // Per extra index: 0.64 ÷ 32 and 3.2 ÷ 32; a round that cloned its template built nothing.
      assert.deepEqual(
        storedBuildRates(stored).sort((a, b) => a.size - b.size),
        [
          { size: 0.002, seconds: 0.02 },
          { size: 0.01, seconds: 0.1 },
        ],
      );
      // A round's builds are counted on their own, so they are left out of its untimed part.
      const walls = storedSamples("03-over-indexing", overIndexing, root)
        .samples.map((x) => +x.wallSeconds.toFixed(2))
        .sort((a, b) => a - b);
      assert.deepEqual(walls, [3.8, 6.36, 7, 7]);
      const p = { ...OVER_INDEXING_PROFILES.full };
      const calibration = { ...FLAT, overheadSeconds: 0 };
      const saved = process.env[FREE_BYTES_ENV];
      try {
        // A disk with room for level 39's indexes in the template: rounds are their 300 s; the load,
        // 16 s × 100, and the template's 32 indexes (0.1 s × 100 an index: 320 s), once.
        process.env[FREE_BYTES_ENV] = String(1000 * 2 ** 40);
        const roomy = estimateRun("03-over-indexing", overIndexing, p, new Set(), root, calibration);
        assert.ok(roomy?.setup);
        assert.ok(Math.abs(roomy.setup.seconds - (1600 + 320)) < 1e-6, String(roomy.setup.seconds));
        assert.ok(Math.abs(roomy.seconds - (roomy.planned * 300 + 1920)) < 1e-6, String(roomy.seconds));
        assert.doesNotMatch(etaText(roomy), /every round/);
        assert.match(
          etaText(roomy),
          /loading the data first, about 27 min \(from 2 stored load\(s\), ∝ scale\^1\.00 past 0\.01\), then level 39's indexes into the template, about 5 min/,
        );
        // A resumed run loads and builds again: the setup stays while a round is left, and goes with the last.
        const done = new Set(planned03(p).slice(0, 24));
        const resumed = estimateRun("03-over-indexing", overIndexing, p, done, root, calibration);
        assert.ok(resumed && Math.abs(resumed.seconds - (300 + 1920)) < 1e-6, String(resumed?.seconds));
        const all = estimateRun("03-over-indexing", overIndexing, p, new Set(planned03(p)), root, calibration);
        assert.equal(all?.setup, undefined);
        // Once the run has loaded its data, its template's 32 indexes (320 s) and the rounds are left;
        // once they are built, the rounds.
        const building = estimateRun("03-over-indexing", estimateFor(39, true), p, done, root, calibration);
        assert.ok(building?.setup, "the template's build is left");
        assert.ok(Math.abs(building.seconds - (300 + 320)) < 1e-6, String(building.seconds));
        assert.match(etaText(building), /level 39's indexes into the template first, about 5 min/);
        assert.doesNotMatch(etaText(building), /loading/);
        const loaded = estimateRun("03-over-indexing", estimateFor(39, true), p, done, root, calibration, true);
        assert.ok(loaded && loaded.setup === undefined && Math.abs(loaded.seconds - 300) < 1e-6);
        // A template without indexes past the constraints' (level 7): nothing is left to build.
        const bare = estimateRun("03-over-indexing", estimateFor(7, true), p, done, root, calibration);
        assert.ok(bare && bare.setup === undefined, JSON.stringify(bare?.setup));
        // A disk with room for no index in the template: every round above 7 builds its level's
        // indexes, 0.1 s × 100 an index (7 + 14 + 21 + 32 of them a repeat), and the setup is the load's.
        process.env[FREE_BYTES_ENV] = String(60 * 2 ** 30);
        const tight = estimateRun("03-over-indexing", overIndexing, p, new Set(), root, calibration);
        assert.ok(tight?.setup);
        assert.ok(Math.abs(tight.setup.seconds - 1600) < 1e-6, String(tight.setup.seconds));
        const repeatBuilds = (7 + 14 + 21 + 32) * 10;
        assert.ok(
          Math.abs(tight.seconds - (roomy.seconds - 320 + repeatBuilds * p.repeats)) < 1e-6,
          `${tight.seconds} vs ${roomy.seconds}`,
        );
        assert.match(
          etaText(tight),
          /levels 14, 21, 28, 39 build indexes every round \(no room on disk for them in the template\), 12 min a repeat/,
        );
        assert.doesNotMatch(etaText(tight), /into the template/);
        // Once the run has given its template level 39's indexes, the free space it has used since
        // (the template, the round's clone) no longer moves the plan: the rounds are their 300 s.
        const made = estimateRun("03-over-indexing", estimateFor(39), p, done, root, calibration, true);
        assert.ok(made && Math.abs(made.seconds - 300) < 1e-6, String(made?.seconds));
        // A template of level 28: level 39's rounds build its last 11 indexes, 110 s each.
        const made28 = estimateRun("03-over-indexing", estimateFor(28), p, new Set(), root, calibration, true);
        assert.ok(
          made28 && Math.abs(made28.seconds - (made28.planned * 300 + p.repeats * 110)) < 1e-6,
          String(made28?.seconds),
        );
      } finally {
        if (saved === undefined) delete process.env[FREE_BYTES_ENV];
        else process.env[FREE_BYTES_ENV] = saved;
      }
    },
  );
});

test("03: build rates from a template's build (any part's metadata) and from rounds that built past the template", () => {
  const round = (key: string, level: number, prepared: object) =>
    JSON.stringify({ key, condition: { level }, status: "ok", seconds: 6, prepared });
  withResults(
    {
      "R3_03-over-indexing_cccc": {
        "params.json": JSON.stringify({ dataScale: 0.05 }),
        "metadata.json": JSON.stringify({
          templates: { level: 28, indexSeconds: 4.2 },
          earlierParts: [{ templates: { level: 39, indexSeconds: 6.4 } }],
        }),
        "trials.jsonl": [
          // Dropped from the template: nothing built. Built level 39's last 11 indexes past 28: 1.1 s.
          round("idx7/r1", 7, { templateLevel: 28, indexSeconds: 0, dropSeconds: 0.2 }),
          round("idx28/r1", 28, { templateLevel: 28, indexSeconds: 0, dropSeconds: 0 }),
          round("idx39/r1", 39, { templateLevel: 28, indexSeconds: 1.1, dropSeconds: 0 }),
        ].join("\n"),
      },
    },
    (root) => {
      assert.deepEqual(
        storedBuildRates({ root, notebook: "03-over-indexing" })
          .map((r) => +r.seconds.toFixed(6))
          .sort((a, b) => a - b),
        [0.1, 0.2, 0.2],
        "1.1 s ÷ 11, 4.2 s ÷ 21, 6.4 s ÷ 32",
      );
    },
  );
});

const planned03 = (p: typeof OVER_INDEXING_PROFILES.full): string[] =>
  overIndexing.units(p, false, { root: "/nonexistent", notebook: "03-over-indexing" }).map((u) => u.key);

test("the probe's calibration scales a reference's kinds with the rest, their sizes and exponents kept", () => {
  const reference = {
    timedPerSizeSeconds: 2e-6,
    overheadSeconds: 1,
    untimedPerSizeSeconds: 1e-8,
    constantSetup: false,
    kinds: { "load x": { size: 1e7, seconds: 50, exponent: 1.2, untimedSeconds: 6 } },
  };
  const c = probeCalibration({ references: oneReference(reference) }, probesOf(2 * REFERENCE_PROBE_SECONDS));
  assert.ok(c);
  assert.deepEqual(c.kinds, { "load x": { size: 1e7, seconds: 100, exponent: 1.2, untimedSeconds: 12 } });
  assert.equal(c.overheadSeconds, 2);
  assert.match(
    c.source,
    /reference rates of Test CPU \(eta-reference\.test\.json, fitted 2026-12-04\), CPU probe 2\.00× its time/,
  );
  // A 100M-row trial of that kind grows by its exponent, not by the per-row rate: 100 × 10^1.2 s
  // timed, against 2 × 2e-6 × 1e8 = 400 s per row alone.
  const u: PlannedUnit = { key: "k", size: 1e8, fixedSeconds: 0, kind: "load x" };
  const timed = unitSeconds(u, c) - (2 + ((12 - 2) * 1e8) / 1e7);
  assert.ok(Math.abs(timed - 100 * 10 ** 1.2) < 1e-6, String(timed));
  // A factor of 1 is the identity; without kinds none appear.
  assert.deepEqual(scaledRates(reference, 1), reference);
  const { kinds: _k, ...bare } = reference;
  assert.equal("kinds" in scaledRates(bare, 3), false);
  assert.equal(probeCalibration({}, probesOf(1)), undefined);
});

test("reference rates refitted from stored runs give back those runs' trials under the same probe; a check reads each run", () => {
  const trial = (key: string, rows: number, seconds: number, wall: number, status = "ok") =>
    JSON.stringify({
      key,
      condition: { engine: "postgresql", rows, extraIndexes: 0, operation: "insert", fillfactor: 100 },
      status,
      seconds,
      startedAt: "2026-12-01T10:00:00.000Z",
      finishedAt: new Date(Date.parse("2026-12-01T10:00:00.000Z") + wall * 1000).toISOString(),
    });
  const p = INDEX_WRITE_COST_PROFILES.smoke;
  const keys = indexWriteCost.units(p, true, { root: "/nonexistent", notebook: "01-index-write-cost" }).slice(0, 3);
  assert.equal(keys.length, 3);
  const [a, b, c] = keys;
  assert.ok(a && b && c);
  withResults(
    {
      "R1_01-index-write-cost_aaaa": {
        "params.json": JSON.stringify(p),
        "trials.jsonl": [
          trial(a.key, a.size, 0.2, 1.2),
          trial(b.key, b.size, 0.2, 1.4),
          trial(c.key, c.size, 9, 99, "failed"), // not finished: neither measured nor estimated
          trial("not-a-planned-key", a.size, 1, 2),
        ].join("\n"),
      },
    },
    (root) => {
      const probe = 0.08;
      const fit = referenceFromStored("01-index-write-cost", indexWriteCost, root);
      assert.ok(fit);
      const r = fit.rates;
      assert.deepEqual(
        fit.sizes,
        [...new Set([a.size, b.size])].sort((x, y) => x - y),
      );
      // The stored fit as it is (calibrate would grow it as the reference grows).
      const here = fitCalibration(storedSamples("01-index-write-cost", indexWriteCost, root).samples, "");
      assert.ok(here);
      const fitHere = oneReference(r, { cpuProbeSeconds: probe, writeProbeSeconds: 0.2 });
      const back = probeCalibration({ references: fitHere }, probesOf(probe, 0.2));
      assert.ok(back);
      for (const u of [a, b]) assert.ok(Math.abs(unitSeconds(u, back) - unitSeconds(u, here)) < 1e-9);
      // The rates as fitted: the machine's readings go beside them in the file.
      assert.equal(r.overheadSeconds, here.overheadSeconds);

      const [check] = probeCheck("01-index-write-cost", indexWriteCost, root, probesOf(probe, 0.2), fitHere.all());
      assert.ok(check);
      assert.equal(check.run, "R1_01-index-write-cost_aaaa");
      assert.equal(check.trials, 2); // the failed trial and the key the plan does not name are out
      assert.ok(Math.abs(check.measuredSeconds - 2.6) < 1e-9);
      assert.ok(Math.abs(check.estimatedSeconds - (unitSeconds(a, here) + unitSeconds(b, here))) < 1e-9);
      // Under one of the model's own reference files at that file's readings and CPU model: its rates as they are.
      const file = indexWriteCost.references?.all()[0];
      assert.ok(file);
      const atFile: Probes = {
        cpu: () => file.cpuProbeSeconds,
        write: () => file.writeProbeSeconds ?? undefined,
        model: () => file.cpuModel,
      };
      const [own] = probeCheck("01-index-write-cost", indexWriteCost, root, atFile);
      const chosen = chooseReference(indexWriteCost.references?.all() ?? [], atFile);
      assert.equal(chosen?.reference.file, file.file);
      assert.equal(chosen?.cpuFactor, 1);
      const ref = chosen?.reference.rates;
      assert.ok(own && ref);
      const expected = [a, b].reduce((t, u) => t + unitSeconds(u, { ...ref, source: "" }), 0);
      assert.ok(Math.abs(own.estimatedSeconds - expected) < 1e-9);
      // A run that recorded its probes is read with them, as its own ETA was, not with a busy now's.
      fs.writeFileSync(
        path.join(root, "R1_01-index-write-cost_aaaa", "metadata.json"),
        JSON.stringify({ probes: { cpuProbeSeconds: probe, writeProbeSeconds: 0.2 } }),
      );
      const [busyNow] = probeCheck(
        "01-index-write-cost",
        indexWriteCost,
        root,
        probesOf(3 * probe, 0.6),
        fitHere.all(),
      );
      assert.ok(busyNow && Math.abs(busyNow.estimatedSeconds - check.estimatedSeconds) < 1e-9);
      // ... and with the reference of its own CPU model, as its ETA chose, though another is nearer by the probes.
      const other: MachineReference = {
        ...fitHere.all()[0],
        cpuModel: "Other CPU, 2 cores",
        cpuProbeSeconds: probe,
        rates: { ...r, overheadSeconds: r.overheadSeconds * 10 },
      };
      const own10 = { ...fitHere.all()[0], cpuModel: "Test CPU, 2 cores", cpuProbeSeconds: 10 * probe };
      const meta = { probes: { cpuProbeSeconds: probe, writeProbeSeconds: 0.2 } };
      const checkWith = (host?: object) => {
        fs.writeFileSync(
          path.join(root, "R1_01-index-write-cost_aaaa", "metadata.json"),
          JSON.stringify(host ? { ...meta, host } : meta),
        );
        return probeCheck("01-index-write-cost", indexWriteCost, root, probesOf(probe, 0.2), [other, own10])[0];
      };
      const byModel = checkWith({ cpuModel: "Test CPU ", cpus: 2 });
      const byProbes = checkWith();
      assert.ok(byModel && byProbes);
      // By the model: the Test CPU's rates read at a tenth of its probe; by the probes: the other's, read at 1.
      assert.notEqual(byModel.estimatedSeconds, byProbes.estimatedSeconds);
      assert.equal(checkWith({ cpuModel: "Other CPU", cpus: 2 })?.estimatedSeconds, byProbes.estimatedSeconds);
    },
  );
  withResults({}, (root) => {
    assert.equal(referenceFromStored("01-index-write-cost", indexWriteCost, root), undefined);
    assert.deepEqual(probeCheck("01-index-write-cost", indexWriteCost, root, probesOf(0.05)), []);
  });
});

test("growth is read from a lower size whose seconds reach MIN_GROWTH_SECONDS, not below it", () => {
  const at = (low: number) =>
    growthExponent([
      { size: 1, seconds: low },
      { size: 10, seconds: low * 15 },
    ]);
  assert.ok(Math.abs(at(MIN_GROWTH_SECONDS) - Math.log10(15)) < 1e-9);
  assert.equal(at(MIN_GROWTH_SECONDS * 0.99), 1);
});

test("one stored size: the untimed part split and each kind grown as the reference does, at this machine's level", () => {
  const fitted: Calibration = {
    timedPerSizeSeconds: 4.6e-6,
    overheadSeconds: 0.33, // untimed median at 100,000 rows, taken as constant
    untimedPerSizeSeconds: 0,
    source: "1 stored run(s) of this notebook here",
    constantSetup: true,
    kinds: { pass: { size: 1e5, seconds: 0.46, exponent: 1, untimedSeconds: 0.33 } },
  };
  const samples = [{ size: 1e5, timedSeconds: 0.46, wallSeconds: 0.79, kind: "pass" }];
  const reference = {
    timedPerSizeSeconds: 9e-6,
    overheadSeconds: 0.1,
    untimedPerSizeSeconds: 3e-6,
    constantSetup: false,
    kinds: {
      pass: { size: 1e6, seconds: 7, exponent: 1.18, untimedSeconds: 3.1 },
      other: { size: 1, seconds: 1, exponent: 1.4, untimedSeconds: 0 },
    },
  };
  const c = withReferenceShape(fitted, samples, reference);
  // 0.33 s at 100k is 0.1 + 0.3 = 0.4 s on the reference: level 0.825, split 0.0825 s + 2.475 µs a row.
  assert.ok(Math.abs(c.overheadSeconds - 0.0825) < 1e-12);
  assert.ok(Math.abs(c.untimedPerSizeSeconds - 2.475e-6) < 1e-15);
  assert.equal(c.overheadSeconds + c.untimedPerSizeSeconds * 1e5, 0.33);
  assert.deepEqual(c.kinds, { pass: { size: 1e5, seconds: 0.46, exponent: 1.18, untimedSeconds: 0.33 } });
  assert.equal(c.constantSetup, false);
  assert.equal(c.untimedShape, "reference");
  assert.match(
    etaText({ seconds: 60, maxSeconds: 60, remaining: 1, planned: 1, calibration: c }),
    /grows with the size as on the reference machine/,
  );
  // A kind the reference grows less keeps its own; a reference seen at one size, or none, changes nothing.
  const flatter = withReferenceShape(fitted, samples, {
    ...reference,
    kinds: { pass: { ...reference.kinds.pass, exponent: 1 } },
  });
  assert.equal(flatter.kinds?.pass?.exponent, 1);
  assert.equal(withReferenceShape(fitted, samples, { ...reference, constantSetup: true }), fitted);
  assert.equal(withReferenceShape(fitted, samples, undefined), fitted);
  // Stored at two sizes: the untimed fit stands; a kind grows as the reference's only past a size
  // the reference saw and the stored trials did not.
  const two = { ...fitted, constantSetup: false, untimedPerSizeSeconds: 1e-6 };
  const grown = withReferenceShape(two, samples, reference);
  assert.equal(grown.kinds?.pass?.exponent, 1.18);
  assert.equal(grown.overheadSeconds, two.overheadSeconds);
  assert.equal(grown.untimedShape, undefined);
  const seenAsFar = withReferenceShape(two, samples, {
    ...reference,
    kinds: { pass: { ...reference.kinds.pass, size: 1e5 } },
  });
  assert.equal(seenAsFar.kinds?.pass?.exponent, 1);
  // A reference without a per-size cost keeps the stored constant, still grown by its kinds.
  const noSplit = withReferenceShape(fitted, samples, { ...reference, untimedPerSizeSeconds: 0 });
  assert.equal(noSplit.overheadSeconds, 0.33);
  assert.equal(noSplit.kinds?.pass?.exponent, 1.18);
});

/** `body` with these environment variables set (undefined: unset), restored after. */
function withEnv<T>(vars: Record<string, string | undefined>, body: () => T): T {
  const before = Object.fromEntries(Object.keys(vars).map((k) => [k, process.env[k]]));
  const set = (values: Record<string, string | undefined>) => {
    for (const [k, v] of Object.entries(values)) {
      if (v === undefined) delete process.env[k];
      else process.env[k] = v;
    }
  };
  set(vars);
  try {
    return body();
  } finally {
    set(before);
  }
}

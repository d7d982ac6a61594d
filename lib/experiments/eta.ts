/**
 * How long a run will take on this machine, said before any server starts.
 *
 * A calibration that runs a write workload would have to start a server, which is what the estimate
 * is for deciding. So the per-trial time comes from this machine's stored runs of the same notebook
 * (data/results/), any profile: each finished trial's wall time (startedAt → finishedAt: its setup,
 * load and timed part) minus the seconds its plan fixes (a 5-minute round is 300 s whatever the
 * machine), fitted as `a + b × size`, where size is what the work grows with (rows loaded, the data
 * scale, statements sent). With stored trials at two or more sizes both terms are fitted; at one size
 * only (a machine that has run just `smoke`) the untimed part is taken as constant, and the line says
 * the estimate is rough. A smoke run's 2,000-row
 * trial of 01 is ~0.45 s of table setup around 0.02 s of timed writes, so scaling it to 1M rows is
 * ~10× too long; a default run's 10k and 100k trials fix that.
 *
 * Without stored runs: this machine's speed by a fixed CPU micro-probe (SHA-256 over 64 MiB),
 * times constants fitted from the stored smoke runs of a 2-core Xeon (the `REFERENCE` table), where
 * the same probe took `REFERENCE_PROBE_SECONDS`. CPU only: a disk with a slower fsync than the
 * reference's makes 02's and 05's trials longer than said.
 */
import crypto from "node:crypto";
import fs from "node:fs";
import path from "node:path";
import type { IndexWriteCostParams } from "../params/index-write-cost";
import type { CreateIndexAfterLoadParams } from "../params/create-index-after-load";
import type { OverIndexingParams } from "../params/over-indexing";
import type { ReindexUnderLoadParams } from "../params/reindex-under-load";
import type { RoundTripsParams } from "../params/round-trips";
import type { YourIndexesParams } from "../params/your-indexes";
import { planTrials as planIndexWrites } from "../workloads/index-write-cost/run-trials";
import { planTrials as planLoads } from "../workloads/create-index-after-load/plan";
import { planRounds } from "../workloads/over-indexing/run-trials";
import { planRuns } from "../workloads/reindex-under-load/run-trials";
import { planRounds as planIndexRounds } from "../workloads/your-indexes/run-trials";
import { planVariants, writtenIndexNames } from "../workloads/your-indexes/variants";
import { resultsRoot } from "../results/run-store";

/** One planned trial as the estimate sees it. */
export interface PlannedUnit {
  readonly key: string;
  /** What the trial's untimed and timed work grows with, in the notebook's own unit. */
  readonly size: number;
  /** Seconds the plan fixes whatever the machine (a round's duration). */
  readonly fixedSeconds: number;
}

/**
 * Per-trial time = (fixedSeconds, or timedPerSize × size when the plan fixes none) + overhead +
 * untimedPerSize × size.
 */
export interface Calibration {
  /** Timed seconds per unit of size: the median of the stored trials' own timed seconds ÷ size. */
  readonly timedPerSizeSeconds: number;
  /** The untimed part (setup, load, reset) of a trial: overhead + untimedPerSize × size. */
  readonly overheadSeconds: number;
  readonly untimedPerSizeSeconds: number;
  /** Where it came from, for the ETA line. */
  readonly source: string;
  /**
   * True when the stored trials span less than a 4× range of sizes: the untimed part could not be
   * split into overhead and per-size cost and is taken as constant. Not a bound either way: a setup
   * that grows with size makes the estimate short, a timed part measured on tiny trials (fixed
   * per-statement costs) makes it long — 01's default from smoke runs alone reads ~8 min for ~4.
   */
  readonly constantSetup: boolean;
}

/** A stored trial: its size, its own timed seconds, and its wall time (startedAt → finishedAt). */
export interface CalibrationSample {
  readonly size: number;
  readonly timedSeconds: number;
  readonly wallSeconds: number;
}

interface NotebookModel {
  /** The planned trials of a run with these params; `maximal`: with every adaptive round added. */
  units(params: object, maximal: boolean): PlannedUnit[];
  /** A stored trial's size and fixed seconds, from its condition and its run's params. */
  size(condition: Record<string, unknown>, params: Record<string, unknown>): number;
}

const num = (v: unknown): number => (typeof v === "number" && Number.isFinite(v) ? v : NaN);

// Each model's `params` is the registry's resolved parameters of that notebook: the cast names the
// type the notebook's own `params` function returned.
const MODELS: Readonly<Record<string, NotebookModel>> = {
  "01-index-write-cost": {
    units(params, maximal) {
      const p = params as IndexWriteCostParams;
      const planned = planIndexWrites(p);
      const largest = Math.max(...p.rowCounts);
      const extra = maximal
        ? planIndexWrites({ ...p, rowCounts: [largest], growthRows: [], repeats: p.maxRepeats }).filter(
            (t) => t.repeat > p.repeats,
          )
        : [];
      return [...planned, ...extra].map((t) => ({
        key: `${t.condition.engine}/${t.condition.rows}/${t.condition.operation}/idx${t.condition.extraIndexes}/ff${t.condition.fillfactor ?? "-"}/r${t.repeat}`,
        size: t.condition.rows,
        fixedSeconds: 0,
      }));
    },
    size: (c) => num(c.rows),
  },
  "02-create-index-after-load": {
    units(params) {
      const p = params as CreateIndexAfterLoadParams;
      return planLoads(p).map((t) => ({ key: t.key, size: t.condition.rows, fixedSeconds: 0 }));
    },
    size: (c) => num(c.rows),
  },
  "03-over-indexing": {
    units(params, maximal) {
      const p = params as OverIndexingParams;
      return planRounds(p.indexLevels, maximal ? p.maxRepeats : p.repeats).map((t) => ({
        key: t.key,
        size: p.dataScale,
        fixedSeconds: p.durationSeconds,
      }));
    },
    size: (_c, p) => num(p.dataScale),
  },
  "04-reindex-under-load": {
    units(params, maximal) {
      const p = params as ReindexUnderLoadParams;
      return planRuns(maximal ? p.maxSets : p.sets, p.modes).map((t) => ({
        key: t.key,
        size: p.scale,
        fixedSeconds: p.durationSeconds,
      }));
    },
    size: (_c, p) => num(p.scale),
  },
  "06-your-indexes": {
    units(params, maximal) {
      const p = params as YourIndexesParams;
      // The candidates' names are known once built: the estimate counts them, keys as the run makes them.
      const ids = planVariants(indexesToDrop(p), p.candidates).variants.map((v) => v.id);
      return planIndexRounds(ids, maximal ? p.maxRepeats : p.repeats).map((t) => ({
        key: t.key,
        size: p.scale,
        fixedSeconds: p.durationSeconds,
      }));
    },
    // The clone and the counters around each run grow with the data's scale.
    size: (_c, p) => num(p.scale),
  },
  "05-round-trips": {
    units(params) {
      const p = params as RoundTripsParams;
      const units: PlannedUnit[] = [];
      for (let r = 1; r <= p.repeats; r++) {
        for (const env of p.environments)
          for (const c of p.cases)
            units.push({ key: `case/${env}/${c}/n${p.statements}/r${r}`, size: p.statements, fixedSeconds: 0 });
        if (p.syncLevels.length)
          for (const rtt of p.sweepStandbyRttsMs)
            for (const level of p.syncLevels)
              units.push({
                key: `sweep/${rtt}ms/${level}/n${p.sweepCommits}/r${r}`,
                size: p.sweepCommits,
                fixedSeconds: 0,
              });
      }
      return units;
    },
    size: (c) => num(c.statements ?? c.commits),
  },
};

/**
 * The secondary indexes 06 will drop one at a time: the names `existing` gives, or for "all" the
 * schema file's CREATE INDEX statements (those the server lists only once it has loaded the file;
 * an index behind a PRIMARY KEY or UNIQUE constraint is written inside CREATE TABLE or as ALTER
 * TABLE, so it is not counted, as the lab does not drop it). Unreadable: none (the run's own check
 * says why, before any server starts).
 */
export function indexesToDrop(p: Pick<YourIndexesParams, "existing" | "schema">): string[] {
  if (p.existing !== "all") return [...p.existing];
  let text = "";
  try {
    text = fs.readFileSync(p.schema, "utf8");
  } catch {
    return [];
  }
  return writtenIndexNames(text);
}

/** Notebooks the estimate knows. */
export function hasEstimate(notebook: string): boolean {
  return notebook in MODELS;
}

const median = (values: readonly number[]): number => {
  const v = [...values].sort((a, b) => a - b);
  const mid = v.length >> 1;
  return v.length % 2 ? v[mid] : (v[mid - 1] + v[mid]) / 2;
};

/**
 * The timed part per size is the median of timed ÷ size (the timed writes are what grows with the
 * data, and they are clean of setup even in a smoke run: 02's 5k-row load took 9.4 ms here, 1.9 µs a
 * row, and a 3M-row default load ~6 s, 2 µs a row). The untimed part (wall − timed) is least squares
 * `a + b × size` (a, b ≥ 0) when the sizes span ≥ 4×; else its median, constant (flagged).
 * Undefined without a usable sample.
 */
export function fitCalibration(samples: readonly CalibrationSample[], source: string): Calibration | undefined {
  const usable = samples.filter(
    (s) =>
      s.size > 0 &&
      Number.isFinite(s.size) &&
      Number.isFinite(s.wallSeconds) &&
      Number.isFinite(s.timedSeconds) &&
      s.timedSeconds >= 0,
  );
  if (!usable.length) return undefined;
  const timedPerSizeSeconds = median(usable.map((s) => s.timedSeconds / s.size));
  const points = usable.map((s) => ({ x: s.size, y: Math.max(0, s.wallSeconds - s.timedSeconds) }));
  const xs = points.map((p) => p.x);
  if (Math.max(...xs) < 4 * Math.min(...xs)) {
    return {
      timedPerSizeSeconds,
      overheadSeconds: median(points.map((p) => p.y)),
      untimedPerSizeSeconds: 0,
      source,
      constantSetup: true,
    };
  }
  const n = points.length;
  const mx = points.reduce((t, p) => t + p.x, 0) / n;
  const my = points.reduce((t, p) => t + p.y, 0) / n;
  const sxy = points.reduce((t, p) => t + (p.x - mx) * (p.y - my), 0);
  const sxx = points.reduce((t, p) => t + (p.x - mx) ** 2, 0);
  let b = Math.max(0, sxy / sxx);
  let a = my - b * mx;
  // A negative intercept (untimed cost super-linear in the samples): through the origin instead.
  if (a < 0) {
    a = 0;
    b = points.reduce((t, p) => t + p.x * p.y, 0) / points.reduce((t, p) => t + p.x * p.x, 0);
  }
  return { timedPerSizeSeconds, overheadSeconds: a, untimedPerSizeSeconds: b, source, constantSetup: false };
}

/** One planned trial's seconds under a calibration. */
export function unitSeconds(u: PlannedUnit, c: Calibration): number {
  const timed = u.fixedSeconds > 0 ? u.fixedSeconds : c.timedPerSizeSeconds * u.size;
  return timed + c.overheadSeconds + c.untimedPerSizeSeconds * u.size;
}

export interface Estimate {
  /** Seconds for the trials not yet done. */
  readonly seconds: number;
  /** With every adaptive round the design may add (≥ seconds). */
  readonly maxSeconds: number;
  readonly remaining: number;
  readonly planned: number;
  readonly calibration: Calibration;
}

/** The plan's remaining trials (keys not in `done`) times the calibration's per-trial time. */
export function estimateUnits(
  planned: readonly PlannedUnit[],
  maximal: readonly PlannedUnit[],
  done: ReadonlySet<string>,
  calibration: Calibration,
): Estimate {
  const time = (units: readonly PlannedUnit[]) =>
    units.filter((u) => !done.has(u.key)).reduce((t, u) => t + unitSeconds(u, calibration), 0);
  const remaining = planned.filter((u) => !done.has(u.key)).length;
  const seconds = time(planned);
  return { seconds, maxSeconds: Math.max(seconds, time(maximal)), remaining, planned: planned.length, calibration };
}

/** "about 7 h 40 min", "about 12 min", "about 40 s". */
export function formatDuration(seconds: number): string {
  if (seconds < 90) return `about ${Math.max(1, Math.round(seconds))} s`;
  const minutes = Math.round(seconds / 60);
  if (minutes < 60) return `about ${minutes} min`;
  const h = Math.floor(minutes / 60);
  const m = minutes % 60;
  return `about ${h} h${m ? ` ${m} min` : ""}`;
}

/** The ETA sentence: duration, its ceiling with adaptive rounds, what it rests on, how to resume. */
export function etaText(e: Estimate, runId?: string): string {
  const bound = e.calibration.constantSetup
    ? " (rough: the stored trials' setup was seen at one size only and is taken as constant)"
    : "";
  const max =
    e.maxSeconds > e.seconds * 1.05
      ? `, up to ${formatDuration(e.maxSeconds).replace("about ", "")} with every adaptive round`
      : "";
  const trials = e.remaining === e.planned ? `${e.planned} trials` : `${e.remaining} of ${e.planned} trials left`;
  const resume = runId ? `; resumable with npm run reproduce -- --resume ${runId}` : "";
  if (e.remaining === 0) return `nothing left to run here (${e.planned} of ${e.planned} trials done)`;
  return `${formatDuration(e.seconds)} here${max}${bound}; ${trials}, per-trial time from ${e.calibration.source}${resume}`;
}

/**
 * Reference for the no-stored-runs fallback: per notebook, `fitCalibration` of 40 stored smoke runs and
 * one default run (04) on the 2-core Xeon this lab was built on, where the probe took
 * REFERENCE_PROBE_SECONDS. 01's and 03's untimed parts were seen at one size only (constant).
 */
const REFERENCE_PROBE_SECONDS = 0.05;
type Rates = Omit<Calibration, "source">;
const REFERENCE: Readonly<Record<string, Rates>> = {
  "01-index-write-cost": {
    timedPerSizeSeconds: 2.2e-5,
    overheadSeconds: 0.44,
    untimedPerSizeSeconds: 0,
    constantSetup: true,
  },
  "02-create-index-after-load": {
    timedPerSizeSeconds: 2.4e-6,
    overheadSeconds: 0.57,
    untimedPerSizeSeconds: 0,
    constantSetup: false,
  },
  "03-over-indexing": { timedPerSizeSeconds: 0, overheadSeconds: 2.5, untimedPerSizeSeconds: 0, constantSetup: true },
  "04-reindex-under-load": {
    timedPerSizeSeconds: 0,
    overheadSeconds: 1.32,
    untimedPerSizeSeconds: 0.067,
    constantSetup: false,
  },
  // 06 was fitted on a 2-core AMD EPYC instead (4 stored runs, smoke and default; its probe 0.039 s),
  // rescaled to the reference's probe: 0.14 s + 0.53 s × scale there around each run's fixed seconds.
  "06-your-indexes": {
    timedPerSizeSeconds: 0,
    overheadSeconds: 0.18,
    untimedPerSizeSeconds: 0.68,
    constantSetup: false,
  },
  "05-round-trips": {
    timedPerSizeSeconds: 1.8e-3,
    overheadSeconds: 0,
    untimedPerSizeSeconds: 7.6e-4,
    constantSetup: false,
  },
};

let probed: number | undefined;

/**
 * Seconds for SHA-256 over 64 MiB, the fastest of 3 (a fixed CPU workload: 0.04–0.08 s on the
 * reference machine, shared, 2 cores; single samples there ranged 0.04–0.2 s while other work ran,
 * the fastest of 3 stayed within 0.04–0.06 s). Measured once per process.
 */
export function cpuProbeSeconds(): number {
  if (probed !== undefined) return probed;
  const block = Buffer.alloc(1 << 20, 7);
  let best = Infinity;
  for (let round = 0; round < 3; round++) {
    const started = process.hrtime.bigint();
    const hash = crypto.createHash("sha256");
    for (let i = 0; i < 64; i++) hash.update(block);
    hash.digest();
    best = Math.min(best, Number(process.hrtime.bigint() - started) / 1e9);
  }
  probed = best;
  return best;
}

/** The stored trials of one notebook under `root`: every finished trial with its wall time. */
export function storedSamples(
  notebook: string,
  root: string = resultsRoot(),
): { samples: CalibrationSample[]; runs: number } {
  const model = MODELS[notebook];
  const samples: CalibrationSample[] = [];
  let runs = 0;
  let entries: string[];
  try {
    entries = fs.readdirSync(root);
  } catch {
    return { samples, runs };
  }
  for (const entry of entries) {
    if (!model || !entry.includes(`_${notebook}_`)) continue;
    const dir = path.join(root, entry);
    let params: Record<string, unknown>;
    let text: string;
    try {
      params = JSON.parse(fs.readFileSync(path.join(dir, "params.json"), "utf8")) as Record<string, unknown>;
      text = fs.readFileSync(path.join(dir, "trials.jsonl"), "utf8");
    } catch {
      continue; // a run without its params or trials says nothing about time
    }
    let counted = false;
    for (const line of text.split("\n")) {
      if (!line.trim()) continue;
      let t: { status?: unknown; seconds?: unknown; condition?: unknown; startedAt?: unknown; finishedAt?: unknown };
      try {
        t = JSON.parse(line) as typeof t;
      } catch {
        continue; // a torn tail
      }
      if (typeof t.seconds !== "number") continue;
      if (t.status !== "ok" || typeof t.startedAt !== "string" || typeof t.finishedAt !== "string") continue;
      if (t.condition === null || typeof t.condition !== "object") continue;
      const wallSeconds = (Date.parse(t.finishedAt) - Date.parse(t.startedAt)) / 1000;
      samples.push({
        size: model.size(t.condition as Record<string, unknown>, params),
        timedSeconds: t.seconds,
        wallSeconds,
      });
      counted = true;
    }
    if (counted) runs++;
  }
  return { samples, runs };
}

/** This machine's calibration for a notebook: its stored runs, else the CPU probe times the reference. */
export function calibrate(
  notebook: string,
  root: string = resultsRoot(),
  probe: () => number = cpuProbeSeconds,
): Calibration | undefined {
  const { samples, runs } = storedSamples(notebook, root);
  const fitted = fitCalibration(samples, `${runs} stored run(s) of this notebook here`);
  if (fitted) return fitted;
  const reference = REFERENCE[notebook];
  if (!reference) return undefined;
  const factor = probe() / REFERENCE_PROBE_SECONDS;
  return {
    timedPerSizeSeconds: reference.timedPerSizeSeconds * factor,
    overheadSeconds: reference.overheadSeconds * factor,
    untimedPerSizeSeconds: reference.untimedPerSizeSeconds * factor,
    source: `a CPU probe, ${factor.toFixed(2)}× the reference machine's time (no stored run of this notebook here)`,
    constantSetup: reference.constantSetup,
  };
}

/** The ETA of a run of `notebook` with these params, minus the trials in `done`; undefined without a model. */
export function estimateRun(
  notebook: string,
  params: object,
  done: ReadonlySet<string> = new Set(),
  calibration: Calibration | undefined = calibrate(notebook),
): Estimate | undefined {
  const model = MODELS[notebook];
  if (!model || !calibration) return undefined;
  return estimateUnits(model.units(params, false), model.units(params, true), done, calibration);
}

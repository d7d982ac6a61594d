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
 * the estimate is rough.
 *
 * Without stored runs: a notebook's reference rates (eta-reference*.json beside its eta.ts, each
 * fitted on one machine and holding that machine's probe readings), the one nearest this machine by
 * its probes, scaled by two probes: a CPU probe for the per-trial overhead, a write-path probe (fsync'd
 * writes in the data directory) for what grows with the data. docs/claims-and-regimes.md, "The ETA".
 */
import crypto from "node:crypto";
import fs from "node:fs";
import path from "node:path";
import { linearRegression, mean, median } from "simple-statistics";
import { resultsRoot } from "../results/run-store";
import { readTimeAccount } from "../results/time-account";
import { embeddedBaseDir } from "../targets/embedded/data-dir";
import { durationText } from "../stats/format";

/** One planned trial as the estimate sees it. */
export interface PlannedUnit {
  readonly key: string;
  /** What the trial's untimed and timed work grows with, in the notebook's own unit. */
  readonly size: number;
  /** Seconds the plan fixes whatever the machine (a round's duration). */
  readonly fixedSeconds: number;
  /**
   * Trials whose timed part grows alike (02's two methods: loading into an indexed table grows
   * faster than the rows, loading then indexing as fast): each kind gets its own growth fit.
   */
  readonly kind?: string;
}

/**
 * How one kind's timed part grows past the largest size stored: `timed = seconds × (size ÷ size0)^exponent`
 * from the medians at its two largest stored sizes. The exponent is kept within [1, 1.5] (work per
 * unit never gets cheaper with size, and a steeper rise between two nearby sizes is noise rather
 * than a law to extrapolate 30× on) and shrunk toward 1 when the two sizes are less than 10× apart.
 * docs/claims-and-regimes.md ("The runs behind the model's bounds") has the runs that chose them.
 */
export interface KindGrowth {
  readonly size: number;
  readonly seconds: number;
  readonly exponent: number;
  /**
   * The kind's untimed seconds (wall − timed) at `size`, median: each kind's setup grows at its own
   * rate (02's index sweeps load untimed, its loads are timed).
   */
  readonly untimedSeconds: number;
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
   * that grows with size makes the estimate short, a timed part of tiny trials makes it long.
   */
  readonly constantSetup: boolean;
  /** Per kind (PlannedUnit.kind), the timed part's growth; a kind without one uses timedPerSizeSeconds. */
  readonly kinds?: Readonly<Record<string, KindGrowth>>;
  /**
   * "reference": the stored trials were seen at one size only, and their untimed part is split into
   * overhead and per-size cost as the model's reference splits it (withReferenceShape).
   */
  readonly untimedShape?: "reference";
}

/** A stored trial: its size, its own timed seconds, and its wall time (startedAt → finishedAt). */
export interface CalibrationSample {
  readonly size: number;
  readonly timedSeconds: number;
  readonly wallSeconds: number;
  readonly kind?: string;
}

/**
 * How one notebook's trials grow, for its ETA: each experiment folder has one (its `eta.ts`), and
 * the Experiment contract carries it, so this module names no notebook.
 */
export interface EtaModel<P> {
  /**
   * The planned trials of a run with these params; `maximal`: with every adaptive round added.
   * `stored`: this notebook's stored runs, for a model whose fixed seconds this machine sets (04's
   * run length, from its calibration rebuild).
   */
  units(params: P, maximal: boolean, stored: StoredRuns): PlannedUnit[];
  /** A stored trial's size, from its condition and its run's params. */
  size(condition: Record<string, unknown>, params: Record<string, unknown>): number;
  /**
   * Seconds of a stored trial (its record) that the model counts on its own, in `units` or `setup`
   * (03's index builds): left out of the trial's untimed part, so that they are not counted twice.
   */
  apart?(trial: Record<string, unknown>): number;
  /** A stored trial's kind, as its planned units name it (see PlannedUnit.kind); absent: one kind. */
  kind?(condition: Record<string, unknown>): string | undefined;
  /**
   * The run's one-off setup, outside every trial (03's data load): every run, a resumed one too,
   * does it once before its first trial. Absent: none, or none the stored runs can say.
   */
  setup?(params: P, stored: StoredRuns): SetupEstimate | undefined;
  /**
   * The no-stored-runs fallback: rates fitted on reference machines, each with its probe readings
   * (referencesIn: the notebook's eta-reference*.json); without any, no ETA until a run is stored.
   * A function: the files are read and checked when an ETA first needs them.
   */
  readonly references?: ReferenceSet;
  /** The model's named reference constants as this machine's stored runs give them (`eta:reference --write`). */
  constants?(stored: StoredRuns): Record<string, number>;
}

/** A notebook's reference files: the folder they are in (where `eta:reference --write` writes) and their content. */
export interface ReferenceSet {
  readonly dir: string;
  all(): readonly MachineReference[];
}

/** A run's one-off setup: its seconds, and what they rest on, for the ETA line. */
export interface SetupEstimate {
  readonly seconds: number;
  /** "loading the data: about 27 min (from 1 stored load at scale 0.01, ∝ scale^1.00)" */
  readonly text: string;
}

/** Where a notebook's stored runs are: `root`'s folders with `_<notebook>_` in their name. */
export interface StoredRuns {
  readonly root: string;
  readonly notebook: string;
}

/** A model's fallback rates: a Calibration without its source. */
export type ReferenceRates = Omit<Calibration, "source">;

/** A finite number, else NaN (a stored field that is missing or not a number). */
export const finiteOrNaN = (v: unknown): number => (typeof v === "number" && Number.isFinite(v) ? v : NaN);

/**
 * The timed part per size is the median of timed ÷ size (the timed writes are what grows with the
 * data, clean of setup even in a smoke run). The untimed part (wall − timed) is least squares
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
  const kinds = fitKinds(usable);
  const points = usable.map((s) => ({ x: s.size, y: Math.max(0, s.wallSeconds - s.timedSeconds) }));
  const xs = points.map((p) => p.x);
  if (Math.max(...xs) < 4 * Math.min(...xs)) {
    return {
      timedPerSizeSeconds,
      overheadSeconds: median(points.map((p) => p.y)),
      untimedPerSizeSeconds: 0,
      source,
      constantSetup: true,
      ...(kinds ? { kinds } : {}),
    };
  }
  const fit = linearRegression(points.map((p) => [p.x, p.y]));
  // A falling fit (noise between sizes): no per-size cost, the untimed part is their mean.
  let b = Math.max(0, fit.m);
  let a = fit.m < 0 ? mean(points.map((p) => p.y)) : fit.b;
  // A negative intercept (untimed cost super-linear in the samples): through the origin instead.
  if (a < 0) {
    a = 0;
    b = points.reduce((t, p) => t + p.x * p.y, 0) / points.reduce((t, p) => t + p.x * p.x, 0);
  }
  return {
    timedPerSizeSeconds,
    overheadSeconds: a,
    untimedPerSizeSeconds: b,
    source,
    constantSetup: false,
    ...(kinds ? { kinds } : {}),
  };
}

/** Timed seconds below this say more about fixed per-trial costs than about growth (docs/claims-and-regimes.md). */
export const MIN_GROWTH_SECONDS = 0.25;

/** Each kind's growth from the medians at its two largest sizes (KindGrowth); undefined without kinds. */
export function fitKinds(samples: readonly CalibrationSample[]): Record<string, KindGrowth> | undefined {
  const byKind = new Map<string, Map<number, CalibrationSample[]>>();
  for (const s of samples) {
    if (s.kind === undefined) continue;
    const sizes = byKind.get(s.kind) ?? new Map<number, CalibrationSample[]>();
    sizes.set(s.size, [...(sizes.get(s.size) ?? []), s]);
    byKind.set(s.kind, sizes);
  }
  const out: Record<string, KindGrowth> = {};
  for (const [kind, sizes] of byKind) {
    const points = [...sizes]
      .map(([size, at]) => ({
        size,
        seconds: median(at.map((x) => x.timedSeconds)),
        untimed: median(at.map((x) => Math.max(0, x.wallSeconds - x.timedSeconds))),
      }))
      .filter((p) => p.seconds > 0)
      .sort((x, y) => x.size - y.size);
    const top = points[points.length - 1];
    if (!top) continue;
    out[kind] = { size: top.size, seconds: top.seconds, exponent: growthExponent(points), untimedSeconds: top.untimed };
  }
  return Object.keys(out).length ? out : undefined;
}

/**
 * The growth exponent past the largest of `points` (sorted by size): from it and the largest size
 * below it whose seconds reach MIN_GROWTH_SECONDS, kept within [1, 1.5] and shrunk toward 1 in
 * proportion to the decades short of one the two sizes span; 1 without a second size.
 */
export function growthExponent(points: readonly { readonly size: number; readonly seconds: number }[]): number {
  const top = points[points.length - 1];
  if (!top) return 1;
  const below = points.filter((p) => p.size < top.size && p.seconds >= MIN_GROWTH_SECONDS).pop();
  const raw = below ? Math.log(top.seconds / below.seconds) / Math.log(top.size / below.size) : 1;
  // A slope read over less than a decade of sizes is shrunk toward linear in proportion to the decades it spans.
  const decades = below ? Math.min(1, Math.log10(top.size / below.size)) : 0;
  return 1 + (Math.min(1.5, Math.max(1, raw)) - 1) * decades;
}

/**
 * Seconds at `size` of a cost stored at several sizes (per-size medians), grown past the largest
 * by growthExponent, scaled linearly below it; undefined without a stored point.
 */
export function grownSeconds(
  stored: readonly { readonly size: number; readonly seconds: number }[],
  size: number,
): { readonly seconds: number; readonly exponent: number; readonly from: number } | undefined {
  const bySize = new Map<number, number[]>();
  for (const p of stored) {
    if (!(p.size > 0) || !Number.isFinite(p.seconds) || p.seconds < 0) continue;
    bySize.set(p.size, [...(bySize.get(p.size) ?? []), p.seconds]);
  }
  const points = [...bySize].map(([s, at]) => ({ size: s, seconds: median(at) })).sort((x, y) => x.size - y.size);
  const top = points[points.length - 1];
  if (!top) return undefined;
  const exponent = size > top.size ? growthExponent(points) : 1;
  return { seconds: top.seconds * (size / top.size) ** exponent, exponent, from: top.size };
}

/** One planned trial's seconds under a calibration. */
export function unitSeconds(u: PlannedUnit, c: Calibration): number {
  const growth = u.kind !== undefined ? c.kinds?.[u.kind] : undefined;
  const timed =
    u.fixedSeconds > 0
      ? u.fixedSeconds
      : growth
        ? growth.seconds * (u.size / growth.size) ** growth.exponent
        : c.timedPerSizeSeconds * u.size;
  // A kind's own setup where it has one: the fitted overhead, and its untimed seconds past it scaled with the size.
  const untimed = growth
    ? c.overheadSeconds + (Math.max(0, growth.untimedSeconds - c.overheadSeconds) * u.size) / growth.size
    : c.overheadSeconds + c.untimedPerSizeSeconds * u.size;
  return timed + untimed;
}

export interface Estimate {
  /** Seconds for the trials not yet done. */
  readonly seconds: number;
  /** With every adaptive round the design may add (≥ seconds). */
  readonly maxSeconds: number;
  readonly remaining: number;
  readonly planned: number;
  readonly calibration: Calibration;
  /** The run's one-off setup, counted in `seconds` and `maxSeconds` while a trial is left. */
  readonly setup?: SetupEstimate;
  /** A notebook's wall outside its trials (kernel, servers, summaries, charts), where counted (withOutside). */
  readonly outside?: SetupEstimate;
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
  return `about ${durationText(seconds, "estimate")}`;
}

/** The ETA sentence: duration, its ceiling with adaptive rounds, what it rests on, how to resume. */
export function etaText(e: Estimate, runId?: string): string {
  const bound = e.calibration.constantSetup
    ? " (rough: the stored trials' setup was seen at one size only and is taken as constant)"
    : e.calibration.untimedShape === "reference"
      ? " (rough: the trials it rests on were seen at one size only; it grows with the size as on the reference machine)"
      : "";
  const max =
    e.maxSeconds > e.seconds * 1.05
      ? `, up to ${formatDuration(e.maxSeconds).replace("about ", "")} with every adaptive round`
      : "";
  const trials = e.remaining === e.planned ? `${e.planned} trials` : `${e.remaining} of ${e.planned} trials left`;
  const resume = runId ? `; resumable with npm run reproduce -- --resume ${runId}` : "";
  if (e.remaining === 0) return `nothing left to run here (${e.planned} of ${e.planned} trials done)`;
  const setup = e.setup ? ` and ${e.setup.text}` : "";
  const outside = e.outside ? `; ${e.outside.text}` : "";
  return `${formatDuration(e.seconds)} here${max}${bound}; ${trials}, per-trial time from ${e.calibration.source}${growthText(e.calibration)}${setup}${outside}${resume}`;
}

const sizeText = (n: number) =>
  n >= 1e6 ? `${+(n / 1e6).toPrecision(3)}M` : n >= 1e3 ? `${+(n / 1e3).toPrecision(3)}k` : `${+n.toPrecision(3)}`;

const MAX_KINDS_LISTED = 6;

/** The growth model the estimate used, stated: "timed part ∝ size^k past the largest stored size, per kind: …". */
export function growthText(c: Calibration): string {
  const kinds = Object.entries(c.kinds ?? {});
  if (!kinds.length) return "";
  // One clause a kind while the line stays readable; 05's 40 kinds are summed up by their range.
  if (kinds.length > MAX_KINDS_LISTED) {
    const k = kinds.map(([, g]) => g.exponent);
    const sizes = [...new Set(kinds.map(([, g]) => sizeText(g.size)))].join(" or ");
    return `; timed part ∝ size^k past the largest stored size, per kind (${kinds.length} kinds, k ${Math.min(...k).toFixed(2)}–${Math.max(...k).toFixed(2)} from ${sizes})`;
  }
  const each = kinds.map(([k, g]) => `${k} ^${g.exponent.toFixed(2)} from ${sizeText(g.size)}`).join(", ");
  return `; timed part ∝ size^k past the largest stored size (${each})`;
}

let probed: number | undefined;

/**
 * Seconds for SHA-256 over 64 MiB, the fastest of 3: a fixed CPU workload (on a shared 2-core
 * machine single samples vary several-fold while other work runs; the fastest of 3 much less).
 * Measured once per process.
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

/**
 * The write-path probe's fixed work, what the trials wait on rather than the CPU: small appends each
 * made durable (a commit's WAL flush), then a bulk append made durable (a load's, a checkpoint's).
 */
const WRITE_PROBE_COMMITS = 64;
const WRITE_PROBE_COMMIT_BYTES = 8192;
const WRITE_PROBE_BULK_MIB = 16;
/** The fastest of up to this many rounds: other work's writes delay single rounds. */
const WRITE_PROBE_ROUNDS = 5;
/** No round starts after this much probing: a slow disk gets one round, the probe stays within a second or two. */
const WRITE_PROBE_BUDGET_MS = 1000;

let writeProbed: number | null | undefined;

/**
 * Seconds for the write-path probe's work in the data directory the servers will use
 * (DBLAB_DATA_DIR, or its default), the fastest of up to WRITE_PROBE_ROUNDS; undefined where it cannot write
 * there (the ETA then scales by the CPU probe alone, and says so). Measured once per process.
 */
export function writeProbeSeconds(): number | undefined {
  if (writeProbed !== undefined) return writeProbed ?? undefined;
  let dir: string;
  try {
    dir = embeddedBaseDir();
  } catch {
    writeProbed = null; // no data directory to probe: the run's own check says why
    return undefined;
  }
  writeProbed = writeProbeIn(dir) ?? null;
  return writeProbed ?? undefined;
}

/** The write-path probe in `dir` (a file it creates and removes); undefined where it cannot write there. */
export function writeProbeIn(dir: string): number | undefined {
  const file = path.join(dir, `.dblab-write-probe-${process.pid}`);
  let fd: number | undefined;
  try {
    fd = fs.openSync(file, "w");
    const small = Buffer.alloc(WRITE_PROBE_COMMIT_BYTES, 7);
    const bulk = Buffer.alloc(1 << 20, 7);
    const began = Date.now();
    let best = Infinity;
    for (let round = 0; round < WRITE_PROBE_ROUNDS && Date.now() - began < WRITE_PROBE_BUDGET_MS; round++) {
      fs.ftruncateSync(fd, 0);
      const started = process.hrtime.bigint();
      let at = 0;
      for (let i = 0; i < WRITE_PROBE_COMMITS; i++) {
        at += fs.writeSync(fd, small, 0, small.length, at);
        fs.fdatasyncSync(fd);
      }
      for (let i = 0; i < WRITE_PROBE_BULK_MIB; i++) at += fs.writeSync(fd, bulk, 0, bulk.length, at);
      fs.fdatasyncSync(fd);
      best = Math.min(best, Number(process.hrtime.bigint() - started) / 1e9);
    }
    return best;
  } catch {
    return undefined; // not writable here: the ETA says it scaled by the CPU alone
  } finally {
    if (fd !== undefined) fs.closeSync(fd);
    fs.rmSync(file, { force: true });
  }
}

/** This machine's probes, each read when first asked (a test gives fixed ones). */
export interface Probes {
  cpu(): number;
  /** Undefined: no write-path reading here. */
  write(): number | undefined;
}

export const MACHINE_PROBES: Probes = { cpu: cpuProbeSeconds, write: writeProbeSeconds };

/** A machine's probe readings, as a reference file records them; a write-path reading of null: not read. */
export interface ProbeReadings {
  readonly cpuProbeSeconds: number;
  readonly writeProbeSeconds: number | null;
}

/** One reference file: a notebook's rates as fitted on one machine, with that machine's readings. */
export interface MachineReference extends ProbeReadings {
  readonly file: string;
  readonly cpuModel: string;
  /** The day of the fit, YYYY-MM-DD. */
  readonly fittedOn: string;
  readonly rates: ReferenceRates;
  /** The sizes of the trials the rates were fitted on (a fit at one size grows as another reference does). */
  readonly sizes: readonly number[];
  /** A notebook's own reference seconds outside its rates (03's data load, 04's rebuild rate), by name. */
  readonly constants: Readonly<Record<string, number>>;
}

/** A reference file that cannot be read as one: its path and what is wrong, before any server starts. */
export class EtaReferenceError extends Error {
  override readonly name = "EtaReferenceError";
}

const REFERENCE_FILE = /^eta-reference(\.[a-z0-9-]+)?\.json$/;

/**
 * The reference files of the notebook whose compiled eta module is in `compiledDir`: the
 * eta-reference*.json files beside its source (build/lib/experiments/x → lib/experiments/x), read
 * and checked once, when an ETA first needs them.
 */
export function referencesIn(compiledDir: string): ReferenceSet {
  const source = path.resolve(compiledDir, "..", "..", "..", "..", "lib", "experiments", path.basename(compiledDir));
  const dir = [compiledDir, source].find((d) => listReferenceFiles(d).length) ?? source;
  let loaded: readonly MachineReference[] | undefined;
  return {
    dir,
    all: () => (loaded ??= listReferenceFiles(dir).map((f) => readReference(path.join(dir, f)))),
  };
}

function listReferenceFiles(dir: string): string[] {
  try {
    return fs
      .readdirSync(dir)
      .filter((f) => REFERENCE_FILE.test(f))
      .sort();
  } catch {
    return [];
  }
}

/** One reference file, checked field by field (EtaReferenceError naming the file and the field). */
export function readReference(file: string): MachineReference {
  let raw: unknown;
  try {
    raw = JSON.parse(fs.readFileSync(file, "utf8"));
  } catch (error) {
    throw new EtaReferenceError(`ETA reference ${file}: not readable as JSON (${(error as Error).message})`, {
      cause: error,
    });
  }
  return parseReference(raw, file);
}

type Json = Record<string, unknown>;
const isObject = (v: unknown): v is Json => typeof v === "object" && v !== null && !Array.isArray(v);

/** A reference file's content as a MachineReference; `file` names it in the errors. */
export function parseReference(raw: unknown, file: string): MachineReference {
  const bad = (field: string, want: string, got: unknown): never => {
    throw new EtaReferenceError(
      `ETA reference ${file}: ${field} must be ${want}, got ${JSON.stringify(got) ?? "nothing"} (regenerate it with npm run eta:reference -- --write)`,
    );
  };
  const object = (v: unknown, field: string): Json => (isObject(v) ? v : bad(field, "an object", v));
  const seconds = (v: unknown, field: string): number =>
    typeof v === "number" && Number.isFinite(v) && v >= 0 ? v : bad(field, "a number ≥ 0", v);
  const positive = (v: unknown, field: string): number =>
    typeof v === "number" && Number.isFinite(v) && v > 0 ? v : bad(field, "a number > 0", v);
  const top = object(raw, "the file");
  const machine = object(top.machine, "machine");
  const cpuModel =
    typeof machine.cpuModel === "string" && machine.cpuModel
      ? machine.cpuModel
      : bad("machine.cpuModel", "a CPU model", machine.cpuModel);
  const cpuProbe = positive(machine.cpuProbeSeconds, "machine.cpuProbeSeconds");
  const writeProbe =
    machine.writeProbeSeconds === null
      ? null
      : positive(machine.writeProbeSeconds, "machine.writeProbeSeconds (or null)");
  const fittedOn =
    typeof top.fittedOn === "string" && /^\d{4}-\d{2}-\d{2}$/.test(top.fittedOn)
      ? top.fittedOn
      : bad("fittedOn", "a date YYYY-MM-DD", top.fittedOn);
  const r = object(top.rates, "rates");
  if (typeof r.constantSetup !== "boolean") bad("rates.constantSetup", "true or false", r.constantSetup);
  const kinds = r.kinds === undefined ? undefined : object(r.kinds, "rates.kinds");
  const rates: ReferenceRates = {
    timedPerSizeSeconds: seconds(r.timedPerSizeSeconds, "rates.timedPerSizeSeconds"),
    overheadSeconds: seconds(r.overheadSeconds, "rates.overheadSeconds"),
    untimedPerSizeSeconds: seconds(r.untimedPerSizeSeconds, "rates.untimedPerSizeSeconds"),
    constantSetup: r.constantSetup === true,
    ...(kinds
      ? {
          kinds: Object.fromEntries(
            Object.entries(kinds).map(([k, v]) => {
              const g = object(v, `rates.kinds["${k}"]`);
              const at = `rates.kinds["${k}"]`;
              return [
                k,
                {
                  size: positive(g.size, `${at}.size`),
                  seconds: seconds(g.seconds, `${at}.seconds`),
                  exponent: positive(g.exponent, `${at}.exponent`),
                  untimedSeconds: seconds(g.untimedSeconds, `${at}.untimedSeconds`),
                },
              ];
            }),
          ),
        }
      : {}),
  };
  const constants = top.constants === undefined ? {} : object(top.constants, "constants");
  const sizes =
    top.sizes === undefined
      ? []
      : Array.isArray(top.sizes)
        ? top.sizes.map((v, i) => positive(v, `sizes[${i}]`))
        : bad("sizes", "a list of sizes", top.sizes);
  return {
    file,
    cpuModel,
    cpuProbeSeconds: cpuProbe,
    writeProbeSeconds: writeProbe,
    fittedOn,
    rates,
    sizes,
    constants: Object.fromEntries(Object.entries(constants).map(([k, v]) => [k, seconds(v, `constants.${k}`)])),
  };
}

/** A reference file's content for these rates and readings (what `eta:reference --write` writes). */
export function referenceFileContent(
  rates: ReferenceRates,
  machine: ProbeReadings & { readonly cpuModel: string },
  fittedOn: string,
  sizes: readonly number[],
  constants: Readonly<Record<string, number>> = {},
  note?: string,
): Json {
  return {
    ...(note ? { note } : {}),
    machine: {
      cpuModel: machine.cpuModel,
      cpuProbeSeconds: machine.cpuProbeSeconds,
      writeProbeSeconds: machine.writeProbeSeconds,
    },
    fittedOn,
    rates,
    sizes,
    ...(Object.keys(constants).length ? { constants } : {}),
  };
}

/**
 * How far a reference machine is from this one: |ln ratio| of each probe, summed. A write-path
 * reading missing on either side counts as a factor of 2: a reference without one cannot be told
 * apart from this machine by it, and is preferred only when its CPU is much nearer.
 */
export function referenceDistance(r: ProbeReadings, cpu: number, write: number | undefined): number {
  const cpuDistance = Math.abs(Math.log(cpu / r.cpuProbeSeconds));
  const writeDistance =
    r.writeProbeSeconds !== null && write !== undefined && write > 0
      ? Math.abs(Math.log(write / r.writeProbeSeconds))
      : Math.LN2;
  return cpuDistance + writeDistance;
}

/** The reference a no-stored-runs ETA uses, and this machine's time over its time by each probe. */
export interface ChosenReference {
  readonly reference: MachineReference;
  /** This machine's CPU probe ÷ the reference's. */
  readonly cpuFactor: number;
  /** This machine's write-path probe ÷ the reference's; undefined when either has no reading (CPU only). */
  readonly writeFactor?: number;
  /** How many references there were to choose from. */
  readonly among: number;
}

/**
 * The reference nearest this machine by its probes (referenceDistance), among those `having` what
 * the caller needs; the write path is probed only when a reference has a reading to compare it with.
 */
export function chooseReference(
  references: readonly MachineReference[],
  probes: Probes = MACHINE_PROBES,
  having: (r: MachineReference) => boolean = () => true,
): ChosenReference | undefined {
  const usable = references.filter(having);
  if (!usable.length) return undefined;
  const cpu = probes.cpu();
  const write = usable.some((r) => r.writeProbeSeconds !== null) ? probes.write() : undefined;
  let best: MachineReference | undefined;
  for (const r of usable) if (!best || referenceDistance(r, cpu, write) < referenceDistance(best, cpu, write)) best = r;
  if (!best) return undefined;
  const writeFactor =
    best.writeProbeSeconds !== null && write !== undefined && write > 0 ? write / best.writeProbeSeconds : undefined;
  return {
    reference: best,
    cpuFactor: cpu / best.cpuProbeSeconds,
    ...(writeFactor !== undefined ? { writeFactor } : {}),
    among: usable.length,
  };
}

/** The factor for the write-bound part: the write-path probe's where both machines have a reading, else the CPU's. */
export const writeBoundFactor = (c: ChosenReference): number => c.writeFactor ?? c.cpuFactor;

/** "the reference rates of AMD EPYC, 2 cores (eta-reference.amd-epyc.json, fitted …; nearest of 2 by the probes), …" */
export function referenceText(c: ChosenReference, what = "reference rates"): string {
  const r = c.reference;
  const nearest = c.among > 1 ? `; nearest of ${c.among} by the probes` : "";
  const scaled =
    c.writeFactor !== undefined
      ? `CPU probe ${c.cpuFactor.toFixed(2)}× its time for the per-trial overhead, write-path probe ${c.writeFactor.toFixed(2)}× for the rest`
      : `CPU probe ${c.cpuFactor.toFixed(2)}× its time for all of it (CPU only: ${r.writeProbeSeconds === null ? "that machine has no write-path reading" : "no write-path reading here"})`;
  return `the ${what} of ${r.cpuModel} (${path.basename(r.file)}, fitted ${r.fittedOn}${nearest}), ${scaled}`;
}

/**
 * A notebook's named reference seconds (a data load, a rebuild rate) on this machine: the nearest
 * reference's that has it, scaled as the write-bound part; undefined where none has it.
 */
export function referenceConstant(
  references: readonly MachineReference[],
  name: string,
  probes: Probes = MACHINE_PROBES,
): { readonly seconds: number; readonly text: string; readonly file: string } | undefined {
  const chosen = chooseReference(references, probes, (r) => r.constants[name] !== undefined);
  const value = chosen?.reference.constants[name];
  if (!chosen || value === undefined) return undefined;
  return {
    seconds: value * writeBoundFactor(chosen),
    text: referenceText(chosen, "reference"),
    file: path.basename(chosen.reference.file),
  };
}

/** Each stored run of `stored.notebook`: its folder and params (a run without readable params is skipped). */
export function storedRuns({ root, notebook }: StoredRuns): { dir: string; params: Record<string, unknown> }[] {
  let entries: string[];
  try {
    entries = fs.readdirSync(root);
  } catch {
    return [];
  }
  const out: { dir: string; params: Record<string, unknown> }[] = [];
  for (const entry of entries) {
    if (!entry.includes(`_${notebook}_`)) continue;
    const dir = path.join(root, entry);
    try {
      out.push({
        dir,
        params: JSON.parse(fs.readFileSync(path.join(dir, "params.json"), "utf8")) as Record<string, unknown>,
      });
    } catch {
      continue; // a run without its params says nothing about time
    }
  }
  return out;
}

/** The stored trials of one notebook under `root`: every finished trial with its wall time. */
export function storedSamples(
  notebook: string,
  model: Pick<EtaModel<never>, "size" | "kind" | "apart">,
  root: string = resultsRoot(),
): { samples: CalibrationSample[]; runs: number } {
  const samples: CalibrationSample[] = [];
  let runs = 0;
  for (const { dir, params } of storedRuns({ root, notebook })) {
    let counted = false;
    for (const t of storedTrials(dir)) {
      if (typeof t.seconds !== "number") continue;
      const wallSeconds = storedWallSeconds(t, model);
      if (wallSeconds === undefined) continue;
      if (t.condition === null || typeof t.condition !== "object") continue;
      const condition = t.condition as Record<string, unknown>;
      const kind = model.kind?.(condition);
      samples.push({
        size: model.size(condition, params),
        timedSeconds: t.seconds,
        wallSeconds,
        ...(kind !== undefined ? { kind } : {}),
      });
      counted = true;
    }
    if (counted) runs++;
  }
  return { samples, runs };
}

/**
 * A finished stored trial's wall seconds (startedAt → finishedAt) less what the model counts apart;
 * undefined for a trial not finished ok or without its times.
 */
function storedWallSeconds(t: Record<string, unknown>, model: Pick<EtaModel<never>, "apart">): number | undefined {
  if (t.status !== "ok" || typeof t.startedAt !== "string" || typeof t.finishedAt !== "string") return undefined;
  const apart = model.apart?.(t) ?? 0;
  return (Date.parse(t.finishedAt) - Date.parse(t.startedAt)) / 1000 - (apart > 0 ? apart : 0);
}

/** A stored run's trials (its trials.jsonl), each a record; a torn line or a missing file gives none. */
export function storedTrials(dir: string): Record<string, unknown>[] {
  let text: string;
  try {
    text = fs.readFileSync(path.join(dir, "trials.jsonl"), "utf8");
  } catch {
    return []; // a run without its trials says nothing about time
  }
  const out: Record<string, unknown>[] = [];
  for (const line of text.split("\n")) {
    if (!line.trim()) continue;
    try {
      const t: unknown = JSON.parse(line);
      if (typeof t === "object" && t !== null && !Array.isArray(t)) out.push(t as Record<string, unknown>);
    } catch {
      continue; // a torn tail
    }
  }
  return out;
}

/** This machine's calibration for a notebook: its stored runs, else the nearest reference scaled by the probes. */
export function calibrate(
  notebook: string,
  model: Pick<EtaModel<never>, "size" | "kind" | "apart" | "references">,
  root: string = resultsRoot(),
  probes: Probes = MACHINE_PROBES,
): Calibration | undefined {
  const { samples, runs } = storedSamples(notebook, model, root);
  const fitted = fitCalibration(samples, `${runs} stored run(s) of this notebook here`);
  if (!fitted) return probeCalibration(model, probes);
  return withReferenceShape(fitted, samples, shapeReference(model.references?.all() ?? []));
}

/**
 * The reference whose growth the stored runs borrow (withReferenceShape): a shape, not a speed, so
 * not the nearest machine but the one fitted across sizes that saw the largest trials.
 */
export function shapeReference(references: readonly MachineReference[]): ReferenceRates | undefined {
  const reach = (r: ReferenceRates) =>
    r.constantSetup ? -1 : Math.max(0, ...Object.values(r.kinds ?? {}).map((g) => g.size));
  return [...references].map((r) => r.rates).sort((x, y) => reach(y) - reach(x))[0];
}

/**
 * A stored fit grown past what its trials can say as the reference grows: this machine's level (its
 * medians at the stored sizes), the reference machine's shape.
 * - Each kind's growth exponent past its largest stored size: the reference's, where the reference
 *   saw that kind at a larger size and grew steeper (a default run's sizes cannot tell).
 * - Stored trials seen at one size only: the untimed part, split into overhead and per-size cost as
 *   the reference splits it.
 * docs/claims-and-regimes.md has the runs that showed why.
 * Unchanged where the reference cannot say (none, or one seen at one size itself).
 */
export function withReferenceShape(
  fitted: Calibration,
  samples: readonly CalibrationSample[],
  reference: ReferenceRates | undefined,
): Calibration {
  if (!reference || reference.constantSetup) return fitted;
  const refKinds = reference.kinds ?? {};
  const kinds = fitted.kinds
    ? Object.fromEntries(
        Object.entries(fitted.kinds).map(([k, g]) => {
          const r = refKinds[k];
          return [k, r && r.size > g.size && r.exponent > g.exponent ? { ...g, exponent: r.exponent } : g];
        }),
      )
    : undefined;
  if (!fitted.constantSetup) return kinds ? { ...fitted, kinds } : fitted;
  const sizes = samples.map((s) => s.size).filter((x) => x > 0 && Number.isFinite(x));
  const at = sizes.length ? median(sizes) : NaN;
  const base = reference.overheadSeconds + reference.untimedPerSizeSeconds * at;
  const untimed =
    reference.untimedPerSizeSeconds > 0 && base > 0
      ? {
          overheadSeconds: (reference.overheadSeconds * fitted.overheadSeconds) / base,
          untimedPerSizeSeconds: (reference.untimedPerSizeSeconds * fitted.overheadSeconds) / base,
        }
      : {};
  return {
    ...fitted,
    ...untimed,
    ...(kinds ? { kinds } : {}),
    constantSetup: false,
    untimedShape: "reference",
  };
}

/**
 * The no-stored-runs calibration: the nearest reference's rates (chooseReference), its per-trial
 * overhead scaled by this machine's CPU probe ÷ the reference's, what grows with the data by the
 * write-path probe's ratio (the CPU's where the reference has no write-path reading).
 */
export function probeCalibration(
  model: Pick<EtaModel<never>, "references">,
  probes: Probes = MACHINE_PROBES,
): Calibration | undefined {
  const all = model.references?.all() ?? [];
  const chosen = chooseReference(all, probes);
  if (!chosen) return undefined;
  const scaled: Calibration = {
    ...scaledRates(chosen.reference.rates, chosen.cpuFactor, writeBoundFactor(chosen)),
    source: `${referenceText(chosen)} (no stored run of this notebook here)`,
  };
  // Fitted at one size (a default run), it grows past that size as a reference fitted across sizes does.
  const shape = shapeReference(all);
  if (!scaled.constantSetup || !shape || shape.constantSetup) return scaled;
  const samples = chosen.reference.sizes.map((size) => ({ size, timedSeconds: 0, wallSeconds: 0 }));
  return withReferenceShape(scaled, samples, shape);
}

/**
 * Rates scaled to another machine: the per-trial overhead (connections, DDL, process starts: CPU)
 * times `cpuFactor`; what grows with the data (timed and untimed per size, each kind's seconds at
 * its size: writes made durable) times `writeFactor`. A kind's size and growth exponent are the
 * workload's, not the machine's, and are kept.
 */
export function scaledRates(r: ReferenceRates, cpuFactor: number, writeFactor: number = cpuFactor): ReferenceRates {
  const kinds = r.kinds
    ? Object.fromEntries(
        Object.entries(r.kinds).map(([k, g]) => [
          k,
          { ...g, seconds: g.seconds * writeFactor, untimedSeconds: g.untimedSeconds * writeFactor },
        ]),
      )
    : undefined;
  return {
    timedPerSizeSeconds: r.timedPerSizeSeconds * writeFactor,
    overheadSeconds: r.overheadSeconds * cpuFactor,
    untimedPerSizeSeconds: r.untimedPerSizeSeconds * writeFactor,
    constantSetup: r.constantSetup,
    ...(kinds ? { kinds } : {}),
  };
}

/**
 * The probe readings the stored runs of `notebook` under `root` recorded before their servers started
 * (metadata.probes), the median of each; undefined where none recorded them.
 */
export function storedProbeReadings(notebook: string, root: string): ProbeReadings | undefined {
  const cpu: number[] = [];
  const write: number[] = [];
  for (const { dir } of storedRuns({ root, notebook })) {
    let probes: unknown;
    try {
      probes = (JSON.parse(fs.readFileSync(path.join(dir, "metadata.json"), "utf8")) as { probes?: unknown }).probes;
    } catch {
      continue; // a run without readable metadata recorded no probes
    }
    if (!isObject(probes)) continue;
    if (typeof probes.cpuProbeSeconds === "number" && probes.cpuProbeSeconds > 0) cpu.push(probes.cpuProbeSeconds);
    if (typeof probes.writeProbeSeconds === "number" && probes.writeProbeSeconds > 0)
      write.push(probes.writeProbeSeconds);
  }
  if (!cpu.length) return undefined;
  return { cpuProbeSeconds: median(cpu), writeProbeSeconds: write.length ? median(write) : null };
}

/**
 * A notebook's reference rates from the stored runs under `root`, as fitted (the machine's readings
 * go beside them in the file: `npm run eta:reference -- --write`). Undefined without a stored trial.
 */
export function referenceFromStored(
  notebook: string,
  model: Pick<EtaModel<never>, "size" | "kind" | "apart">,
  root: string,
): { readonly rates: ReferenceRates; readonly sizes: number[] } | undefined {
  const { samples } = storedSamples(notebook, model, root);
  const fitted = fitCalibration(samples, "");
  if (!fitted) return undefined;
  const { source: _source, ...rates } = fitted;
  const sizes = [...new Set(samples.map((s) => s.size).filter((x) => x > 0 && Number.isFinite(x)))];
  return { rates, sizes: sizes.sort((x, y) => x - y) };
}

/**
 * The ETA of a run of `notebook` (its results folders' middle part) with these params, minus the
 * trials in `done`; undefined without stored runs or reference rates.
 */
export function estimateRun<P>(
  notebook: string,
  model: EtaModel<P>,
  params: P,
  done: ReadonlySet<string> = new Set(),
  root: string = resultsRoot(),
  calibration: Calibration | undefined = calibrate(notebook, model, root),
  /** The run has done its one-off setup (03: its data is loaded): what is left is its trials. */
  setupDone = false,
): Estimate | undefined {
  if (!calibration) return undefined;
  const stored = { root, notebook };
  const e = estimateUnits(model.units(params, false, stored), model.units(params, true, stored), done, calibration);
  const setup = e.remaining > 0 && !setupDone ? model.setup?.(params, stored) : undefined;
  if (!setup) return e;
  return { ...e, seconds: e.seconds + setup.seconds, maxSeconds: e.maxSeconds + setup.seconds, setup };
}

/** The name of a reference's constant: a notebook's wall outside its trials (OutsideTrials). */
export const OUTSIDE_CONSTANT = "outsideTrialsSeconds";

/**
 * A notebook run's wall outside its trials' records, from a run's time account (time.json, written
 * by `npm run reproduce`): its kernel start, the time before the first trial (servers, template,
 * calibration; left out for a model that counts its setup itself: 03's load), between trials and
 * after the last (summaries, claims, charts). Undefined for a run without an account.
 */
export function outsideTrialsOf(dir: string, modelCountsSetup: boolean): number | undefined {
  const a = readTimeAccount(dir);
  if (!a || !a.trials) return undefined;
  const r = a.rest;
  return r.kernelStart + (modelCountsSetup ? 0 : r.beforeTrials) + r.betweenTrials + r.afterTrials;
}

/**
 * The wall outside the trials of a run of `notebook` here: the median over its stored runs with a
 * time account, else the nearest reference's (its OUTSIDE_CONSTANT, scaled as write-bound);
 * undefined where neither says.
 */
export function outsideTrials(
  notebook: string,
  model: Pick<EtaModel<never>, "references" | "setup">,
  root: string = resultsRoot(),
  probes: Probes = MACHINE_PROBES,
): SetupEstimate | undefined {
  const stored = storedRuns({ root, notebook })
    .map(({ dir }) => outsideTrialsOf(dir, model.setup !== undefined))
    .filter((x): x is number => x !== undefined);
  const words = "kernel, servers, summaries and charts";
  if (stored.length) {
    const seconds = median(stored);
    return {
      seconds,
      text: `${formatDuration(seconds)} outside the trials (${words}: ${stored.length} stored run(s) here)`,
    };
  }
  const reference = referenceConstant(model.references?.all() ?? [], OUTSIDE_CONSTANT, probes);
  if (!reference) return undefined;
  return {
    seconds: reference.seconds,
    text: `${formatDuration(reference.seconds)} outside the trials (${words}: ${reference.file}'s, scaled as its rates)`,
  };
}

/** An estimate with the wall outside its trials counted, while a trial is left. */
export function withOutside(e: Estimate, outside: SetupEstimate | undefined): Estimate {
  if (!outside || e.remaining === 0) return e;
  return { ...e, seconds: e.seconds + outside.seconds, maxSeconds: e.maxSeconds + outside.seconds, outside };
}

/** One stored run, its trials' measured seconds beside what the probes' calibration says of them. */
export interface ProbeCheck {
  readonly run: string;
  readonly trials: number;
  /** The stored trials' wall seconds, less what the model counts apart (as the fit reads them). */
  readonly measuredSeconds: number;
  /** The same trials (keys) under the no-stored-runs calibration. */
  readonly estimatedSeconds: number;
}

/**
 * How the no-stored-runs ETA would have read each stored run of `notebook` here: its finished
 * trials, planned as the model plans the run's params, under the probe's calibration. Trials only:
 * a run's one-off setup (03's load) has its own estimate. Runs whose trials the plan does not name
 * (another version's keys) are left out. `references`: those to read them with instead of the model's.
 */
export function probeCheck<P>(
  notebook: string,
  model: EtaModel<P>,
  root: string,
  probes: Probes = MACHINE_PROBES,
  references: readonly MachineReference[] = model.references?.all() ?? [],
): ProbeCheck[] {
  const calibration = probeCalibration({ references: { dir: "", all: () => references } }, probes);
  if (!calibration) return [];
  const out: ProbeCheck[] = [];
  for (const { dir, params } of storedRuns({ root, notebook })) {
    const finished = new Map<string, number>();
    for (const t of storedTrials(dir)) {
      const wallSeconds = storedWallSeconds(t, model);
      if (typeof t.key === "string" && wallSeconds !== undefined) finished.set(t.key, wallSeconds);
    }
    // The stored params are the run's resolved params, written from P by the same notebook.
    const units = model.units(params as P, true, { root, notebook }).filter((u) => finished.has(u.key));
    if (!units.length) continue;
    out.push({
      run: path.basename(dir),
      trials: units.length,
      measuredSeconds: units.reduce((t, u) => t + (finished.get(u.key) ?? 0), 0),
      estimatedSeconds: units.reduce((t, u) => t + unitSeconds(u, calibration), 0),
    });
  }
  return out;
}

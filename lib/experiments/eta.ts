/**
 * How long a run will take here, said before any server starts (a calibration that writes would need that server):
 * fitted on this machine's stored runs, else the nearest reference machine's rates scaled by a CPU and a write probe.
 * The model and the runs behind its bounds: docs/claims-and-regimes.md, "How long a run takes here".
 */
import crypto from "node:crypto";
import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import { linearRegression, mean, median } from "simple-statistics";
import { resultsRoot } from "../results/run-store";
import { readTimeAccount } from "../results/time-account";
import { groupBy } from "../stats/summary";
import { embeddedBaseDir } from "../targets/embedded/data-dir";
import { durationText } from "../stats/format";

export interface PlannedUnit {
  readonly key: string;
  /** In the notebook's own unit. */
  readonly size: number;
  readonly fixedSeconds: number;
  /** Trials whose timed part grows alike (02's two methods grow differently): each kind gets its own fit. */
  readonly kind?: string;
}

/** The numbers of a kind's growth and of the rates, each with the least a reference file may hold. */
const KIND_FIELDS = { size: ">", seconds: "≥", exponent: ">", untimedSeconds: "≥" } as const;
const RATE_FIELDS = { timedPerSizeSeconds: "≥", overheadSeconds: "≥", untimedPerSizeSeconds: "≥" } as const;

/** The exponent stays in [1, 1.5], shrunk toward 1 under a 10× span: a steep rise between near sizes is noise. */
export type KindGrowth = Readonly<Record<keyof typeof KIND_FIELDS, number>>;

export interface Calibration extends Readonly<Record<keyof typeof RATE_FIELDS, number>> {
  readonly source: string;
  /** Under a 4× span of sizes the untimed part is taken as constant: not a bound either way. */
  readonly constantSetup: boolean;
  readonly kinds?: Readonly<Record<string, KindGrowth>>;
  readonly untimedShape?: "reference";
}

export type CalibrationSample = Readonly<{ size: number; timedSeconds: number; wallSeconds: number; kind?: string }>;

/** Each folder has one, so this module names no notebook. */
export interface EtaModel<P> {
  /** `maximal`: with every adaptive round added. */
  units(params: P, maximal: boolean, stored: StoredRuns): PlannedUnit[];
  size(condition: Record<string, unknown>, params: Record<string, unknown>): number;
  /** Left out of the trial's untimed part, so that it is not counted twice. */
  apart?(trial: Record<string, unknown>): number;
  kind?(condition: Record<string, unknown>): string | undefined;
  /** Once before the first trial, a resumed run too. */
  setup?(params: P, stored: StoredRuns): SetupEstimate | undefined;
  /** A function: the files are read and checked only when an ETA first needs them. */
  readonly references?: ReferenceSet;
  /**
   * What a reference's rates are scaled by on this machine: the write-path probe for what grows with the data (the
   * default), or the CPU probe for all of it where the trials wait on what this lab sets (05's link delays).
   */
  readonly waitsOn?: "write path" | "cpu";
  constants?(stored: StoredRuns): Record<string, number>;
}

export type ReferenceSet = Readonly<{ dir: string; all(): readonly MachineReference[] }>;
export type SetupEstimate = Readonly<{ seconds: number; text: string }>;
export type StoredRuns = Readonly<{ root: string; notebook: string }>;

export type ReferenceRates = Omit<Calibration, "source">;

type Json = Record<string, unknown>;
export const isObject = (v: unknown): v is Json => typeof v === "object" && v !== null && !Array.isArray(v);
/** Stored runs and files are read best effort: one that cannot be read is left out. */
const attempt = <T>(f: () => T): T | undefined => {
  try {
    return f();
  } catch {
    return undefined;
  }
};
const mapValues = <V, W>(o: Readonly<Record<string, V>>, f: (v: V, key: string) => W): Record<string, W> =>
  Object.fromEntries(Object.entries(o).map(([k, v]) => [k, f(v, k)]));
/** f's value, computed at the first call only. */
const once = <T>(f: () => T): (() => T) => {
  let done: { readonly value: T } | undefined;
  return () => (done ??= { value: f() }).value;
};
export const readJson = (file: string): unknown => attempt(() => JSON.parse(fs.readFileSync(file, "utf8")) as unknown);

export const finiteOrNaN = (v: unknown): number => (typeof v === "number" && Number.isFinite(v) ? v : NaN);

/** The untimed part is least squares `a + b × size` (a, b ≥ 0) when the sizes span ≥ 4×; else constant. */
export function fitCalibration(samples: readonly CalibrationSample[], source: string): Calibration | undefined {
  const finite = (s: CalibrationSample) => [s.size, s.wallSeconds, s.timedSeconds].every(Number.isFinite);
  const usable = samples.filter((s) => s.size > 0 && s.timedSeconds >= 0 && finite(s));
  if (!usable.length) return undefined;
  const timedPerSizeSeconds = median(usable.map((s) => s.timedSeconds / s.size));
  const kinds = fitKinds(usable);
  const points = usable.map((s) => ({ x: s.size, y: Math.max(0, s.wallSeconds - s.timedSeconds) }));
  const xs = points.map((p) => p.x);
  const constantSetup = Math.max(...xs) < 4 * Math.min(...xs);
  let a = median(points.map((p) => p.y));
  let b = 0;
  if (!constantSetup) {
    const fit = linearRegression(points.map((p) => [p.x, p.y]));
    b = Math.max(0, fit.m);
    a = fit.m < 0 ? mean(points.map((p) => p.y)) : fit.b;
    if (a < 0) {
      a = 0;
      b = points.reduce((t, p) => t + p.x * p.y, 0) / points.reduce((t, p) => t + p.x * p.x, 0);
    }
  }
  const rates = { timedPerSizeSeconds, overheadSeconds: a, untimedPerSizeSeconds: b, source, constantSetup };
  return kinds ? { ...rates, kinds } : rates;
}

/** Timed seconds below this say more about fixed per-trial costs than about growth. */
export const MIN_GROWTH_SECONDS = 0.25;

/** The points grouped by size, smallest first. */
const bySize = <X extends { readonly size: number }>(xs: readonly X[]): [number, X[]][] =>
  [...groupBy(xs, (x) => String(x.size))]
    .map(([size, at]): [number, X[]] => [Number(size), at])
    .sort(([a], [b]) => a - b);

export function fitKinds(samples: readonly CalibrationSample[]): Record<string, KindGrowth> | undefined {
  const out: Record<string, KindGrowth> = {};
  const withKind = samples.filter((s) => s.kind !== undefined);
  for (const [kind, ofKind] of groupBy(withKind, (s) => String(s.kind))) {
    const points = bySize(ofKind)
      .map(([size, at]) => ({
        size,
        seconds: median(at.map((x) => x.timedSeconds)),
        untimed: median(at.map((x) => Math.max(0, x.wallSeconds - x.timedSeconds))),
      }))
      .filter((p) => p.seconds > 0);
    const top = points[points.length - 1];
    if (!top) continue;
    out[kind] = { size: top.size, seconds: top.seconds, exponent: growthExponent(points), untimedSeconds: top.untimed };
  }
  return Object.keys(out).length ? out : undefined;
}

export function growthExponent(points: readonly { readonly size: number; readonly seconds: number }[]): number {
  const top = points[points.length - 1];
  if (!top) return 1;
  const below = points.filter((p) => p.size < top.size && p.seconds >= MIN_GROWTH_SECONDS).pop();
  const raw = below ? Math.log(top.seconds / below.seconds) / Math.log(top.size / below.size) : 1;
  const decades = below ? Math.min(1, Math.log10(top.size / below.size)) : 0;
  return 1 + (Math.min(1.5, Math.max(1, raw)) - 1) * decades;
}

export function grownSeconds(
  stored: readonly { readonly size: number; readonly seconds: number }[],
  size: number,
): { readonly seconds: number; readonly exponent: number; readonly from: number } | undefined {
  const usable = stored.filter((p) => p.size > 0 && Number.isFinite(p.seconds) && p.seconds >= 0);
  const points = bySize(usable).map(([s, at]) => ({ size: s, seconds: median(at.map((p) => p.seconds)) }));
  const top = points[points.length - 1];
  if (!top) return undefined;
  const exponent = size > top.size ? growthExponent(points) : 1;
  return { seconds: top.seconds * (size / top.size) ** exponent, exponent, from: top.size };
}

export function unitSeconds(u: PlannedUnit, c: Calibration): number {
  const growth = u.kind !== undefined ? c.kinds?.[u.kind] : undefined;
  const grown = growth && growth.seconds * (u.size / growth.size) ** growth.exponent;
  const timed = u.fixedSeconds > 0 ? u.fixedSeconds : (grown ?? c.timedPerSizeSeconds * u.size);
  const untimed = growth
    ? c.overheadSeconds + (Math.max(0, growth.untimedSeconds - c.overheadSeconds) * u.size) / growth.size
    : c.overheadSeconds + c.untimedPerSizeSeconds * u.size;
  return timed + untimed;
}

export interface Estimate {
  readonly seconds: number;
  readonly maxSeconds: number;
  readonly remaining: number;
  readonly planned: number;
  readonly calibration: Calibration;
  readonly setup?: SetupEstimate;
  readonly outside?: SetupEstimate;
}

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

export function formatDuration(seconds: number): string {
  return `about ${durationText(seconds, "estimate")}`;
}

export function etaText(e: Estimate, runId?: string): string {
  const bound = e.calibration.constantSetup
    ? " (rough: the stored trials' setup was seen at one size only and is taken as constant)"
    : e.calibration.untimedShape === "reference"
      ? " (rough: the trials it rests on were seen at one size only; it grows with the size as on the reference machine)"
      : "";
  const max =
    e.maxSeconds > e.seconds * 1.05
      ? `, up to ${durationText(e.maxSeconds, "estimate")} with every adaptive round`
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

export function growthText(c: Calibration): string {
  const kinds = Object.entries(c.kinds ?? {});
  if (!kinds.length) return "";
  if (kinds.length > MAX_KINDS_LISTED) {
    const k = kinds.map(([, g]) => g.exponent);
    const sizes = [...new Set(kinds.map(([, g]) => sizeText(g.size)))].join(" or ");
    return `; timed part ∝ size^k past the largest stored size, per kind (${kinds.length} kinds, k ${Math.min(...k).toFixed(2)}–${Math.max(...k).toFixed(2)} from ${sizes})`;
  }
  const each = kinds.map(([k, g]) => `${k} ^${g.exponent.toFixed(2)} from ${sizeText(g.size)}`).join(", ");
  return `; timed part ∝ size^k past the largest stored size (${each})`;
}

/** On a shared 2-core machine single samples vary several-fold; the fastest of 3 much less. */
export const cpuProbeSeconds = once((): number => {
  const block = Buffer.alloc(1 << 20, 7);
  let best = Infinity;
  for (let round = 0; round < 3; round++) {
    const started = process.hrtime.bigint();
    const hash = crypto.createHash("sha256");
    for (let i = 0; i < 64; i++) hash.update(block);
    hash.digest();
    best = Math.min(best, Number(process.hrtime.bigint() - started) / 1e9);
  }
  return best;
});

/** Commits of a page each, then a bulk write; the fastest round: other work's writes delay single rounds. */
const WRITE_PROBE = { commits: 64, commitBytes: 8192, bulkMiB: 16, rounds: 5, budgetMs: 1000 };

/** Undefined where it cannot write: the ETA then scales by the CPU probe alone, and says so. */
export const writeProbeSeconds = once((): number | undefined => {
  const dir = attempt(embeddedBaseDir);
  return dir === undefined ? undefined : writeProbeIn(dir);
});

export function writeProbeIn(dir: string): number | undefined {
  const file = path.join(dir, `.dblab-write-probe-${process.pid}`);
  let fd: number | undefined;
  try {
    fd = fs.openSync(file, "w");
    const small = Buffer.alloc(WRITE_PROBE.commitBytes, 7);
    const bulk = Buffer.alloc(1 << 20, 7);
    const began = Date.now();
    let best = Infinity;
    for (let round = 0; round < WRITE_PROBE.rounds && Date.now() - began < WRITE_PROBE.budgetMs; round++) {
      fs.ftruncateSync(fd, 0);
      const started = process.hrtime.bigint();
      let at = 0;
      for (let i = 0; i < WRITE_PROBE.commits; i++) {
        at += fs.writeSync(fd, small, 0, small.length, at);
        fs.fdatasyncSync(fd);
      }
      for (let i = 0; i < WRITE_PROBE.bulkMiB; i++) at += fs.writeSync(fd, bulk, 0, bulk.length, at);
      fs.fdatasyncSync(fd);
      best = Math.min(best, Number(process.hrtime.bigint() - started) / 1e9);
    }
    return best;
  } catch {
    return undefined;
  } finally {
    if (fd !== undefined) fs.closeSync(fd);
    fs.rmSync(file, { force: true });
  }
}

export interface Probes {
  cpu(): number;
  write(): number | undefined;
  /** This machine's CPU model as reference files name it; without one, references are chosen by the probes alone. */
  model?(): string;
}

/** This machine's CPU model, as reference files name it: "AMD EPYC, 2 cores". */
export function cpuModel(): string {
  const cpus = os.cpus();
  return modelName(cpus[0]?.model ?? "unknown CPU", cpus.length);
}

const modelName = (model: string, cores: number) => `${model.trim()}, ${cores} cores`;

export const MACHINE_PROBES: Probes = { cpu: cpuProbeSeconds, write: writeProbeSeconds, model: cpuModel };

export type ProbeReadings = Readonly<{ cpuProbeSeconds: number; writeProbeSeconds: number | null }>;

/** The least and the most a probe read over a reference's fitted runs, one reading per command. */
export type ProbeSpan = readonly [number, number];

/** A CPU span always, a write span where every reading had one. */
export type ProbeSpans = Readonly<{ cpu: ProbeSpan; write?: ProbeSpan }>;

export interface MachineReference extends ProbeReadings {
  readonly spans?: ProbeSpans;
  readonly file: string;
  readonly cpuModel: string;
  readonly fittedOn: string;
  readonly rates: ReferenceRates;
  readonly sizes: readonly number[];
  readonly constants: Readonly<Record<string, number>>;
}

export class EtaReferenceError extends Error {
  override readonly name = "EtaReferenceError";
}

const REFERENCE_FILE = /^eta-reference(\.[a-z0-9-]+)?\.json$/;

export function referencesIn(compiledDir: string): ReferenceSet {
  const source = path.resolve(compiledDir, "..", "..", "..", "..", "lib", "experiments", path.basename(compiledDir));
  const dir = [compiledDir, source].find((d) => listReferenceFiles(d).length) ?? source;
  return { dir, all: once(() => listReferenceFiles(dir).map((f) => readReference(path.join(dir, f)))) };
}

const listReferenceFiles = (dir: string): string[] =>
  (attempt(() => fs.readdirSync(dir)) ?? []).filter((f) => REFERENCE_FILE.test(f)).sort();

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

type Least = ">" | "≥";

export function parseReference(raw: unknown, file: string): MachineReference {
  const bad = (field: string, want: string, got: unknown): never => {
    throw new EtaReferenceError(
      `ETA reference ${file}: ${field} must be ${want}, got ${JSON.stringify(got) ?? "nothing"} (regenerate it with npm run eta:reference -- --write)`,
    );
  };
  const object = (v: unknown, field: string): Json => (isObject(v) ? v : bad(field, "an object", v));
  const text = (v: unknown, field: string, want: string, ok: (s: string) => boolean): string =>
    typeof v === "string" && ok(v) ? v : bad(field, want, v);
  const flag = (v: unknown, field: string): boolean => (typeof v === "boolean" ? v : bad(field, "true or false", v));
  const number = (v: unknown, field: string, least: Least): number =>
    typeof v === "number" && Number.isFinite(v) && (least === ">" ? v > 0 : v >= 0)
      ? v
      : bad(field, `a number ${least} 0`, v);
  const numbers = <K extends string>(o: Json, at: string, fields: Readonly<Record<K, Least>>): Record<K, number> =>
    mapValues<Least, number>(fields, (least, k) => number(o[k], `${at}.${k}`, least));
  const top = object(raw, "the file");
  const machine = object(top.machine, "machine");
  const write = machine.writeProbeSeconds;
  const r = object(top.rates, "rates");
  const kinds = r.kinds === undefined ? undefined : object(r.kinds, "rates.kinds");
  const constants = top.constants === undefined ? {} : object(top.constants, "constants");
  const span = (v: unknown, field: string): ProbeSpan | undefined => {
    if (v === undefined) return undefined;
    const [lo, hi] = Array.isArray(v) && v.length === 2 ? v.map((x, i) => number(x, `${field}[${i}]`, ">")) : [];
    return lo !== undefined && hi !== undefined && lo <= hi ? [lo, hi] : bad(field, "[least, most] seconds", v);
  };
  const [cpuSpan, writeSpan] = [
    span(machine.cpuProbeSpan, "machine.cpuProbeSpan"),
    span(machine.writeProbeSpan, "machine.writeProbeSpan"),
  ];
  return {
    ...(cpuSpan && { spans: { cpu: cpuSpan, ...(writeSpan && { write: writeSpan }) } }),
    file,
    cpuModel: text(machine.cpuModel, "machine.cpuModel", "a CPU model", Boolean),
    cpuProbeSeconds: number(machine.cpuProbeSeconds, "machine.cpuProbeSeconds", ">"),
    writeProbeSeconds: write === null ? null : number(write, "machine.writeProbeSeconds (or null)", ">"),
    fittedOn: text(top.fittedOn, "fittedOn", "a date YYYY-MM-DD", (d) => /^\d{4}-\d{2}-\d{2}$/.test(d)),
    rates: {
      ...numbers(r, "rates", RATE_FIELDS),
      constantSetup: flag(r.constantSetup, "rates.constantSetup"),
      ...(kinds && {
        kinds: mapValues(kinds, (v, k) =>
          numbers(object(v, `rates.kinds["${k}"]`), `rates.kinds["${k}"]`, KIND_FIELDS),
        ),
      }),
    },
    sizes:
      top.sizes === undefined
        ? []
        : Array.isArray(top.sizes)
          ? top.sizes.map((v, i) => number(v, `sizes[${i}]`, ">"))
          : bad("sizes", "a list of sizes", top.sizes),
    constants: mapValues(constants, (v, k) => number(v, `constants.${k}`, "≥")),
  };
}

export function referenceFileContent(
  rates: ReferenceRates,
  { cpuModel, cpuProbeSeconds, writeProbeSeconds }: ProbeReadings & { readonly cpuModel: string },
  fittedOn: string,
  sizes: readonly number[],
  constants: Readonly<Record<string, number>> = {},
  note?: string,
  spans?: ProbeSpans,
): Json {
  const span = spans && { cpuProbeSpan: spans.cpu, ...(spans.write && { writeProbeSpan: spans.write }) };
  return {
    ...(note ? { note } : {}),
    machine: { cpuModel, cpuProbeSeconds, writeProbeSeconds, ...span },
    fittedOn,
    rates,
    sizes,
    ...(Object.keys(constants).length ? { constants } : {}),
  };
}

/** This machine's write probe and the reference's, where both have one. */
function writeReadings(r: ProbeReadings, write: number | undefined): { now: number; at: number } | undefined {
  return r.writeProbeSeconds !== null && write !== undefined && write > 0
    ? { now: write, at: r.writeProbeSeconds }
    : undefined;
}

/**
 * A probe's factor against a reference: 1 within the span its fitted runs read, else against the span's nearer end.
 * On one box the probes moved by up to half between runs whose trials did not (docs/claims-and-regimes.md).
 */
export const probeFactor = (now: number, at: number, span?: ProbeSpan): number =>
  !span ? now / at : now > span[1] ? now / span[1] : now < span[0] ? now / span[0] : 1;

/** A write-path reading missing on either side counts as a factor of 2: preferred only when the CPU is much nearer. */
export function referenceDistance(r: ProbeReadings, cpu: number, write: number | undefined): number {
  const w = writeReadings(r, write);
  return Math.abs(Math.log(cpu / r.cpuProbeSeconds)) + (w ? Math.abs(Math.log(w.now / w.at)) : Math.LN2);
}

export interface ChosenReference {
  readonly reference: MachineReference;
  readonly cpuFactor: number;
  readonly writeFactor?: number;
  readonly among: number;
  /** Chosen among the references of this machine's CPU model. */
  readonly sameModel?: boolean;
  /** Why the write path is not read, where the model says its trials do not wait on it. */
  readonly cpuOnly?: string;
}

/**
 * The write path is probed only when a reference has a reading to compare it with. A reference of this machine's
 * CPU model is preferred to the probes' nearest: the probes move with other work, the model does not.
 */
export function chooseReference(
  references: readonly MachineReference[],
  probes: Probes = MACHINE_PROBES,
  having: (r: MachineReference) => boolean = () => true,
): ChosenReference | undefined {
  const usable = references.filter(having);
  if (!usable.length) return undefined;
  const model = probes.model?.();
  const same = usable.filter((r) => r.cpuModel === model);
  const pool = same.length ? same : usable;
  const cpu = probes.cpu();
  const write = pool.some((r) => r.writeProbeSeconds !== null) ? probes.write() : undefined;
  const best = pool.reduce((a, b) => (referenceDistance(b, cpu, write) < referenceDistance(a, cpu, write) ? b : a));
  const w = writeReadings(best, write);
  const writeFactor = w && probeFactor(w.now, w.at, best.spans?.write);
  return {
    reference: best,
    cpuFactor: probeFactor(cpu, best.cpuProbeSeconds, best.spans?.cpu),
    ...(writeFactor !== undefined ? { writeFactor } : {}),
    among: usable.length,
    ...(same.length ? { sameModel: true } : {}),
  };
}

/**
 * Where the CPU probe reads slower than the reference's, a trial's growing part is scaled by at most this many times
 * its factor: beside other work the write probe's waits queue for a CPU too and overstate the disk. Where the CPU
 * reads as fast or faster, a slow disk counts in full (docs/claims-and-regimes.md, "The probes beside other work").
 */
export const WRITE_OVER_CPU_MAX = 2;

/** The factor for what grows with the data: the write path's, bounded by the CPU's where that is > 1. */
export const writeBoundFactor = (c: ChosenReference): number =>
  c.writeFactor === undefined
    ? c.cpuFactor
    : Math.min(c.writeFactor, c.cpuFactor > 1 ? WRITE_OVER_CPU_MAX * c.cpuFactor : Infinity);

export function referenceText(c: ChosenReference, what = "reference rates"): string {
  const r = c.reference;
  const among = c.sameModel
    ? `; of ${c.among}, the nearest of this CPU model`
    : `; nearest of ${c.among} by the probes`;
  const nearest = c.among > 1 ? among : "";
  const used = writeBoundFactor(c);
  const bounded =
    c.writeFactor !== undefined && used < c.writeFactor
      ? ` ${c.writeFactor.toFixed(2)}×, taken as ${used.toFixed(2)}× (at most ${WRITE_OVER_CPU_MAX}× the CPU probe's factor where the CPU reads slower: the write path's waits queue for it too)`
      : ` ${used.toFixed(2)}×`;
  const scaled =
    c.writeFactor !== undefined
      ? `CPU probe ${c.cpuFactor.toFixed(2)}× its time for the per-trial overhead, write-path probe${bounded} for the rest`
      : `CPU probe ${c.cpuFactor.toFixed(2)}× its time for all of it (CPU only: ${c.cpuOnly ?? (r.writeProbeSeconds === null ? "that machine has no write-path reading" : "no write-path reading here")})`;
  const spans = r.spans && `; a probe within the span its fitted runs read counts as 1×`;
  return `the ${what} of ${r.cpuModel} (${path.basename(r.file)}, fitted ${r.fittedOn}${nearest}), ${scaled}${spans ?? ""}`;
}

/** The reference as the model reads it: a notebook whose trials wait on delays the lab sets scales by the CPU alone. */
function asModelWaits(found: ChosenReference, waitsOn: EtaModel<never>["waitsOn"]): ChosenReference {
  if (waitsOn !== "cpu") return found;
  const { writeFactor: _notRead, ...rest } = found;
  return { ...rest, cpuOnly: "its trials wait on delays this lab sets" };
}

export function referenceConstant(
  references: readonly MachineReference[],
  name: string,
  probes: Probes = MACHINE_PROBES,
  waitsOn?: EtaModel<never>["waitsOn"],
): { readonly seconds: number; readonly text: string; readonly file: string } | undefined {
  const found = chooseReference(references, probes, (r) => r.constants[name] !== undefined);
  const chosen = found && asModelWaits(found, waitsOn);
  const value = chosen?.reference.constants[name];
  if (!chosen || value === undefined) return undefined;
  const file = path.basename(chosen.reference.file);
  return { seconds: value * writeBoundFactor(chosen), text: referenceText(chosen, "reference"), file };
}

export function storedRuns({ root, notebook }: StoredRuns): { dir: string; params: Record<string, unknown> }[] {
  return (attempt(() => fs.readdirSync(root)) ?? [])
    .filter((entry) => entry.includes(`_${notebook}_`))
    .flatMap((entry) => {
      const dir = path.join(root, entry);
      const params = readJson(path.join(dir, "params.json"));
      return params === undefined ? [] : [{ dir, params: params as Record<string, unknown> }];
    });
}

export function storedSamples(
  notebook: string,
  model: Pick<EtaModel<never>, "size" | "kind" | "apart">,
  root: string = resultsRoot(),
): { samples: CalibrationSample[]; runs: number } {
  const perRun = storedRuns({ root, notebook }).map(({ dir, params }) =>
    storedTrials(dir).flatMap((t): CalibrationSample[] => {
      const wallSeconds = storedWallSeconds(t, model);
      if (typeof t.seconds !== "number" || wallSeconds === undefined || !isObject(t.condition)) return [];
      const kind = model.kind?.(t.condition);
      const size = model.size(t.condition, params);
      return [{ size, timedSeconds: t.seconds, wallSeconds, ...(kind !== undefined ? { kind } : {}) }];
    }),
  );
  return { samples: perRun.flat(), runs: perRun.filter((samples) => samples.length).length };
}

function storedWallSeconds(t: Record<string, unknown>, model: Pick<EtaModel<never>, "apart">): number | undefined {
  if (t.status !== "ok" || typeof t.startedAt !== "string" || typeof t.finishedAt !== "string") return undefined;
  const apart = model.apart?.(t) ?? 0;
  return (Date.parse(t.finishedAt) - Date.parse(t.startedAt)) / 1000 - (apart > 0 ? apart : 0);
}

export function storedTrials(dir: string): Record<string, unknown>[] {
  const text = attempt(() => fs.readFileSync(path.join(dir, "trials.jsonl"), "utf8")) ?? "";
  return text.split("\n").flatMap((line) => {
    const t = line.trim() ? attempt(() => JSON.parse(line) as unknown) : undefined;
    return isObject(t) ? [t] : [];
  });
}

export function calibrate(
  notebook: string,
  model: Pick<EtaModel<never>, "size" | "kind" | "apart" | "references" | "waitsOn">,
  root: string = resultsRoot(),
  probes: Probes = MACHINE_PROBES,
): Calibration | undefined {
  const { samples, runs } = storedSamples(notebook, model, root);
  const fitted = fitCalibration(samples, `${runs} stored run(s) of this notebook here`);
  if (!fitted) return probeCalibration(model, probes);
  return withReferenceShape(fitted, samples, shapeReference(model.references?.all() ?? []));
}

/** A shape, not a speed: not the nearest machine but the one fitted across sizes that saw the largest trials. */
export function shapeReference(references: readonly MachineReference[]): ReferenceRates | undefined {
  const reach = (r: ReferenceRates) =>
    r.constantSetup ? -1 : Math.max(0, ...Object.values(r.kinds ?? {}).map((g) => g.size));
  return [...references].map((r) => r.rates).sort((x, y) => reach(y) - reach(x))[0];
}

/** This machine's level, the reference's shape, where a default run's sizes cannot tell the growth. */
export function withReferenceShape(
  fitted: Calibration,
  samples: readonly CalibrationSample[],
  reference: ReferenceRates | undefined,
): Calibration {
  if (!reference || reference.constantSetup) return fitted;
  const refKinds = reference.kinds ?? {};
  const kinds =
    fitted.kinds &&
    mapValues(fitted.kinds, (g, k) => {
      const r = refKinds[k];
      return r && r.size > g.size && r.exponent > g.exponent ? { ...g, exponent: r.exponent } : g;
    });
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
  return { ...fitted, ...untimed, ...(kinds ? { kinds } : {}), constantSetup: false, untimedShape: "reference" };
}

export function probeCalibration(
  model: Pick<EtaModel<never>, "references" | "waitsOn">,
  probes: Probes = MACHINE_PROBES,
): Calibration | undefined {
  const all = model.references?.all() ?? [];
  const found = chooseReference(all, probes);
  if (!found) return undefined;
  const chosen = asModelWaits(found, model.waitsOn);
  const scaled: Calibration = {
    ...scaledRates(chosen.reference.rates, chosen.cpuFactor, writeBoundFactor(chosen)),
    source: `${referenceText(chosen)} (no stored run of this notebook here)`,
  };
  const shape = shapeReference(all);
  if (!scaled.constantSetup || !shape || shape.constantSetup) return scaled;
  const samples = chosen.reference.sizes.map((size) => ({ size, timedSeconds: 0, wallSeconds: 0 }));
  return withReferenceShape(scaled, samples, shape);
}

export function scaledRates(r: ReferenceRates, cpuFactor: number, writeFactor: number = cpuFactor): ReferenceRates {
  const scaled = (g: KindGrowth) => ({
    ...g,
    seconds: g.seconds * writeFactor,
    untimedSeconds: g.untimedSeconds * writeFactor,
  });
  const kinds = r.kinds && mapValues(r.kinds, scaled);
  return {
    timedPerSizeSeconds: r.timedPerSizeSeconds * writeFactor,
    overheadSeconds: r.overheadSeconds * cpuFactor,
    untimedPerSizeSeconds: r.untimedPerSizeSeconds * writeFactor,
    constantSetup: r.constantSetup,
    ...(kinds ? { kinds } : {}),
  };
}

/**
 * What a stored run's ETA read at its start (metadata.json): its probes, undefined where it has none, and the CPU
 * model of its host, as reference files name it, by which that ETA chose its reference.
 */
export function runMachine(dir: string): { readonly probes?: ProbeReadings; readonly model?: string } {
  const m = readJson(path.join(dir, "metadata.json")) as { probes?: unknown; host?: unknown } | null | undefined;
  const [p, host] = [m?.probes, m?.host];
  const write = isObject(p) ? p.writeProbeSeconds : undefined;
  return {
    ...(isObject(p) && typeof p.cpuProbeSeconds === "number" && p.cpuProbeSeconds > 0
      ? {
          probes: {
            cpuProbeSeconds: p.cpuProbeSeconds,
            writeProbeSeconds: typeof write === "number" && write > 0 ? write : null,
          },
        }
      : {}),
    ...(isObject(host) && typeof host.cpuModel === "string" && typeof host.cpus === "number"
      ? { model: modelName(host.cpuModel, host.cpus) }
      : {}),
  };
}

/**
 * The machine readings a notebook's stored runs saw: per run, the median of the probes every notebook of its command
 * recorded at its start (one machine state lasts a command; one start's probe moves with that moment's work), then
 * the median over runs.
 */
export function storedProbeReadings(notebook: string, root: string): ProbeReadings | undefined {
  return storedProbes(notebook, root)?.readings;
}

/**
 * The stored runs' machine readings (storedProbeReadings) and their span over the commands whose runs a refit reads,
 * from one read of the runs: where there is a reading there is a span.
 */
export function storedProbes(
  notebook: string,
  root: string,
): { readonly readings: ProbeReadings; readonly spans: ProbeSpans } | undefined {
  const perRun = perCommandReadings(notebook, root);
  if (!perRun.length) return undefined;
  const cpu = perRun.map((p) => p.cpuProbeSeconds);
  const write = perRun.flatMap((p) => p.writeProbeSeconds ?? []);
  const span = (xs: number[]): ProbeSpan => [Math.min(...xs), Math.max(...xs)];
  const spans = { cpu: span(cpu), ...(write.length === cpu.length && { write: span(write) }) };
  return { readings: medianReadings(perRun), spans };
}

/** Each stored run's command's readings: the median of the probes its notebooks recorded at their start. */
function perCommandReadings(notebook: string, root: string): ProbeReadings[] {
  const entries = attempt(() => fs.readdirSync(root)) ?? [];
  return storedRuns({ root, notebook }).flatMap(({ dir }) => {
    const command = `${path.basename(dir).split("_")[0]}_`;
    const probes = entries
      .filter((e) => e.startsWith(command))
      .flatMap((e) => runMachine(path.join(root, e)).probes ?? []);
    return probes.length ? [medianReadings(probes)] : [];
  });
}

function medianReadings(probes: readonly ProbeReadings[]): ProbeReadings {
  const write = probes.flatMap((p) => p.writeProbeSeconds ?? []);
  return {
    cpuProbeSeconds: median(probes.map((p) => p.cpuProbeSeconds)),
    writeProbeSeconds: write.length ? median(write) : null,
  };
}

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

export function estimateRun<P>(
  notebook: string,
  model: EtaModel<P>,
  params: P,
  done: ReadonlySet<string> = new Set(),
  root: string = resultsRoot(),
  calibration: Calibration | undefined = calibrate(notebook, model, root),
  setupDone = false,
): Estimate | undefined {
  if (!calibration) return undefined;
  const stored = { root, notebook };
  const e = estimateUnits(model.units(params, false, stored), model.units(params, true, stored), done, calibration);
  const setup = e.remaining > 0 && !setupDone ? model.setup?.(params, stored) : undefined;
  return setup ? added(e, "setup", setup) : e;
}

const added = (e: Estimate, what: "setup" | "outside", part: SetupEstimate): Estimate => ({
  ...e,
  seconds: e.seconds + part.seconds,
  maxSeconds: e.maxSeconds + part.seconds,
  [what]: part,
});

export const OUTSIDE_CONSTANT = "outsideTrialsSeconds";

export function outsideTrialsOf(dir: string, modelCountsSetup: boolean): number | undefined {
  const a = readTimeAccount(dir);
  if (!a || !a.trials) return undefined;
  const r = a.rest;
  return r.kernelStart + (modelCountsSetup ? 0 : r.beforeTrials) + r.betweenTrials + r.afterTrials;
}

/** The stored runs' seconds outside their trials (their setup too where the model does not count it). */
export const storedOutsideTrials = (notebook: string, model: Pick<EtaModel<never>, "setup">, root: string): number[] =>
  storedRuns({ root, notebook })
    .map(({ dir }) => outsideTrialsOf(dir, model.setup !== undefined))
    .filter((x): x is number => x !== undefined);

export function outsideTrials(
  notebook: string,
  model: Pick<EtaModel<never>, "references" | "setup" | "waitsOn">,
  root: string = resultsRoot(),
  probes: Probes = MACHINE_PROBES,
): SetupEstimate | undefined {
  const stored = storedOutsideTrials(notebook, model, root);
  const reference = stored.length
    ? undefined
    : referenceConstant(model.references?.all() ?? [], OUTSIDE_CONSTANT, probes, model.waitsOn);
  const seconds = stored.length ? median(stored) : reference?.seconds;
  if (seconds === undefined) return undefined;
  const from = reference ? `${reference.file}'s, scaled as its rates` : `${stored.length} stored run(s) here`;
  const text = `${formatDuration(seconds)} outside the trials (kernel, servers, summaries and charts: ${from})`;
  return { seconds, text };
}

export function withOutside(e: Estimate, outside: SetupEstimate | undefined): Estimate {
  return !outside || e.remaining === 0 ? e : added(e, "outside", outside);
}

export type ProbeCheck = Readonly<{ run: string; trials: number; measuredSeconds: number; estimatedSeconds: number }>;

/**
 * Each stored run is read as its own ETA was: with the probes it recorded at its start (else
 * `probes`), so a check on a busy machine does not scale a quiet run's trials by today's load.
 * Runs whose trials the plan does not name (another version's keys) are left out.
 */
export function probeCheck<P>(
  notebook: string,
  model: EtaModel<P>,
  root: string,
  probes: Probes = MACHINE_PROBES,
  references: readonly MachineReference[] = model.references?.all() ?? [],
): ProbeCheck[] {
  const set = { references: { dir: "", all: () => references }, waitsOn: model.waitsOn };
  const out: ProbeCheck[] = [];
  for (const { dir, params } of storedRuns({ root, notebook })) {
    const { probes: recorded, model: modelThen } = runMachine(dir);
    const calibration = probeCalibration(
      set,
      recorded
        ? {
            cpu: () => recorded.cpuProbeSeconds,
            write: () => recorded.writeProbeSeconds ?? undefined,
            ...(modelThen ? { model: () => modelThen } : {}),
          }
        : probes,
    );
    if (!calibration) continue;
    const finished = new Map<string, number>();
    for (const t of storedTrials(dir)) {
      const wallSeconds = storedWallSeconds(t, model);
      if (typeof t.key === "string" && wallSeconds !== undefined) finished.set(t.key, wallSeconds);
    }
    const units = model.units(params as P, true, { root, notebook }).filter((u) => finished.has(u.key));
    if (!units.length) continue;
    const measuredSeconds = units.reduce((t, u) => t + (finished.get(u.key) ?? 0), 0);
    const estimatedSeconds = units.reduce((t, u) => t + unitSeconds(u, calibration), 0);
    out.push({ run: path.basename(dir), trials: units.length, measuredSeconds, estimatedSeconds });
  }
  return out;
}

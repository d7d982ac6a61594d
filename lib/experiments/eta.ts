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
 * times rates fitted from the stored smoke runs of a 2-core Xeon (each model's `reference`), where
 * the same probe took `REFERENCE_PROBE_SECONDS`. CPU only: a disk with a slower fsync than the
 * reference's makes 02's and 05's trials longer than said.
 */
import crypto from "node:crypto";
import fs from "node:fs";
import path from "node:path";
import { linearRegression, mean, median } from "simple-statistics";
import { resultsRoot } from "../results/run-store";
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
 * Measured on 02 here (AMD EPYC, 2 vCPU): loading into an indexed table took 3.5 s at 1M rows, 55 s
 * at 10M, 175 s at 30M and 693 s at 100M (exponent 1.15), loading then indexing 2.1, 19, 64 and
 * 201 s (0.99); a single per-row rate from a default run's 3M-row trials put the 100M pair at
 * ~500 s against 893 s.
 */
export interface KindGrowth {
  readonly size: number;
  readonly seconds: number;
  readonly exponent: number;
  /**
   * The kind's untimed seconds (wall − timed) at `size`, median: its setup grows with the size at
   * its own rate. 02's CREATE INDEX sweeps load their table untimed (3M rows: ~6 s here), where its
   * loads time the load itself; one untimed rate over every kind put a 100M-row sweep's load at
   * seconds instead of minutes.
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
   * that grows with size makes the estimate short, a timed part measured on tiny trials (fixed
   * per-statement costs) makes it long — 01's default from smoke runs alone reads ~8 min for ~4.
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
   * Rates for the no-stored-runs fallback, fitted on the reference machine (`REFERENCE_PROBE_SECONDS`)
   * and scaled by this machine's CPU probe; without them, no ETA until a run is stored.
   */
  readonly reference?: ReferenceRates;
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

/**
 * Timed seconds below this say more about fixed per-trial costs than about growth: 02's smoke loads
 * (5,000 rows) take ~10 ms. 07's default passes (100,000 rows) take 0.13–0.92 s, median 0.46 s, and
 * grow ×15 to 1M rows (the table outgrows shared_buffers): a bar at 0.5 s left that growth out.
 */
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
  // A slope read over less than a decade of sizes is shrunk toward linear in proportion to the
  // decades it spans: 02's default run here (1M and 3M rows) read 1.34 for loading into an indexed
  // table, which put its 100M-row trials at 2.1× their 11 min; 3M to 100M measured 1.10.
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
      ? " (rough: the stored trials' setup was seen at one size only; it grows with the size as on the reference machine)"
      : "";
  const max =
    e.maxSeconds > e.seconds * 1.05
      ? `, up to ${formatDuration(e.maxSeconds).replace("about ", "")} with every adaptive round`
      : "";
  const trials = e.remaining === e.planned ? `${e.planned} trials` : `${e.remaining} of ${e.planned} trials left`;
  const resume = runId ? `; resumable with npm run reproduce -- --resume ${runId}` : "";
  if (e.remaining === 0) return `nothing left to run here (${e.planned} of ${e.planned} trials done)`;
  const setup = e.setup ? ` and ${e.setup.text}` : "";
  return `${formatDuration(e.seconds)} here${max}${bound}; ${trials}, per-trial time from ${e.calibration.source}${growthText(e.calibration)}${setup}${resume}`;
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

/**
 * The reference machine of the models' `reference` rates: the 2-core Xeon this lab was built on,
 * where the CPU probe took this long.
 */
export const REFERENCE_PROBE_SECONDS = 0.05;

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

/** This machine's calibration for a notebook: its stored runs, else the CPU probe times the reference. */
export function calibrate(
  notebook: string,
  model: Pick<EtaModel<never>, "size" | "kind" | "apart" | "reference">,
  root: string = resultsRoot(),
  probe: () => number = cpuProbeSeconds,
): Calibration | undefined {
  const { samples, runs } = storedSamples(notebook, model, root);
  const fitted = fitCalibration(samples, `${runs} stored run(s) of this notebook here`);
  if (!fitted) return probeCalibration(model, probe);
  return withReferenceShape(fitted, samples, model.reference);
}

/**
 * A stored fit grown past what its trials can say as the reference grows: this machine's level (its
 * medians at the stored sizes), the reference machine's shape.
 * - Each kind's growth exponent past its largest stored size: the reference's, where the reference
 *   saw that kind at a larger size and grew steeper. 07's pass took a median 0.46 s a trial at
 *   100,000 rows and 7.0 s at 1M (exponent 1.18: the table outgrows shared_buffers); 01's default
 *   run read its full run 0.69×, its writes growing by size^1.1–1.2 past 100,000 rows. Neither a
 *   default run's one size nor its two can tell.
 * - Stored trials seen at one size only: the untimed part, split into overhead and per-size cost as
 *   the reference splits it. Taken as constant, one default run of 07 (0.33 s of load, indexes and
 *   VACUUM a trial) put its full run at about 7 min for 13 min 24 s of trials, whose untimed part
 *   was 3.0 s at 1M rows.
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

/** The no-stored-runs calibration: the model's reference rates times this machine's CPU probe ÷ the reference's. */
export function probeCalibration(
  model: Pick<EtaModel<never>, "reference">,
  probe: () => number = cpuProbeSeconds,
): Calibration | undefined {
  const reference = model.reference;
  if (!reference) return undefined;
  const factor = probe() / REFERENCE_PROBE_SECONDS;
  return {
    ...scaledRates(reference, factor),
    source: `a CPU probe, ${factor.toFixed(2)}× the reference machine's time (no stored run of this notebook here)`,
  };
}

/**
 * Rates with every duration times `factor`: the fitted seconds, and each kind's seconds at its size
 * (its size and growth exponent are the workload's, not the machine's). The kinds are kept: without
 * them a reference cannot say that 02's loads into an indexed table grow faster than the rows.
 */
export function scaledRates(r: ReferenceRates, factor: number): ReferenceRates {
  const kinds = r.kinds
    ? Object.fromEntries(
        Object.entries(r.kinds).map(([k, g]) => [
          k,
          { ...g, seconds: g.seconds * factor, untimedSeconds: g.untimedSeconds * factor },
        ]),
      )
    : undefined;
  return {
    timedPerSizeSeconds: r.timedPerSizeSeconds * factor,
    overheadSeconds: r.overheadSeconds * factor,
    untimedPerSizeSeconds: r.untimedPerSizeSeconds * factor,
    constantSetup: r.constantSetup,
    ...(kinds ? { kinds } : {}),
  };
}

/**
 * A notebook's reference rates from this machine's stored runs (`npm run eta:reference` prints them
 * for a model's `reference`): the stored runs' fit, at the reference machine's speed (× its probe ÷
 * this machine's). Undefined without a stored trial.
 */
export function referenceFromStored(
  notebook: string,
  model: Pick<EtaModel<never>, "size" | "kind" | "apart">,
  root: string,
  probeSeconds: number,
): ReferenceRates | undefined {
  const fitted = fitCalibration(storedSamples(notebook, model, root).samples, "");
  if (!fitted) return undefined;
  const { source: _source, ...rates } = fitted;
  return scaledRates(rates, REFERENCE_PROBE_SECONDS / probeSeconds);
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

/** One stored run, its trials' measured seconds beside what the probe's calibration says of them. */
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
 * (another version's keys) are left out. `reference`: rates to read them with instead of the model's.
 */
export function probeCheck<P>(
  notebook: string,
  model: EtaModel<P>,
  root: string,
  probe: () => number = cpuProbeSeconds,
  reference: ReferenceRates | undefined = model.reference,
): ProbeCheck[] {
  const calibration = probeCalibration({ reference }, probe);
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

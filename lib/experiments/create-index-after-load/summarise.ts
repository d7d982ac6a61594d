/**
 * Notebook 02's figures, from the raw trials: per method the median time and its phases, the
 * server counters summed over the timed phases (median over trials), the index's shape; per pair
 * of methods the ratio of medians with a bootstrap interval; the CREATE INDEX sweep; the WAL by
 * record type.
 */
import { median } from "simple-statistics";
import { groupBy, ratioOfMedians, spread, type TrialSeconds } from "../../stats/summary";
import type { IndexShape } from "../../workloads/create-index-after-load/index-shape";
import { conditionKey, type CialCondition, type Method } from "../../workloads/create-index-after-load/plan";
import type { CialTrial } from "../../workloads/create-index-after-load/run-trials";
import { PHASES, type PhaseName, type PhaseRecord } from "../../workloads/create-index-after-load/session";
import type { KeyOrder } from "../../workloads/create-index-after-load/sql";
import type { WalRecordType } from "../../workloads/create-index-after-load/wal-anatomy";

/** The phases the seed timed: A = INSERT + CREATE INDEX; B = INSERT (its index existed already). */
export function timedPhases(method: Method): readonly PhaseName[] {
  return method === "load_then_index" ? ["load", "index"] : ["load"];
}

export interface MethodSummary extends TrialSeconds {
  readonly condition: CialCondition;
  /** Median ms per phase, every phase that ran (B's CREATE INDEX on the empty table included). */
  readonly phaseMs: Readonly<Partial<Record<PhaseName, number>>>;
  /** Median over trials of each server counter summed over the timed phases. */
  readonly totals: Readonly<Record<string, number>>;
  /** Median counters of the closing CHECKPOINT: the write-back each method left behind. */
  readonly deferred: Readonly<Record<string, number>>;
  /** Median counters of every phase on its own. */
  readonly byPhase: Readonly<Partial<Record<PhaseName, Readonly<Record<string, number>>>>>;
  /** Median CPU (user + system) per phase, s: backend plus parallel sort workers. */
  readonly phaseCpuS: Readonly<Partial<Record<PhaseName, number>>>;
  /** Median CPU (user + system) over the timed phases, s: the backend plus its parallel sort workers. */
  readonly backendCpuS?: number;
  /** Median file-system blocks the backend wrote over the timed phases (512 B each). */
  readonly backendBlocksOut?: number;
  /** Median times the backend was preempted over the timed phases: it was runnable, another process ran. */
  readonly involuntarySwitches?: number;
  /** Median host 1-minute load average over the trials (mean of start and end). */
  readonly hostLoad?: number;
  readonly index?: IndexShape;
  /** The CREATE INDEX sort of the median trial. */
  readonly sortSpilled?: boolean;
  readonly sortParticipants?: number;
}

export interface PairSummary {
  readonly rows: number;
  readonly keyOrder: KeyOrder;
  readonly maintenanceWorkMemMB: number;
  readonly parallelWorkers: number;
  readonly a?: MethodSummary;
  readonly b?: MethodSummary;
  /** median(B) / median(A), with a bootstrap 95 % interval. */
  readonly ratio?: number;
  readonly ratioCiLow?: number;
  readonly ratioCiHigh?: number;
  readonly rangesOverlap?: boolean;
}

export interface BuildSummary {
  readonly rows: number;
  readonly maintenanceWorkMemMB: number;
  readonly parallelWorkers: number;
  readonly trials: number;
  readonly seconds: readonly number[];
  readonly medianSeconds: number;
  readonly minSeconds: number;
  readonly maxSeconds: number;
  readonly tempFiles: number;
  readonly tempBytes: number;
  readonly spilled?: boolean;
  readonly participants?: number;
  readonly maxRuns?: number;
  readonly leaderCpuS?: number;
  readonly workerCpuS?: number;
  readonly sortLines: readonly string[];
}

export interface WalTypeRow {
  readonly phase: PhaseName;
  readonly type: string;
  readonly count: number;
  readonly perRow: number;
  readonly recordBytes: number;
  readonly fpiBytes: number;
}

export interface WalAnatomySummary {
  readonly method: Method;
  readonly rows: number;
  readonly types: readonly WalTypeRow[];
}

export interface CialSummary {
  readonly headline: { readonly rows: number; readonly maintenanceWorkMemMB: number; readonly parallelWorkers: number };
  readonly methods: readonly MethodSummary[];
  readonly pairs: readonly PairSummary[];
  readonly builds: readonly BuildSummary[];
  readonly walAnatomy: readonly WalAnatomySummary[];
}

/** CPU of a phase: the backend's getrusage() plus what its parallel sort workers reported. */
export function cpuOfPhase(p: PhaseRecord): number | undefined {
  return p.backend ? p.backend.userS + p.backend.systemS + (p.sort?.workerCpuS ?? 0) : undefined;
}

const ok = (t: CialTrial) => t.status === "ok" && t.seconds !== undefined;

function medianOf(values: readonly (number | undefined)[]): number | undefined {
  const v = values.filter((x): x is number => x !== undefined && Number.isFinite(x));
  return v.length ? median(v) : undefined;
}

/** Counters of the given phases of one trial, summed per counter ("load.wal.records" + "index.wal.records"). */
export function phaseSums(trial: CialTrial, phases: readonly PhaseName[]): Record<string, number> {
  const sums: Record<string, number> = {};
  for (const [key, value] of Object.entries(trial.counters ?? {})) {
    const dot = key.indexOf(".");
    const phase = key.slice(0, dot) as PhaseName;
    const name = key.slice(dot + 1);
    if (!phases.includes(phase)) continue;
    // Sizes are levels, not flows: the last phase's value stands.
    sums[name] = name.startsWith("size.") ? value : (sums[name] ?? 0) + value;
  }
  return sums;
}

function medianRecord(records: readonly Record<string, number>[]): Record<string, number> {
  const keys = new Set(records.flatMap((r) => Object.keys(r)));
  const out: Record<string, number> = {};
  for (const k of keys) out[k] = medianOf(records.map((r) => r[k] ?? 0)) ?? 0;
  return out;
}

function phaseOf(trial: CialTrial, phase: PhaseName): PhaseRecord | undefined {
  return trial.phases?.find((p) => p.phase === phase);
}

function medianShape(shapes: readonly (IndexShape | undefined)[]): IndexShape | undefined {
  const s = shapes.filter((x): x is IndexShape => x !== undefined);
  if (!s.length) return undefined;
  const m = (pick: (x: IndexShape) => number) => medianOf(s.map(pick))!;
  return {
    treeLevel: m((x) => x.treeLevel),
    indexBytes: m((x) => x.indexBytes),
    tableBytes: m((x) => x.tableBytes),
    leafPages: m((x) => x.leafPages),
    internalPages: m((x) => x.internalPages),
    emptyPages: m((x) => x.emptyPages),
    deletedPages: m((x) => x.deletedPages),
    avgLeafDensity: m((x) => x.avgLeafDensity),
    leafFragmentation: m((x) => x.leafFragmentation),
  };
}

/** The trial whose time is the median (lower middle): its sort trace stands for the condition. */
function medianTrial(trials: readonly CialTrial[]): CialTrial {
  const sorted = [...trials].sort((x, y) => x.seconds! - y.seconds!);
  return sorted[Math.floor((sorted.length - 1) / 2)];
}

function summariseMethod(group: readonly CialTrial[], failed: number): MethodSummary {
  const c = group[0].condition;
  const timed = timedPhases(c.method);
  const s = spread(group.map((t) => t.seconds!));
  const phaseMs: Partial<Record<PhaseName, number>> = {};
  const phaseCpuS: Partial<Record<PhaseName, number>> = {};
  const byPhase: Partial<Record<PhaseName, Record<string, number>>> = {};
  for (const phase of PHASES) {
    const m = medianOf(group.map((t) => phaseOf(t, phase)?.ms));
    if (m === undefined) continue;
    phaseMs[phase] = m;
    byPhase[phase] = medianRecord(group.map((t) => phaseSums(t, [phase])));
    const cpu = medianOf(group.map((t) => {
      const rec = phaseOf(t, phase);
      return rec ? cpuOfPhase(rec) : undefined;
    }));
    if (cpu !== undefined) phaseCpuS[phase] = cpu;
  }
  const sumBackend = (t: CialTrial, pick: (p: PhaseRecord) => number | undefined) => {
    const values = timed.map((p) => {
      const rec = phaseOf(t, p);
      return rec ? pick(rec) : undefined;
    });
    return values.some((v) => v === undefined) ? undefined : values.reduce<number>((a, v) => a + v!, 0);
  };
  const sort = phaseOf(medianTrial(group), "index")?.sort;
  return {
    condition: c,
    trials: group.length,
    failed,
    seconds: s.values,
    medianSeconds: s.median,
    minSeconds: s.min,
    maxSeconds: s.max,
    phaseMs,
    totals: medianRecord(group.map((t) => phaseSums(t, timed))),
    deferred: medianRecord(group.map((t) => phaseSums(t, ["checkpoint"]))),
    byPhase,
    phaseCpuS,
    backendCpuS: medianOf(group.map((t) => sumBackend(t, cpuOfPhase))),
    backendBlocksOut: medianOf(group.map((t) => sumBackend(t, (p) => p.backend?.fsBlocksOut))),
    involuntarySwitches: medianOf(group.map((t) => sumBackend(t, (p) => p.backend?.involuntarySwitches))),
    hostLoad: medianOf(group.map((t) => (t.loadAverage ? (t.loadAverage[0] + t.loadAverage[1]) / 2 : undefined))),
    index: medianShape(group.map((t) => t.index)),
    sortSpilled: c.method === "load_then_index" ? sort?.spilled : undefined,
    sortParticipants: c.method === "load_then_index" ? sort?.parallelParticipants : undefined,
  };
}

function summariseBuild(group: readonly CialTrial[]): BuildSummary {
  const c = group[0].condition;
  const s = spread(group.map((t) => t.seconds!));
  const sums = medianRecord(group.map((t) => phaseSums(t, ["index"])));
  const mid = phaseOf(medianTrial(group), "index");
  return {
    rows: c.rows,
    maintenanceWorkMemMB: c.maintenanceWorkMemMB,
    parallelWorkers: c.parallelWorkers,
    trials: group.length,
    seconds: s.values,
    medianSeconds: s.median,
    minSeconds: s.min,
    maxSeconds: s.max,
    tempFiles: sums["db.temp_files"] ?? 0,
    tempBytes: sums["db.temp_bytes"] ?? 0,
    spilled: mid?.sort?.spilled,
    participants: mid?.sort?.parallelParticipants,
    maxRuns: mid?.sort?.maxRuns,
    leaderCpuS: mid?.backend ? mid.backend.userS + mid.backend.systemS : undefined,
    workerCpuS: mid?.sort?.workerCpuS,
    sortLines: mid?.sort?.lines ?? [],
  };
}

function summariseAnatomy(trial: CialTrial): WalAnatomySummary {
  const c = trial.condition;
  const types: WalTypeRow[] = [];
  for (const phase of timedPhases(c.method)) {
    for (const t of (trial.walAnatomy?.[phase] ?? []) as readonly WalRecordType[]) {
      types.push({ phase, type: t.type, count: t.count, perRow: t.count / c.rows, recordBytes: t.recordBytes, fpiBytes: t.fpiBytes });
    }
  }
  return { method: c.method, rows: c.rows, types };
}

export interface HeadlineSettings {
  readonly rows: number;
  readonly maintenanceWorkMemMB: number;
  readonly maxParallelMaintenanceWorkers: number;
}

export function summarise(trials: readonly CialTrial[], headline: HeadlineSettings): CialSummary {
  const good = trials.filter(ok);
  const failedByKey = groupBy(trials.filter((t) => t.status === "failed"), (t) => conditionKey(t.condition));
  const loads = groupBy(good.filter((t) => t.condition.kind === "load"), (t) => conditionKey(t.condition));
  const methods = [...loads.values()].map((g) => summariseMethod(g, failedByKey.get(conditionKey(g[0].condition))?.length ?? 0));
  const pairGroups = groupBy(methods, (m) => `${m.condition.rows}|${m.condition.keyOrder}|${m.condition.maintenanceWorkMemMB}|${m.condition.parallelWorkers}`);
  const pairs: PairSummary[] = [...pairGroups.values()].map((g) => {
    const a = g.find((m) => m.condition.method === "load_then_index");
    const b = g.find((m) => m.condition.method === "index_then_load");
    const r = a && b ? ratioOfMedians(b.seconds, a.seconds) : undefined;
    const c = g[0].condition;
    return {
      rows: c.rows,
      keyOrder: c.keyOrder,
      maintenanceWorkMemMB: c.maintenanceWorkMemMB,
      parallelWorkers: c.parallelWorkers,
      a,
      b,
      ratio: r?.ratio,
      ratioCiLow: r?.ciLow,
      ratioCiHigh: r?.ciHigh,
      rangesOverlap: r?.rangesOverlap,
    };
  });
  pairs.sort((x, y) => x.rows - y.rows || x.keyOrder.localeCompare(y.keyOrder));
  const builds = [...groupBy(good.filter((t) => t.condition.kind === "build"), (t) => conditionKey(t.condition)).values()]
    .map(summariseBuild)
    .sort((x, y) => x.maintenanceWorkMemMB - y.maintenanceWorkMemMB || x.parallelWorkers - y.parallelWorkers);
  const walAnatomy = good.filter((t) => t.condition.kind === "wal_anatomy" && t.walAnatomy).map(summariseAnatomy);
  return {
    headline: { rows: headline.rows, maintenanceWorkMemMB: headline.maintenanceWorkMemMB, parallelWorkers: headline.maxParallelMaintenanceWorkers },
    methods,
    pairs,
    builds,
    walAnatomy,
  };
}

/** The headline pair: the seed's protocol at `rows`, random keys, the server's own settings. */
export function headlinePair(s: CialSummary): PairSummary | undefined {
  return s.pairs.find(
    (p) =>
      p.rows === s.headline.rows &&
      p.keyOrder === "random" &&
      p.maintenanceWorkMemMB === s.headline.maintenanceWorkMemMB &&
      p.parallelWorkers === s.headline.parallelWorkers,
  );
}

/** Pairs with random keys and the headline's settings, by row count: the size sweep. */
export function sizeSweep(s: CialSummary): PairSummary[] {
  return s.pairs
    .filter((p) => p.keyOrder === "random" && p.maintenanceWorkMemMB === s.headline.maintenanceWorkMemMB && p.parallelWorkers === s.headline.parallelWorkers)
    .sort((x, y) => x.rows - y.rows);
}

/** I/O wait the server timed (track_io_timing, track_wal_io_timing), ms, from summed counters. */
export function ioWaitMs(c: Readonly<Record<string, number>>): number {
  return (c["db.blk_read_time_ms"] ?? 0) + (c["db.blk_write_time_ms"] ?? 0) + (c["wal.write_time_ms"] ?? 0) + (c["wal.sync_time_ms"] ?? 0);
}

export function checkpoints(c: Readonly<Record<string, number>>): number {
  return (c["checkpointer.timed"] ?? 0) + (c["checkpointer.requested"] ?? 0);
}

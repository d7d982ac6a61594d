/**
 * Notebook 02's figures, from the raw trials: per method the median time and its phases, the
 * server counters summed over the timed phases (median over trials), the index's shape; per pair
 * of methods the repeats side by side (A and B of one repeat ran back to back) and the B/A ratio
 * per repeat with an exact interval of its median over repeats; the CREATE INDEX sweep; the WAL by
 * record type.
 */
import { sameStatePairs, speedSpread, type SpeedSpread, type StatePairs } from "../../stats/speed";
import { outlierFlags, type Interval } from "../../stats/intervals";
import { medianOf, quotient } from "../../stats/claim-statistics";
import { isOk, type OkOf } from "../../results/run-store";
import { groupBy, spread, type TrialSeconds, medianOfFinite } from "../../stats/summary";
import type { IndexShape } from "./workload/index-shape";
import { conditionKey, type CreateIndexCondition, type Method } from "./workload/plan";
import type { CreateIndexTrial } from "./workload/run-trials";
import {
  isCreateIndexCounterKey,
  PHASES,
  type CreateIndexCounterKey,
  type PhaseName,
  type PhaseRecord,
} from "./workload/session";
import { counterEntries, type Counters } from "../../stats/counters";
import type { KeyOrder } from "./workload/sql";

/** The phases the seed timed: A = INSERT + CREATE INDEX; B = INSERT (its index existed already). */
export function timedPhases(method: Method): readonly PhaseName[] {
  return method === "load_then_index" ? ["load", "index"] : ["load"];
}

export interface MethodSummary extends TrialSeconds {
  readonly condition: CreateIndexCondition;
  /** Median ms per phase, every phase that ran (B's CREATE INDEX on the empty table included). */
  readonly phaseMs: Readonly<Partial<Record<PhaseName, number>>>;
  /** Median over trials of each server counter summed over the timed phases. */
  readonly totals: Counters<CreateIndexCounterKey>;
  /** Median counters of the closing CHECKPOINT: the write-back each method left behind. */
  readonly deferred: Counters<CreateIndexCounterKey>;
  /** Median counters of every phase on its own. */
  readonly byPhase: Readonly<Partial<Record<PhaseName, Counters<CreateIndexCounterKey>>>>;
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

/** One method's trial within a repeat: the figures the claims pair with the other method's. */
export interface RepeatSide {
  readonly key: string;
  /** Place in the repeat's order (0 = ran first). */
  readonly position?: number;
  /** The seed's measure, client wall time over the timed phases. */
  readonly seconds: number;
  /** The server's own elapsed time for the timed statements (log_statement_stats): no client path in it. */
  readonly serverSeconds?: number;
  /** CPU of the backend and its parallel sort workers over the timed phases. */
  readonly cpuS?: number;
  /** Timed I/O wait (blk read/write, WAL write/sync) over the timed phases, ms. */
  readonly ioWaitMs: number;
  /** Block I/O wait alone (blk_read_time + blk_write_time), ms: what "block I/O" means in the seed. */
  readonly blockIoMs: number;
  readonly walRecords: number;
  /** Blocks read into shared buffers (pg_stat_database blks_read) over the timed phases. */
  readonly blksRead?: number;
  readonly indexBytes?: number;
  /** Checkpoints the method's own WAL volume requested inside its timed phases: part of its cost. */
  readonly requestedCheckpoints: number;
  /** Checkpoints on checkpoint_timeout inside the timed phases: chance, not the method. */
  readonly timedCheckpoints: number;
  /** Autovacuum or autoanalyze runs inside the timed phases. */
  readonly autovacuumRuns: number;
  /** Far from the other trials of its condition (OUTLIER_RULE on seconds). */
  readonly outlier: boolean;
  /** The write-path speed probe's median just before the trial, ms. */
  readonly speedMs?: number;
}

/** A and B of one repeat: they ran back to back, so their ratio leaves the machine's drift out. */
export interface RepeatPair {
  readonly repeat: number;
  readonly a: RepeatSide;
  readonly b: RepeatSide;
  /** Which method ran first. */
  readonly first?: Method;
  /** Either trial is an outlier or shared its timed window with a timed checkpoint or autovacuum. */
  readonly flagged: boolean;
  readonly flags: readonly string[];
}

export interface PairSummary {
  readonly rows: number;
  readonly keyOrder: KeyOrder;
  readonly maintenanceWorkMemMB: number;
  readonly parallelWorkers: number;
  /** Distinct codes, when not the seed's 10,001 (claim 4's pairs). */
  readonly codes?: number;
  /** The second server's shared_buffers, MB, when the pair ran there (the `cacheRows` pairs). */
  readonly sharedBuffersMB?: number;
  readonly a?: MethodSummary;
  readonly b?: MethodSummary;
  /** Repeats where both methods finished, by repeat. */
  readonly repeats: readonly RepeatPair[];
  /** B/A of the seed's measure per repeat, over every repeat: median and exact interval. */
  readonly timeRatio?: Interval;
  /** B/A of the server's own elapsed time per repeat. */
  readonly serverTimeRatio?: Interval;
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

export interface CreateIndexSummary {
  readonly headline: {
    readonly rows: number;
    readonly maintenanceWorkMemMB: number;
    readonly parallelWorkers: number;
    readonly sharedBuffersMB?: number;
  };
  readonly methods: readonly MethodSummary[];
  readonly pairs: readonly PairSummary[];
  readonly builds: readonly BuildSummary[];
  readonly walAnatomy: readonly WalAnatomySummary[];
  /** The write-path speed probe over the trials: A and B are separate runs, so B/A carries its spread. */
  readonly speed?: SpeedSpread;
}

/** CPU of a phase: the backend's getrusage() plus what its parallel sort workers reported. */
export function cpuOfPhase(p: PhaseRecord): number | undefined {
  return p.backend ? p.backend.userS + p.backend.systemS + (p.sort?.workerCpuS ?? 0) : undefined;
}

/** A trial that finished, with its timed total. */
type OkTrial = OkOf<CreateIndexTrial>;

/** Counters of the given phases of one trial, summed per counter ("load.wal.records" + "index.wal.records"). */
export function phaseSums(trial: CreateIndexTrial, phases: readonly PhaseName[]): Counters<CreateIndexCounterKey> {
  const sums: Partial<Record<CreateIndexCounterKey, number>> = {};
  for (const [key, value] of counterEntries(trial.counters)) {
    const dot = key.indexOf(".");
    const phase = key.slice(0, dot);
    const name = key.slice(dot + 1);
    // A name this version does not collect (a run on disk from another one) has no reader: left out.
    if (!phases.some((p) => p === phase) || !isCreateIndexCounterKey(name)) continue;
    // Sizes are levels, not flows: the last phase's value stands.
    sums[name] = name.startsWith("size.") ? value : (sums[name] ?? 0) + value;
  }
  return sums;
}

function medianRecord(records: readonly Counters<CreateIndexCounterKey>[]): Counters<CreateIndexCounterKey> {
  const keys = new Set(records.flatMap((r) => counterEntries(r).map(([k]) => k)));
  const out: Partial<Record<CreateIndexCounterKey, number>> = {};
  for (const k of keys) if (isCreateIndexCounterKey(k)) out[k] = medianOfFinite(records.map((r) => r[k] ?? 0)) ?? 0;
  return out;
}

function phaseOf(trial: CreateIndexTrial, phase: PhaseName): PhaseRecord | undefined {
  return trial.phases?.find((p) => p.phase === phase);
}

function medianShape(shapes: readonly (IndexShape | undefined)[]): IndexShape | undefined {
  const s = shapes.filter((x): x is IndexShape => x !== undefined);
  if (!s.length) return undefined;
  // NaN only if every trial's value is non-finite (pgstatindex of an empty index): shown as such, not hidden.
  const m = (pick: (x: IndexShape) => number) => medianOfFinite(s.map(pick)) ?? Number.NaN;
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
function medianTrial(trials: readonly OkTrial[]): OkTrial {
  const sorted = [...trials].sort((x, y) => x.seconds - y.seconds);
  return sorted[Math.floor((sorted.length - 1) / 2)];
}

function summariseMethod(group: readonly OkTrial[], failed: number): MethodSummary {
  const c = group[0].condition;
  const timed = timedPhases(c.method);
  const s = spread(group.map((t) => t.seconds));
  const phaseMs: Partial<Record<PhaseName, number>> = {};
  const phaseCpuS: Partial<Record<PhaseName, number>> = {};
  const byPhase: Partial<Record<PhaseName, Counters<CreateIndexCounterKey>>> = {};
  for (const phase of PHASES) {
    const m = medianOfFinite(group.map((t) => phaseOf(t, phase)?.ms));
    if (m === undefined) continue;
    phaseMs[phase] = m;
    byPhase[phase] = medianRecord(group.map((t) => phaseSums(t, [phase])));
    const cpu = medianOfFinite(
      group.map((t) => {
        const rec = phaseOf(t, phase);
        return rec ? cpuOfPhase(rec) : undefined;
      }),
    );
    if (cpu !== undefined) phaseCpuS[phase] = cpu;
  }
  const sumBackend = (t: CreateIndexTrial, pick: (p: PhaseRecord) => number | undefined) => {
    const values = timed.map((p) => {
      const rec = phaseOf(t, p);
      return rec ? pick(rec) : undefined;
    });
    const defined = values.filter((v): v is number => v !== undefined);
    return defined.length < values.length ? undefined : defined.reduce((a, v) => a + v, 0);
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
    backendCpuS: medianOfFinite(group.map((t) => sumBackend(t, cpuOfPhase))),
    backendBlocksOut: medianOfFinite(group.map((t) => sumBackend(t, (p) => p.backend?.fsBlocksOut))),
    involuntarySwitches: medianOfFinite(group.map((t) => sumBackend(t, (p) => p.backend?.involuntarySwitches))),
    hostLoad: medianOfFinite(group.map((t) => (t.loadAverage ? (t.loadAverage[0] + t.loadAverage[1]) / 2 : undefined))),
    index: medianShape(group.map((t) => t.index)),
    sortSpilled: c.method === "load_then_index" ? sort?.spilled : undefined,
    sortParticipants: c.method === "load_then_index" ? sort?.parallelParticipants : undefined,
  };
}

function summariseBuild(group: readonly OkTrial[]): BuildSummary {
  const c = group[0].condition;
  const s = spread(group.map((t) => t.seconds));
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

function repeatSide(t: CreateIndexTrial, outlier: boolean): RepeatSide {
  const timed = timedPhases(t.condition.method);
  const sums = phaseSums(t, timed);
  const records = timed.map((p) => phaseOf(t, p));
  const all = <T>(pick: (p: PhaseRecord) => T | undefined): T[] | undefined => {
    const v = records.map((r) => (r ? pick(r) : undefined));
    return v.every((x) => x !== undefined) ? v : undefined;
  };
  const sum = (v: number[] | undefined) => (v ? v.reduce((a, x) => a + x, 0) : undefined);
  return {
    key: t.key,
    position: t.position,
    seconds: t.seconds ?? NaN,
    serverSeconds: sum(all((p) => p.backend?.elapsedS)),
    cpuS: sum(all(cpuOfPhase)),
    ioWaitMs: ioWaitMs(sums),
    blockIoMs: blockIoMs(sums),
    walRecords: sums["wal.records"] ?? 0,
    blksRead: sums["db.blks_read"],
    indexBytes: t.index?.indexBytes,
    requestedCheckpoints: sums["checkpointer.requested"] ?? 0,
    timedCheckpoints: sums["checkpointer.timed"] ?? 0,
    autovacuumRuns: sums["autovacuum.runs"] ?? 0,
    outlier,
    ...(t.speed ? { speedMs: t.speed.medianMs } : {}),
  };
}

function sideFlags(label: string, s: RepeatSide): string[] {
  const out: string[] = [];
  if (s.outlier) out.push(`${label} outlier`);
  if (s.timedCheckpoints > 0) out.push(`${label} timed checkpoint`);
  if (s.autovacuumRuns > 0) out.push(`${label} autovacuum`);
  return out;
}

/** Pairs A and B by repeat; outliers are judged within each method's trials of the pair. */
export function repeatPairs(aTrials: readonly CreateIndexTrial[], bTrials: readonly CreateIndexTrial[]): RepeatPair[] {
  const sides = (trials: readonly CreateIndexTrial[]) => {
    const flags = outlierFlags(trials.map((t) => t.seconds ?? NaN));
    return new Map(trials.map((t, i) => [t.repeat, repeatSide(t, flags[i])]));
  };
  const a = sides(aTrials);
  const b = sides(bTrials);
  const out: RepeatPair[] = [];
  for (const [repeat, sa] of a) {
    const sb = b.get(repeat);
    if (!sb) continue;
    const flags = [...sideFlags("A", sa), ...sideFlags("B", sb)];
    const first: Method | undefined =
      sa.position === undefined || sb.position === undefined
        ? undefined
        : sa.position < sb.position
          ? "load_then_index"
          : "index_then_load";
    out.push({ repeat, a: sa, b: sb, first, flagged: flags.length > 0, flags });
  }
  return out.sort((x, y) => x.repeat - y.repeat);
}

/**
 * PAIR_STATE_RULE on a pair's repeats: A and B are separate trials, so a repeat whose two probes
 * differ by more than the rule's factor may compare two machine states; every repeat enters the
 * time statistics, and the claims say whether the verdict stands without such repeats.
 */
export function sameStateRepeats(repeats: readonly RepeatPair[]): StatePairs<RepeatPair> {
  return sameStatePairs(
    repeats,
    (r) => [r.a.speedMs, r.b.speedMs],
    (r) => `repeat ${r.repeat}`,
  );
}

export const TIME_RATIO_OF = "B/A seconds per repeat (A and B back to back)";
export const SERVER_TIME_RATIO_OF = "B/A server elapsed time per repeat (log_statement_stats)";

export function timeRatio(repeats: readonly RepeatPair[]): Interval | undefined {
  return medianOf(repeats, (r) => quotient(r.b.seconds, r.a.seconds), TIME_RATIO_OF);
}

export function serverTimeRatio(repeats: readonly RepeatPair[]): Interval | undefined {
  return medianOf(repeats, (r) => quotient(r.b.serverSeconds, r.a.serverSeconds), SERVER_TIME_RATIO_OF);
}

function summariseAnatomy(trial: CreateIndexTrial): WalAnatomySummary {
  const c = trial.condition;
  const types: WalTypeRow[] = [];
  for (const phase of timedPhases(c.method)) {
    for (const t of trial.walAnatomy?.[phase] ?? []) {
      types.push({
        phase,
        type: t.type,
        count: t.count,
        perRow: t.count / c.rows,
        recordBytes: t.recordBytes,
        fpiBytes: t.fpiBytes,
      });
    }
  }
  return { method: c.method, rows: c.rows, types };
}

export interface HeadlineSettings {
  readonly rows: number;
  readonly maintenanceWorkMemMB: number;
  readonly maxParallelMaintenanceWorkers: number;
  readonly sharedBuffersMB?: number;
}

export function summarise(trials: readonly CreateIndexTrial[], headline: HeadlineSettings): CreateIndexSummary {
  const good = trials.filter(isOk);
  const failedByKey = groupBy(
    trials.filter((t) => t.status === "failed"),
    (t) => conditionKey(t.condition),
  );
  const loads = groupBy(
    good.filter((t) => t.condition.kind === "load"),
    (t) => conditionKey(t.condition),
  );
  const methods = [...loads.values()].map((g) =>
    summariseMethod(g, failedByKey.get(conditionKey(g[0].condition))?.length ?? 0),
  );
  const pairGroups = groupBy(
    methods,
    (m) =>
      `${m.condition.rows}|${m.condition.keyOrder}|${m.condition.maintenanceWorkMemMB}|${m.condition.parallelWorkers}` +
      `|${m.condition.codes ?? ""}|${m.condition.sharedBuffersMB ?? ""}`,
  );
  const trialsOf = (m: MethodSummary | undefined) => (m ? (loads.get(conditionKey(m.condition)) ?? []) : []);
  const pairs: PairSummary[] = [...pairGroups.values()].map((g) => {
    const a = g.find((m) => m.condition.method === "load_then_index");
    const b = g.find((m) => m.condition.method === "index_then_load");
    const repeats = repeatPairs(trialsOf(a), trialsOf(b));
    const c = g[0].condition;
    return {
      rows: c.rows,
      keyOrder: c.keyOrder,
      maintenanceWorkMemMB: c.maintenanceWorkMemMB,
      parallelWorkers: c.parallelWorkers,
      ...(c.codes !== undefined ? { codes: c.codes } : {}),
      ...(c.sharedBuffersMB !== undefined ? { sharedBuffersMB: c.sharedBuffersMB } : {}),
      a,
      b,
      repeats,
      timeRatio: timeRatio(repeats),
      serverTimeRatio: serverTimeRatio(repeats),
    };
  });
  pairs.sort(
    (x, y) =>
      Number(isRegimePair(x)) - Number(isRegimePair(y)) || x.rows - y.rows || x.keyOrder.localeCompare(y.keyOrder),
  );
  const builds = [
    ...groupBy(
      good.filter((t) => t.condition.kind === "build"),
      (t) => conditionKey(t.condition),
    ).values(),
  ]
    .map(summariseBuild)
    .sort((x, y) => x.maintenanceWorkMemMB - y.maintenanceWorkMemMB || x.parallelWorkers - y.parallelWorkers);
  const walAnatomy = good.filter((t) => t.condition.kind === "wal_anatomy" && t.walAnatomy).map(summariseAnatomy);
  const speed = speedSpread(good);
  return {
    headline: {
      rows: headline.rows,
      maintenanceWorkMemMB: headline.maintenanceWorkMemMB,
      parallelWorkers: headline.maxParallelMaintenanceWorkers,
      sharedBuffersMB: headline.sharedBuffersMB,
    },
    methods,
    pairs,
    builds,
    walAnatomy,
    ...(speed ? { speed } : {}),
  };
}

/** A pair run beside the headline: other codes (claim 4's regime), or the small-buffers server. */
export const isRegimePair = (p: Pick<PairSummary, "codes" | "sharedBuffersMB">) =>
  p.codes !== undefined || p.sharedBuffersMB !== undefined;

/** The small-buffers pairs, or claim (4)'s (fewer codes), when the run has them. */
export function regimePair(s: CreateIndexSummary, which: "cache" | "density"): PairSummary | undefined {
  return s.pairs.find((p) => (which === "cache" ? p.sharedBuffersMB !== undefined : p.codes !== undefined));
}

/** The headline pair: the seed's protocol at `rows`, random keys, the server's own settings. */
export function headlinePair(s: CreateIndexSummary): PairSummary | undefined {
  return s.pairs.find(
    (p) =>
      !isRegimePair(p) &&
      p.rows === s.headline.rows &&
      p.keyOrder === "random" &&
      p.maintenanceWorkMemMB === s.headline.maintenanceWorkMemMB &&
      p.parallelWorkers === s.headline.parallelWorkers,
  );
}

/** Pairs with random keys and the headline's settings, by row count: the size sweep. */
export function sizeSweep(s: CreateIndexSummary): PairSummary[] {
  return s.pairs
    .filter(
      (p) =>
        !isRegimePair(p) &&
        p.keyOrder === "random" &&
        p.maintenanceWorkMemMB === s.headline.maintenanceWorkMemMB &&
        p.parallelWorkers === s.headline.parallelWorkers,
    )
    .sort((x, y) => x.rows - y.rows);
}

/** I/O wait the server timed (track_io_timing, track_wal_io_timing), ms, from summed counters. */
export function ioWaitMs(c: Counters<CreateIndexCounterKey>): number {
  return (
    (c["db.blk_read_time_ms"] ?? 0) +
    (c["db.blk_write_time_ms"] ?? 0) +
    (c["wal.write_time_ms"] ?? 0) +
    (c["wal.sync_time_ms"] ?? 0)
  );
}

/** Block reads and writes alone: WAL write and sync are the WAL's (claim 2), not block I/O. */
export function blockIoMs(c: Counters<CreateIndexCounterKey>): number {
  return (c["db.blk_read_time_ms"] ?? 0) + (c["db.blk_write_time_ms"] ?? 0);
}

export function checkpoints(c: Counters<CreateIndexCounterKey>): number {
  return (c["checkpointer.timed"] ?? 0) + (c["checkpointer.requested"] ?? 0);
}

/** The figures from the raw trials: per method, per pair (by repeat), per CREATE INDEX build, WAL by type. */
import { speedSpread } from "../../stats/speed";
import { outlierFlags } from "../../stats/intervals";
import { flaggedUnits, medianOf, quotient } from "../../stats/claim-statistics";
import type { Without } from "../../stats/claim-engine";
import { count } from "../../stats/format";
import { isOk, type OkOf } from "../../results/run-store";
import { groupBy, secondsSpread, medianOfFinite } from "../../stats/summary";
import { counterEntries, type Counters } from "../../stats/counters";
import type { CreateIndexAfterLoadParams } from "./params";
import { conditionKey, type Method, type TrialKind } from "./workload/plan";
import { conditionGroups } from "../condition-groups";
import type { CreateIndexTrial } from "./workload/run-trials";
import {
  isCreateIndexCounterKey,
  PHASES,
  SHAPE_FIELDS,
  type CreateIndexCounterKey,
  type IndexShape,
  type PhaseName,
  type PhaseRecord,
} from "./workload/session";

type OkTrial = OkOf<CreateIndexTrial>;
type Sums = Counters<CreateIndexCounterKey>;
const A: Method = "load_then_index";

/** The phases the seed timed: A = INSERT + CREATE INDEX; B = INSERT (its index existed already). */
const timedPhases = (method: Method): readonly PhaseName[] => (method === A ? ["load", "index"] : ["load"]);
const phaseOf = (t: CreateIndexTrial, phase: PhaseName) => t.phases?.find((p) => p.phase === phase);
/** The backend's getrusage() plus what its parallel sort workers reported. */
const cpuOfPhase = (p: PhaseRecord | undefined) =>
  p?.backend ? p.backend.userS + p.backend.systemS + (p.sort?.workerCpuS ?? 0) : undefined;

/** From /proc/<pid>/schedstat: time the backend and its parallel workers were runnable but not running. */
const runQueueWaitOfPhase = (p: PhaseRecord | undefined) =>
  p?.runQueue ? p.runQueue.waitS + p.runQueue.workerWaitS : undefined;

/** `pick` summed over the trial's timed phases; undefined unless every one of them reported it. */
function timedSum(t: CreateIndexTrial, pick: (p: PhaseRecord) => number | undefined): number | undefined {
  const v = timedPhases(t.condition.method)
    .map((name) => phaseOf(t, name))
    .map((p) => (p ? pick(p) : undefined));
  return v.every((x) => x !== undefined) ? v.reduce((a, x) => a + x, 0) : undefined;
}

/** "load.wal.records" + "index.wal.records" … */
export function phaseSums(trial: CreateIndexTrial, phases: readonly PhaseName[]): Sums {
  const sums: Partial<Record<CreateIndexCounterKey, number>> = {};
  for (const [key, value] of counterEntries(trial.counters)) {
    const dot = key.indexOf(".");
    const name = key.slice(dot + 1);
    // A name this version does not collect (a run on disk from another one) has no reader: left out.
    if (!phases.some((p) => p === key.slice(0, dot)) || !isCreateIndexCounterKey(name)) continue;
    // Sizes are levels, not flows: the last phase's value stands.
    sums[name] = name.startsWith("size.") ? value : (sums[name] ?? 0) + value;
  }
  return sums;
}

function medianRecord(records: readonly Sums[]): Sums {
  const out: Partial<Record<CreateIndexCounterKey, number>> = {};
  for (const k of new Set(records.flatMap((r) => counterEntries(r).map(([key]) => key))))
    if (isCreateIndexCounterKey(k)) out[k] = medianOfFinite(records.map((r) => r[k] ?? 0)) ?? 0;
  return out;
}

const medianTrial = (trials: readonly OkTrial[]) =>
  [...trials].sort((x, y) => x.seconds - y.seconds)[Math.floor((trials.length - 1) / 2)];

function timing(group: readonly OkTrial[]) {
  const seconds = group.map((t) => t.seconds);
  return { seconds, ...secondsSpread(seconds) };
}

function summariseMethod(group: readonly OkTrial[], failed: number) {
  const c = group[0].condition;
  const median = (f: (t: OkTrial) => number | undefined) => medianOfFinite(group.map(f));
  const ran = PHASES.filter((phase) => median((t) => phaseOf(t, phase)?.ms) !== undefined);
  const perPhase = <V>(f: (phase: PhaseName) => V | undefined): Partial<Record<PhaseName, V>> =>
    Object.fromEntries(ran.map((phase) => [phase, f(phase)] as const).filter(([, v]) => v !== undefined));
  const shapes = group.flatMap((t) => (t.index ? [t.index] : []));
  // The median trial's sort stands for the condition.
  const sort = c.method === A ? phaseOf(medianTrial(group), "index")?.sort : undefined;
  return {
    condition: c,
    trials: group.length,
    failed,
    ...timing(group),
    // Every phase that ran, B's CREATE INDEX on the empty table included.
    phaseMs: perPhase((phase) => median((t) => phaseOf(t, phase)?.ms)),
    totals: medianRecord(group.map((t) => phaseSums(t, timedPhases(c.method)))),
    // The write-back each method left behind.
    deferred: medianRecord(group.map((t) => phaseSums(t, ["checkpoint"]))),
    byPhase: perPhase((phase) => medianRecord(group.map((t) => phaseSums(t, [phase])))),
    phaseCpuS: perPhase((phase) => median((t) => cpuOfPhase(phaseOf(t, phase)))),
    backendCpuS: median((t) => timedSum(t, cpuOfPhase)),
    phaseRunQueueWaitS: perPhase((phase) => median((t) => runQueueWaitOfPhase(phaseOf(t, phase)))),
    runQueueWaitS: median((t) => timedSum(t, runQueueWaitOfPhase)),
    hostLoad: median((t) => (t.loadAverage ? (t.loadAverage[0] + t.loadAverage[1]) / 2 : undefined)),
    // NaN only where no trial's value is finite (an empty index): shown, not hidden.
    index: shapes.length
      ? (Object.fromEntries(SHAPE_FIELDS.map((k) => [k, medianOfFinite(shapes.map((x) => x[k])) ?? NaN])) as IndexShape)
      : undefined,
    sortSpilled: sort?.spilled,
  };
}
export type MethodSummary = ReturnType<typeof summariseMethod>;

function summariseBuild(group: readonly OkTrial[]) {
  const c = group[0].condition;
  const sums = medianRecord(group.map((t) => phaseSums(t, ["index"])));
  const mid = phaseOf(medianTrial(group), "index");
  return {
    rows: c.rows,
    maintenanceWorkMemMB: c.maintenanceWorkMemMB,
    parallelWorkers: c.parallelWorkers,
    trials: group.length,
    ...timing(group),
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

function repeatSide(t: CreateIndexTrial, outlier: boolean) {
  const sums = phaseSums(t, timedPhases(t.condition.method));
  return {
    key: t.key,
    position: t.position,
    seconds: t.seconds ?? NaN,
    // No client path in the server's own elapsed time.
    serverSeconds: timedSum(t, (p) => p.backend?.elapsedS),
    cpuS: timedSum(t, cpuOfPhase),
    runQueueWaitS: timedSum(t, runQueueWaitOfPhase),
    involuntarySwitches: timedSum(t, (p) => p.backend?.involuntarySwitches),
    blockIoMs: blockIoMs(sums),
    walRecords: sums["wal.records"] ?? 0,
    blksRead: sums["db.blks_read"],
    indexBytes: t.index?.indexBytes,
    // Requested by the method's own WAL: its cost. On checkpoint_timeout: chance, a flag.
    requestedCheckpoints: sums["checkpointer.requested"] ?? 0,
    timedCheckpoints: sums["checkpointer.timed"] ?? 0,
    autovacuumRuns: sums["autovacuum.runs"] ?? 0,
    outlier,
  };
}
export type RepeatSide = ReturnType<typeof repeatSide>;

const sideFlags = (label: string, s: RepeatSide) =>
  [s.outlier && "outlier", s.timedCheckpoints > 0 && "timed checkpoint", s.autovacuumRuns > 0 && "autovacuum"]
    .filter((f) => f !== false)
    .map((f) => `${label} ${f}`);

/** A and B ran back to back in a repeat, so their ratio leaves the machine's drift out; outliers by method. */
function repeatPairs(aTrials: readonly CreateIndexTrial[], bTrials: readonly CreateIndexTrial[]) {
  const sides = (trials: readonly CreateIndexTrial[]) => {
    const flags = outlierFlags(trials.map((t) => t.seconds ?? NaN));
    return new Map(trials.map((t, i) => [t.repeat, repeatSide(t, flags[i])]));
  };
  const b = sides(bTrials);
  return [...sides(aTrials)]
    .flatMap(([repeat, sa]) => {
      const sb = b.get(repeat);
      if (!sb) return [];
      const flags = [...sideFlags("A", sa), ...sideFlags("B", sb)];
      const [pa, pb] = [sa.position, sb.position];
      const first: Method | undefined =
        pa === undefined || pb === undefined ? undefined : pa < pb ? A : "index_then_load";
      return [{ repeat, a: sa, b: sb, first, flagged: flags.length > 0, flags }];
    })
    .sort((x, y) => x.repeat - y.repeat);
}
export type RepeatPair = ReturnType<typeof repeatPairs>[number];

/** B/A of one figure per repeat: the median over repeats, with its interval. */
export const bOverA =
  (pick: (side: RepeatSide) => number | undefined, of: string) => (repeats: readonly RepeatPair[]) =>
    medianOf(repeats, (r) => quotient(pick(r.b), pick(r.a)), of);
export const timeRatio = bOverA((x) => x.seconds, "B/A seconds per repeat (A and B back to back)");
/** Over the median gap: each repeat's own would drop repeats where B was not slower and blow up near zero. */
export const shareOfGap =
  (pick: (side: RepeatSide) => number | undefined, of: string) => (repeats: readonly RepeatPair[]) => {
    const gaps = repeats.map((r) => r.b.seconds - r.a.seconds).sort((x, y) => x - y);
    const mid = (gaps[(gaps.length - 1) >> 1] + gaps[gaps.length >> 1]) / 2;
    if (!(mid > 0)) return undefined;
    // Either side unmeasured: NaN, which medianOf leaves out.
    return medianOf(repeats, (r) => ((pick(r.b) ?? NaN) - (pick(r.a) ?? NaN)) / mid, of);
  };
export const cpuShare = shareOfGap((x) => x.cpuS, "(B − A CPU seconds) ÷ the median B − A gap, per repeat");
export const waitShare = shareOfGap(
  (x) => x.runQueueWaitS,
  "(B − A run-queue wait) ÷ the median B − A gap, per repeat",
);
/** The median over repeats of `f`, NaN where no repeat has it. */
export const overRepeats = (repeats: readonly RepeatPair[]) => (f: (r: RepeatPair) => number | undefined) =>
  medianOfFinite(repeats.map((r) => f(r) ?? NaN)) ?? NaN;
const serverTimeRatio = bOverA((x) => x.serverSeconds, "B/A server elapsed time per repeat (log_statement_stats)");

export function summarise(
  trials: readonly CreateIndexTrial[],
  headline: Pick<CreateIndexAfterLoadParams, "rows" | "maintenanceWorkMemMB" | "maxParallelMaintenanceWorkers"> & {
    readonly sharedBuffersMB?: number;
  },
) {
  const { rows, maintenanceWorkMemMB, maxParallelMaintenanceWorkers: parallelWorkers, sharedBuffersMB } = headline;
  const good = trials.filter(isOk);
  const ofKind = (kind: TrialKind) =>
    conditionGroups(
      trials.filter((t) => t.condition.kind === kind),
      conditionKey,
    );
  const loads = ofKind("load");
  const methods = loads.map((g) => summariseMethod(g.all, g.failed));
  const trialsOf = (m: MethodSummary | undefined) => loads.find((g) => g.all[0].condition === m?.condition)?.all ?? [];
  const pairs = [...groupBy(methods, (m) => conditionKey({ ...m.condition, method: A })).values()].map((g) => {
    const a = g.find((m) => m.condition.method === A);
    const b = g.find((m) => m.condition.method === "index_then_load");
    const repeats = repeatPairs(trialsOf(a), trialsOf(b));
    const { kind: _kind, method: _method, ...condition } = g[0].condition;
    return { ...condition, a, b, repeats, timeRatio: timeRatio(repeats), serverTimeRatio: serverTimeRatio(repeats) };
  });
  pairs.sort(
    (x, y) =>
      Number(isRegimePair(x)) - Number(isRegimePair(y)) || x.rows - y.rows || x.keyOrder.localeCompare(y.keyOrder),
  );
  const builds = ofKind("build")
    .map((g) => summariseBuild(g.all))
    .sort((x, y) => x.maintenanceWorkMemMB - y.maintenanceWorkMemMB || x.parallelWorkers - y.parallelWorkers);
  const walAnatomy = good
    .filter((t) => t.condition.kind === "wal_anatomy" && t.walAnatomy)
    .map(({ condition: c, walAnatomy: w }) => ({
      method: c.method,
      rows: c.rows,
      types: timedPhases(c.method).flatMap((phase) =>
        (w?.[phase] ?? []).map((t) => ({ phase, ...t, perRow: t.count / c.rows })),
      ),
    }));
  const speed = speedSpread(good);
  // The server's processes were not this host's: no trial has a run-queue wait.
  const runQueueUnmeasured = good.find((t) => t.runQueueUnmeasured)?.runQueueUnmeasured;
  return {
    headline: { rows, maintenanceWorkMemMB, parallelWorkers, sharedBuffersMB, runQueueUnmeasured },
    methods,
    pairs,
    builds,
    walAnatomy,
    ...(speed ? { speed } : {}),
  };
}
export type CreateIndexSummary = ReturnType<typeof summarise>;
export type PairSummary = CreateIndexSummary["pairs"][number];

/** Other codes (claim 4's regime), or the small-buffers server. */
export const isRegimePair = (p: { readonly codes?: number; readonly sharedBuffersMB?: number }) =>
  p.codes !== undefined || p.sharedBuffersMB !== undefined;

/** At the headline's sort settings (maintenance_work_mem, workers). */
export const atHeadlineSort = (p: PairSummary, h: CreateIndexSummary["headline"]) =>
  p.maintenanceWorkMemMB === h.maintenanceWorkMemMB && p.parallelWorkers === h.parallelWorkers;

/** At the headline's sort settings on its server, and `more`. */
export const headlinePairs = (s: CreateIndexSummary, more: (p: PairSummary) => boolean) =>
  s.pairs.filter((p) => !isRegimePair(p) && atHeadlineSort(p, s.headline) && more(p));

export const headlinePair = (s: CreateIndexSummary): PairSummary | undefined =>
  headlinePairs(s, (p) => p.rows === s.headline.rows && p.keyOrder === "random")[0];

/** 1 − (B − A run-queue wait) ÷ the gap: the part of the gap that was not spent waiting for a CPU. */
export const gapWithoutWait = (s: CreateIndexSummary) => {
  const w = waitShare(headlinePair(s)?.repeats ?? []);
  return w ? 1 - w.estimate : undefined;
};

/** Claim (4)'s pairs at fewer codes, when the run has them. */
export const densityPair = (s: CreateIndexSummary) => s.pairs.find((p) => p.codes !== undefined) ?? headlinePair(s);

/** The summary without the flagged repeats, and which of the judged pairs' repeats those were. */
export function withoutFlagged(s: CreateIndexSummary): Without<CreateIndexSummary> {
  const judged = [...new Set([headlinePair(s), densityPair(s)])].flatMap(
    (p) => p?.repeats.map((r) => ({ p, r })) ?? [],
  );
  return {
    summary: { ...s, pairs: s.pairs.map((p) => ({ ...p, repeats: p.repeats.filter((r) => !r.flagged) })) },
    flagged: flaggedUnits(
      "repeat",
      judged,
      ({ r }) => r.flags,
      ({ p, r }) => `${count(p.rows)} rows, repeat ${r.repeat}`,
      "No repeat was flagged (outlier, timed checkpoint or autovacuum in its timed phases).",
    ),
  };
}

/** By rows, as summarise sorts the pairs. */
export const sizeSweep = (s: CreateIndexSummary) => headlinePairs(s, (p) => p.keyOrder === "random");

/** Block reads and writes alone: WAL write and sync are the WAL's (claim 2), not block I/O. */
export const blockIoMs = (c: Sums) => (c["db.blk_read_time_ms"] ?? 0) + (c["db.blk_write_time_ms"] ?? 0);
/** track_io_timing and track_wal_io_timing. */
export const ioWaitMs = (c: Sums) => blockIoMs(c) + (c["wal.write_time_ms"] ?? 0) + (c["wal.sync_time_ms"] ?? 0);
export const anatomyOf = (s: CreateIndexSummary, m: Method) => s.walAnatomy.find((w) => w.method === m);
/** Records per WAL record type over the decoded trials, most first. */
export function typeCounts(anatomy: CreateIndexSummary["walAnatomy"]): [string, number][] {
  const byType = new Map<string, number>();
  for (const w of anatomy) for (const t of w.types) byType.set(t.type, (byType.get(t.type) ?? 0) + t.count);
  return [...byType].sort((x, y) => y[1] - x[1]);
}

/** Notebook 04's figures per run, per mode (medians over sets) and per set (ratios, with an exact interval). */
import type { LookPlan } from "../../stats/adaptive";
import { sameStatePairs, speedSpread, type SpeedProbe, type SpeedSpread, type StatePairs } from "../../stats/speed";
import { medianOf } from "../../stats/claim-statistics";
import type { Without } from "../../stats/claim-engine";
import {
  pgbenchFigures,
  type PgbenchFigures,
  statementLatency,
  type SeriesPoint,
  type StatementLatency,
} from "../../workloads/pgbench";
import type { ReindexMode } from "./params";
import { medianInterval, outlierFlags, type Interval } from "../../stats/intervals";
import { groupBy, spread, type Spread } from "../../stats/summary";
import { sumCounters } from "../../stats/counters";
import type { BlockedInterval, IndexBuildPhase } from "./workload/lock-timeline";
import type { ReindexTrial } from "./workload/run-trials";

const UPDATE_ACCOUNTS = /^UPDATE pgbench_accounts/;
const ACCOUNTS_TABLE = "pgbench_accounts";

export interface RunSummary extends PgbenchFigures {
  readonly key: string;
  readonly set: number;
  readonly mode: ReindexMode;
  /** Place in its set's order (0 = first). */
  readonly position?: number;
  /** Checkpoints (timed + requested), autovacuum and autoanalyze runs on pgbench's tables, during the run. */
  readonly checkpoints: number;
  readonly autovacuumRuns: number;
  /** TPS far from its mode's other runs (OUTLIER_RULE); flags: outlier, checkpoint, autovacuum. */
  readonly outlier: boolean;
  readonly flags: readonly string[];
  readonly maxMs?: number;
  /** `UPDATE pgbench_accounts …`: pgbench -r's average, and its mean time in the server (pg_stat_statements), ms. */
  readonly updateAccountsMs?: number;
  readonly updateAccountsServerMs?: number;
  /** All three REINDEX statements and the accounts key alone, s; start and end after pgbench started. */
  readonly reindexSeconds?: number;
  readonly accountsReindexSeconds?: number;
  readonly reindexStartS?: number;
  readonly reindexEndS?: number;
  readonly reindexOutlastedLoad: boolean;
  readonly blockedSeconds: number;
  readonly allBlockedSeconds: number;
  readonly lockWaitSessionSeconds: number;
  /** Session-seconds the load waited for pgbench_accounts' table lock: lock waits × its share of blocked samples. */
  readonly accountsLockWaitSeconds?: number;
  /** Within this run: what its lock waits add to the average accounts UPDATE, ms, and the average without them. */
  readonly updateAddedMs?: number;
  readonly updateUnblockedMs?: number;
  readonly blockedByReindexSeconds: number;
  /** The lock pgbench waited for most, e.g. "relation pgbench_accounts RowExclusiveLock". */
  readonly topLock?: string;
  readonly waitShares: Readonly<Record<string, number>>;
  readonly reindexWaitShares: Readonly<Record<string, number>>;
  /** Within the run (immune to drift between runs): TPS in the REINDEX window and outside it, the share lost. */
  readonly tpsDuringReindex?: number;
  readonly tpsOutsideReindex?: number;
  readonly lostShare?: number;
  readonly tpsVsBaseline?: number;
  readonly walBytesPerTransaction?: number;
  readonly accountsHotShare?: number;
  readonly series: readonly SeriesPoint[];
  readonly statements: readonly StatementLatency[];
  readonly intervals: readonly BlockedInterval[];
  readonly phases: readonly IndexBuildPhase[];
  /** Start of the load (first transaction), Unix ms: the zero of the timeline. */
  readonly startMs: number;
  readonly perSample: readonly { readonly t: number; readonly sessions: number; readonly lockWaiting: number }[];
  /** The trial's speed probe, right before the run. */
  readonly speed?: SpeedProbe;
}

export interface ModeSummary {
  readonly mode: ReindexMode;
  readonly n: number;
  readonly tps: Spread;
  readonly updateAccountsMs?: Spread;
  readonly p99Ms?: Spread;
  readonly reindexSeconds?: Spread;
  readonly accountsReindexSeconds?: Spread;
  readonly blockedSeconds: Spread;
  readonly allBlockedSeconds: Spread;
  /** Within-run: the share the REINDEX window cost; TPS in it ÷ outside it. */
  readonly lostShare?: Spread;
  readonly duringOutside?: Spread;
  /** TPS and the accounts UPDATE's latency ÷ the same set's baseline's, per set: median and interval over sets. */
  readonly tpsRatio?: Interval;
  readonly updateRatio?: Interval;
}

export interface ReindexSummary {
  readonly durationSeconds: number;
  /** The adaptive design's looks (`lookPlan`): the claims engine decides at their coverage. */
  readonly looks?: LookPlan;
  readonly clients: number;
  /** pgbench scale (absent in older summaries). */
  readonly scale?: number;
  /** The speed probe over the runs: what a between-run ratio carries besides its effect. */
  readonly speed?: SpeedSpread;
  readonly hostCpus?: number;
  readonly runs: readonly RunSummary[];
  readonly modes: readonly ModeSummary[];
  readonly failed: readonly { readonly key: string; readonly error: string }[];
}

/** TPS inside [from, to) (Unix ms) and outside it, and the share of the run's transactions the window cost. */
export function windowStats(
  series: readonly SeriesPoint[],
  runStartMs: number,
  durationSeconds: number,
  from: number,
  to: number,
) {
  const runEnd = runStartMs + durationSeconds * 1000;
  const a = Math.max(from, runStartMs);
  const b = Math.min(to, runEnd);
  if (b <= a) return undefined;
  let inside = 0;
  let total = 0;
  // The series' own bucket (older stored runs: 1 s): a bucket that straddles the window counts in
  // proportion to its overlap, which blurs a stall's edges by up to a bucket.
  const bucketMs = series.length > 1 ? series[1].epochMs - series[0].epochMs : 1000;
  for (const p of series) {
    const start = p.epochMs;
    const end = start + bucketMs;
    if (start >= runEnd) continue;
    total += p.transactions;
    inside += p.transactions * (Math.max(0, Math.min(end, b) - Math.max(start, a)) / bucketMs);
  }
  const windowS = (b - a) / 1000;
  const outsideS = durationSeconds - windowS;
  if (outsideS <= 0) return undefined;
  const during = inside / windowS;
  const outside = (total - inside) / outsideS;
  return {
    during,
    outside,
    lostShare: outside > 0 ? ((outside - during) * windowS) / (outside * durationSeconds) : undefined,
  };
}

/** A trial that ran to the end: its pgbench result and lock timeline are there. */
type CompleteTrial = ReindexTrial & Required<Pick<ReindexTrial, "pgbench" | "timeline">>;

const isComplete = (t: ReindexTrial): t is CompleteTrial => t.status === "ok" && !!t.pgbench && !!t.timeline;

function summariseRun(t: CompleteTrial, baselineTps: number | undefined, durationSeconds: number): RunSummary {
  const b = t.pgbench;
  const r = t.reindex;
  const tl = t.timeline;
  const c = t.counters ?? {};
  const accounts = r?.statements.find((s) => s.index === "pgbench_accounts_pkey");
  const upd = c["table.pgbench_accounts.n_tup_upd"];
  const topLock = Object.keys(tl.locks)[0];
  const lockSamples = Object.values(tl.locks).reduce((a, n) => a + n, 0);
  const accountsSamples = Object.entries(tl.locks)
    .filter(([k]) => k.startsWith(`relation ${ACCOUNTS_TABLE} `))
    .reduce((a, [, n]) => a + n, 0);
  const accountsLockWaitSeconds = lockSamples ? (tl.lockWaitSessionSeconds * accountsSamples) / lockSamples : 0;
  const updateMs = statementLatency(b.summary, UPDATE_ACCOUNTS);
  const updateAddedMs = b.summary.transactions ? (accountsLockWaitSeconds * 1000) / b.summary.transactions : undefined;
  const t0 = b.loadStartedAtMs ?? b.startedAtMs;
  const w = r && !r.error ? windowStats(b.series, t0, durationSeconds, r.startMs, r.endMs) : undefined;
  const sumOf = (suffix: string) => sumCounters(c, "table.", suffix);
  return {
    key: t.key,
    set: t.condition.set,
    mode: t.condition.mode,
    position: t.position,
    checkpoints: (c["checkpointer.timed"] ?? 0) + (c["checkpointer.requested"] ?? 0),
    autovacuumRuns: sumOf(".autovacuum_count") + sumOf(".autoanalyze_count"),
    outlier: false,
    flags: [],
    ...pgbenchFigures(b),
    maxMs: b.latency?.maxMs,
    updateAccountsMs: updateMs,
    accountsLockWaitSeconds,
    updateAddedMs,
    updateUnblockedMs: updateMs !== undefined && updateAddedMs !== undefined ? updateMs - updateAddedMs : undefined,
    updateAccountsServerMs: t.updateAccountsServer?.meanMs,
    reindexSeconds: r && !r.error ? (r.endMs - r.startMs) / 1000 : undefined,
    accountsReindexSeconds: accounts ? (accounts.endMs - accounts.startMs) / 1000 : undefined,
    reindexStartS: r ? (r.startMs - t0) / 1000 : undefined,
    reindexEndS: r ? (r.endMs - t0) / 1000 : undefined,
    reindexOutlastedLoad: r ? r.endMs > b.finishedAtMs : false,
    blockedSeconds: tl.blockedSeconds,
    allBlockedSeconds: tl.allBlockedSeconds,
    lockWaitSessionSeconds: tl.lockWaitSessionSeconds,
    blockedByReindexSeconds: tl.blockedByReindexSeconds,
    topLock,
    waitShares: tl.waitShares,
    reindexWaitShares: tl.reindexWaitShares,
    tpsDuringReindex: w?.during,
    tpsOutsideReindex: w?.outside,
    lostShare: w?.lostShare,
    tpsVsBaseline: baselineTps ? b.summary.tps / baselineTps : undefined,
    walBytesPerTransaction:
      c["wal.bytes"] !== undefined && b.summary.transactions ? c["wal.bytes"] / b.summary.transactions : undefined,
    accountsHotShare: upd ? (c["table.pgbench_accounts.n_tup_hot_upd"] ?? 0) / upd : undefined,
    series: b.series,
    statements: b.summary.statements,
    intervals: tl.intervals,
    phases: tl.phases,
    startMs: t0,
    perSample: tl.perSample,
    ...(t.speed ? { speed: t.speed } : {}),
  };
}

function spreadOf(values: readonly (number | undefined)[]): Spread | undefined {
  const v = values.filter((x): x is number => x !== undefined && Number.isFinite(x));
  return v.length ? spread(v) : undefined;
}

export function summarise(
  trials: readonly ReindexTrial[],
  durationSeconds: number,
  clients: number,
  hostCpus?: number,
  scale?: number,
): ReindexSummary {
  const ok = trials.filter(isComplete);
  const baselineBySet = new Map(
    ok.filter((t) => t.condition.mode === "baseline").map((t) => [t.condition.set, t.pgbench.summary.tps]),
  );
  const failed = trials.filter((t) => t.status === "failed").map((t) => ({ key: t.key, error: t.error ?? "" }));
  const runs = ok.map((t) => summariseRun(t, baselineBySet.get(t.condition.set), durationSeconds));
  return summariseRuns(runs, { durationSeconds, clients, hostCpus, scale, failed });
}

/** Per-mode figures from per-run ones (flags set here). */
export function summariseRuns(
  unflagged: readonly RunSummary[],
  o: Pick<ReindexSummary, "durationSeconds" | "clients" | "hostCpus" | "scale"> & {
    readonly failed?: ReindexSummary["failed"];
  },
): ReindexSummary {
  const runs = flagRuns(unflagged);
  const byMode = groupBy(runs, (r) => r.mode);
  const baseline = byMode.get("baseline");
  const modes: ModeSummary[] = [...byMode.entries()].map(([mode, group]) => {
    const upd = group.map((r) => r.updateAccountsMs).filter((x): x is number => x !== undefined);
    const baseUpd = baseline?.map((r) => r.updateAccountsMs).filter((x): x is number => x !== undefined) ?? [];
    const of = (pick: (r: RunSummary) => number | undefined) => spreadOf(group.map(pick));
    return {
      mode: mode as ReindexMode,
      n: group.length,
      tps: spread(group.map((r) => r.tps)),
      updateAccountsMs: spreadOf(upd),
      p99Ms: of((r) => r.p99Ms),
      reindexSeconds: of((r) => r.reindexSeconds),
      accountsReindexSeconds: of((r) => r.accountsReindexSeconds),
      blockedSeconds: spread(group.map((r) => r.blockedSeconds)),
      allBlockedSeconds: spread(group.map((r) => r.allBlockedSeconds)),
      lostShare: of((r) => r.lostShare),
      duringOutside: of((r) =>
        r.tpsDuringReindex !== undefined && r.tpsOutsideReindex ? r.tpsDuringReindex / r.tpsOutsideReindex : undefined,
      ),
      tpsRatio: baseline && mode !== "baseline" ? tpsVsBaseline(runs, mode as ReindexMode) : undefined,
      updateRatio:
        baseUpd.length && upd.length && mode !== "baseline"
          ? vsBaseline(
              runs,
              mode as ReindexMode,
              (r) => r.updateAccountsMs,
              `UPDATE pgbench_accounts latency ${mode} ÷ the same set's baseline, per set`,
            )
          : undefined,
    };
  });
  const speed = speedSpread(runs);
  return {
    durationSeconds: o.durationSeconds,
    clients: o.clients,
    scale: o.scale,
    hostCpus: o.hostCpus,
    ...(speed ? { speed } : {}),
    runs,
    modes,
    failed: o.failed ?? [],
  };
}

/** Flags each run: an outlier within its mode (on TPS), a checkpoint or an autovacuum run in its window. */
function flagRuns(runs: readonly RunSummary[]): RunSummary[] {
  const outliers = new Map<string, boolean>();
  for (const group of groupBy(runs, (r) => r.mode).values()) {
    const flags = outlierFlags(group.map((r) => r.tps));
    group.forEach((r, i) => outliers.set(r.key, flags[i]));
  }
  return runs.map((r) => {
    const outlier = outliers.get(r.key) ?? false;
    const flags = [
      ...(outlier ? ["outlier"] : []),
      ...(r.checkpoints > 0 ? [`${r.checkpoints} checkpoint(s)`] : []),
      ...(r.autovacuumRuns > 0 ? [`${r.autovacuumRuns} autovacuum run(s)`] : []),
    ];
    return { ...r, outlier, flags };
  });
}

/** A statistic per set (sets missing a mode or the statistic left out): its median over sets, exact interval. */
export function perSet(
  runs: readonly RunSummary[],
  modes: readonly ReindexMode[],
  f: (bySet: ReadonlyMap<ReindexMode, RunSummary>) => number | undefined,
  of: string,
): Interval | undefined {
  const values: number[] = [];
  for (const group of groupBy(runs, (r) => String(r.set)).values()) {
    const byMode = new Map(group.map((r) => [r.mode, r]));
    if (!modes.every((m) => byMode.has(m))) continue;
    const v = f(byMode);
    if (v !== undefined && Number.isFinite(v)) values.push(v);
  }
  return values.length ? medianInterval(values, of) : undefined;
}

/** A run's figure ÷ the same set's baseline's, per set. */
const vsBaseline = (
  runs: readonly RunSummary[],
  mode: ReindexMode,
  pick: (r: RunSummary) => number | undefined,
  of: string,
) =>
  perSet(
    runs,
    ["baseline", mode],
    (m) => {
      const [b, t] = [m.get("baseline"), m.get(mode)].map((r) => (r ? pick(r) : undefined));
      return b && t !== undefined ? t / b : undefined;
    },
    of,
  );

export const tpsVsBaseline = (runs: readonly RunSummary[], mode: ReindexMode) =>
  vsBaseline(runs, mode, (r) => r.tps, `TPS ${mode} ÷ the same set's baseline, per set`);

/** Within each run alone (so speed changes between runs do not move it): UPDATE latency ÷ its unblocked one. */
export function updateWithinRun(runs: readonly RunSummary[], mode: ReindexMode): Interval | undefined {
  return perSet(
    runs,
    [mode],
    (m) => {
      const r = m.get(mode);
      return r?.updateUnblockedMs && r.updateUnblockedMs > 0 && r.updateAddedMs !== undefined
        ? (r.updateUnblockedMs + r.updateAddedMs) / r.updateUnblockedMs
        : undefined;
    },
    `UPDATE pgbench_accounts latency in the ${mode} run ÷ the same run's unblocked latency, per set`,
  );
}

export function modeSummary(s: ReindexSummary, mode: ReindexMode): ModeSummary | undefined {
  return s.modes.find((m) => m.mode === mode);
}

/** A mode's runs, by set. */
export const runsOf = (s: ReindexSummary, mode: ReindexMode) =>
  s.runs.filter((r) => r.mode === mode).sort((a, b) => a.set - b.set);

/** Within each run of `mode`: the share of its transactions lost in the REINDEX window; median over sets. */
export const lostShare = (mode: ReindexMode) => (s: ReindexSummary) =>
  perSet(
    s.runs,
    [mode],
    (m) => m.get(mode)?.lostShare,
    `share of the run's transactions lost in the ${mode} window, per set`,
  );

/** The REINDEX window inside the load, s: its start to its end or the run's end. */
function windowSeconds(r: RunSummary, duration: number): number | undefined {
  if (r.reindexStartS !== undefined && r.reindexEndS !== undefined)
    return Math.max(0, Math.min(r.reindexEndS, duration) - Math.max(r.reindexStartS, 0));
  return r.reindexSeconds;
}

/** The plain REINDEX's window ÷ the run length: the share of the run it could stall. */
export function stallShare(r: RunSummary, duration: number): number | undefined {
  const w = windowSeconds(r, duration);
  return w !== undefined && duration > 0 ? w / duration : undefined;
}

/** Per REINDEX run: the lost share ÷ the window's share of the run; median over sets. */
export const lostOverStall = (s: ReindexSummary) =>
  perSet(
    s.runs,
    ["reindex"],
    (m) => {
      const r = m.get("reindex");
      const share = r ? stallShare(r, s.durationSeconds) : undefined;
      return r?.lostShare !== undefined && share ? r.lostShare / share : undefined;
    },
    "lost share ÷ the plain REINDEX's window share of the run, per set",
  );

/** Per set: the share lost with CONCURRENTLY − with plain REINDEX; median over sets. */
export const lostDifference = (s: ReindexSummary) =>
  perSet(
    s.runs,
    ["reindex", "concurrently"],
    (m) => {
      const c = m.get("concurrently")?.lostShare;
      const r = m.get("reindex")?.lostShare;
      return c !== undefined && r !== undefined ? c - r : undefined;
    },
    "lost share with CONCURRENTLY − with REINDEX, per set",
  );

/** Plain and CONCURRENTLY paired per set; a pair whose probes split (PAIR_STATE_RULE) may measure the machine. */
export function rebuildPairs(
  runs: readonly RunSummary[],
): StatePairs<{ set: number; ratio: number; probes: (number | undefined)[] }> {
  const bySet = new Map<number, Map<ReindexMode, RunSummary>>();
  for (const r of runs) bySet.set(r.set, (bySet.get(r.set) ?? new Map<ReindexMode, RunSummary>()).set(r.mode, r));
  const pairs = [...bySet.entries()]
    .sort((a, b) => a[0] - b[0])
    .flatMap(([set, m]) => {
      const c = m.get("concurrently");
      const r = m.get("reindex");
      return c?.reindexSeconds === undefined || !r?.reindexSeconds
        ? []
        : [{ set, ratio: c.reindexSeconds / r.reindexSeconds, probes: [c.speed?.medianMs, r.speed?.medianMs] }];
    });
  return sameStatePairs(
    pairs,
    (p) => p.probes,
    (p) => `set ${p.set}`,
  );
}

/** Per set: rebuild seconds CONCURRENTLY ÷ plain REINDEX (every pair counts); median over sets. */
export const rebuildRatio = (s: ReindexSummary) =>
  medianOf(rebuildPairs(s.runs).kept, (p) => p.ratio, "rebuild seconds CONCURRENTLY ÷ REINDEX, per set");

/** The flagged sets (an outlier, a checkpoint or autovacuum in a run's window) and the summary without them. */
export function withoutFlagged(s: ReindexSummary): Without<ReindexSummary> {
  const flagged = s.runs.filter((r) => r.flags.length);
  const sets = new Set(flagged.map((r) => r.set));
  return {
    summary: { ...s, runs: s.runs.filter((r) => !sets.has(r.set)) },
    flagged: {
      noun: "set",
      count: sets.size,
      detail: flagged.map((r) => `set ${r.set} ${r.mode}: ${r.flags.join(", ")}`).join("; "),
      none: "No run was flagged (outlier, checkpoint or autovacuum in its window).",
    },
  };
}

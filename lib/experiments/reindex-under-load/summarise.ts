/** Notebook 04's figures per run, per mode (medians over sets) and per set (ratios, with an exact interval). */
import type { LookPlan } from "../../stats/adaptive";
import { sameStatePairs, speedSpread, type SpeedProbe, type SpeedSpread } from "../../stats/speed";
import { medianOf } from "../../stats/claim-statistics";
import type { Without } from "../../stats/claim-engine";
import { pgbenchFigures, statementLatency, type PgbenchFigures, type SeriesPoint } from "../../workloads/pgbench";
import type { StatementLatency } from "../../workloads/pgbench";
import type { ReindexMode } from "./params";
import { outlierFlags, type Interval } from "../../stats/intervals";
import { groupBy, spread, type Spread } from "../../stats/summary";
import { sumCounters } from "../../stats/counters";
import type { BlockedInterval, IndexBuildPhase, LockTimeline } from "./workload/activity";
import type { ReindexTrial } from "./workload/run-trials";

type Numbers<K extends string> = { readonly [k in K]: number };
type Maybe<K extends string, V = number> = { readonly [k in K]?: V };

/** updateAdded/UnblockedMs: within the run, what its lock waits add to the average accounts UPDATE and the rest. */
export type RunSummary = PgbenchFigures &
  Numbers<"set" | "checkpoints" | "autovacuumRuns" | "blockedSeconds" | "allBlockedSeconds" | "startMs"> &
  Numbers<"lockWaitSessionSeconds" | "blockedByReindexSeconds"> &
  Maybe<"position" | "maxMs" | "updateAccountsMs" | "updateAccountsServerMs" | "updateAddedMs" | "updateUnblockedMs"> &
  Maybe<"reindexSeconds" | "accountsReindexSeconds" | "reindexStartS" | "reindexEndS" | "accountsLockWaitSeconds"> &
  Maybe<"tpsDuringReindex" | "tpsOutsideReindex" | "lostShare" | "tpsVsBaseline" | "walBytesPerTransaction"> &
  Maybe<"accountsHotShare"> & {
    readonly key: string;
    readonly mode: ReindexMode;
    /** outlier: TPS far from its mode's other runs (OUTLIER_RULE); flags: outlier, checkpoint, autovacuum. */
    readonly outlier: boolean;
    readonly flags: readonly string[];
    readonly reindexOutlastedLoad: boolean;
    readonly topLock?: string;
    readonly series: readonly SeriesPoint[];
    readonly statements: readonly StatementLatency[];
    readonly intervals: readonly BlockedInterval[];
    readonly phases: readonly IndexBuildPhase[];
    readonly speed?: SpeedProbe;
  } & Pick<LockTimeline, "waitShares" | "reindexWaitShares" | "perSample">;

export type ModeSummary = { readonly mode: ReindexMode; readonly n: number } & Record<
  "tps" | "blockedSeconds" | "allBlockedSeconds",
  Spread
> &
  Maybe<
    "updateAccountsMs" | "p99Ms" | "reindexSeconds" | "accountsReindexSeconds" | "lostShare" | "duringOutside",
    Spread
  > &
  Maybe<"tpsRatio" | "updateRatio", Interval>;

export interface ReindexSummary {
  readonly durationSeconds: number;
  /** The claims engine decides at their coverage. */
  readonly looks?: LookPlan;
  readonly clients: number;
  readonly scale?: number;
  readonly speed?: SpeedSpread;
  readonly hostCpus?: number;
  readonly runs: readonly RunSummary[];
  readonly modes: readonly ModeSummary[];
  readonly failed: readonly { readonly key: string; readonly error: string }[];
}

/** TPS inside a window of the run and outside it, and the share of the run's transactions the window cost. */
export function windowStats(
  series: readonly SeriesPoint[],
  runStartMs: number,
  durationS: number,
  from: number,
  to: number,
) {
  const runEnd = runStartMs + durationS * 1000;
  const [a, b] = [Math.max(from, runStartMs), Math.min(to, runEnd)];
  if (b <= a) return undefined;
  let inside = 0;
  let total = 0;
  // A bucket that straddles the window counts in proportion to its overlap (blurs the edges by a bucket).
  const bucketMs = series.length > 1 ? series[1].epochMs - series[0].epochMs : 1000;
  for (const p of series) {
    if (p.epochMs >= runEnd) continue;
    total += p.transactions;
    inside += p.transactions * (Math.max(0, Math.min(p.epochMs + bucketMs, b) - Math.max(p.epochMs, a)) / bucketMs);
  }
  const windowS = (b - a) / 1000;
  const outsideS = durationS - windowS;
  if (outsideS <= 0) return undefined;
  const [during, outside] = [inside / windowS, (total - inside) / outsideS];
  return {
    during,
    outside,
    lostShare: outside > 0 ? ((outside - during) * windowS) / (outside * durationS) : undefined,
  };
}

type CompleteTrial = ReindexTrial & Required<Pick<ReindexTrial, "pgbench" | "timeline">>;

function summariseRun(t: CompleteTrial, baselineTps: number | undefined, durationSeconds: number): RunSummary {
  const { pgbench: b, reindex: r, timeline: tl } = t;
  const c = t.counters ?? {};
  const accounts = r?.statements.find((s) => s.index === "pgbench_accounts_pkey");
  const upd = c["table.pgbench_accounts.n_tup_upd"];
  const samples = (pick: (lock: string) => boolean) =>
    Object.entries(tl.locks).reduce((a, [k, n]) => a + (pick(k) ? n : 0), 0);
  const lockSamples = samples(() => true);
  const accountsLockWaitSeconds = lockSamples
    ? (tl.lockWaitSessionSeconds * samples((k) => k.startsWith("relation pgbench_accounts "))) / lockSamples
    : 0;
  const updateMs = statementLatency(b.summary, /^UPDATE pgbench_accounts/);
  const tx = b.summary.transactions;
  const updateAddedMs = tx ? (accountsLockWaitSeconds * 1000) / tx : undefined;
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
    topLock: Object.keys(tl.locks)[0],
    waitShares: tl.waitShares,
    reindexWaitShares: tl.reindexWaitShares,
    tpsDuringReindex: w?.during,
    tpsOutsideReindex: w?.outside,
    lostShare: w?.lostShare,
    tpsVsBaseline: baselineTps ? b.summary.tps / baselineTps : undefined,
    walBytesPerTransaction: c["wal.bytes"] !== undefined && tx ? c["wal.bytes"] / tx : undefined,
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

export function summarise(
  trials: readonly ReindexTrial[],
  durationSeconds: number,
  clients: number,
  hostCpus?: number,
  scale?: number,
): ReindexSummary {
  const ok = trials.filter((t): t is CompleteTrial => t.status === "ok" && !!t.pgbench && !!t.timeline);
  const baselineBySet = new Map(
    ok.filter((t) => t.condition.mode === "baseline").map((t) => [t.condition.set, t.pgbench.summary.tps]),
  );
  const failed = trials.filter((t) => t.status === "failed").map((t) => ({ key: t.key, error: t.error ?? "" }));
  const runs = ok.map((t) => summariseRun(t, baselineBySet.get(t.condition.set), durationSeconds));
  return summariseRuns(runs, { durationSeconds, clients, hostCpus, scale, failed });
}

export function summariseRuns(
  unflagged: readonly RunSummary[],
  o: Pick<ReindexSummary, "durationSeconds" | "clients" | "hostCpus" | "scale"> & { failed?: ReindexSummary["failed"] },
): ReindexSummary {
  const runs = flagRuns(unflagged);
  const modes = [...groupBy(runs, (r) => r.mode).values()].map((group): ModeSummary => {
    const mode = group[0].mode;
    const of = (pick: (r: RunSummary) => number | undefined) => {
      const v = group.map(pick).filter((x): x is number => x !== undefined && Number.isFinite(x));
      return v.length ? spread(v) : undefined;
    };
    const vs = mode !== "baseline";
    return {
      mode,
      n: group.length,
      tps: spread(group.map((r) => r.tps)),
      updateAccountsMs: of((r) => r.updateAccountsMs),
      p99Ms: of((r) => r.p99Ms),
      reindexSeconds: of((r) => r.reindexSeconds),
      accountsReindexSeconds: of((r) => r.accountsReindexSeconds),
      blockedSeconds: spread(group.map((r) => r.blockedSeconds)),
      allBlockedSeconds: spread(group.map((r) => r.allBlockedSeconds)),
      lostShare: of((r) => r.lostShare),
      duringOutside: of((r) =>
        r.tpsDuringReindex !== undefined && r.tpsOutsideReindex ? r.tpsDuringReindex / r.tpsOutsideReindex : undefined,
      ),
      tpsRatio: vs ? tpsVsBaseline(runs, mode) : undefined,
      updateRatio: vs
        ? vsBaseline(runs, mode, (r) => r.updateAccountsMs, "UPDATE pgbench_accounts latency")
        : undefined,
    };
  });
  const speed = speedSpread(runs);
  const { durationSeconds, clients, scale, hostCpus } = o;
  return {
    durationSeconds,
    clients,
    scale,
    hostCpus,
    ...(speed ? { speed } : {}),
    runs,
    modes,
    failed: o.failed ?? [],
  };
}

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

/** Each set's runs by mode, sets in order. */
const setsOf = (runs: readonly RunSummary[]) =>
  [...groupBy(runs, (r) => String(r.set)).values()]
    .map((g) => ({ set: g[0].set, by: new Map(g.map((r) => [r.mode, r])) }))
    .sort((a, b) => a.set - b.set);

/** f of each set that ran every mode named (its runs ran back to back), median over sets. */
const perSet = (
  runs: readonly RunSummary[],
  modes: readonly ReindexMode[],
  f: (by: ReadonlyMap<ReindexMode, RunSummary>) => number | undefined,
  of: string,
) =>
  medianOf(
    setsOf(runs).filter((s) => modes.every((m) => s.by.has(m))),
    (s) => f(s.by),
    of,
  );

/** Within each run of a mode alone, so speed changes between runs do not move it. */
export const perRun = (
  runs: readonly RunSummary[],
  mode: ReindexMode,
  pick: (r: RunSummary) => number | undefined,
  of: string,
) =>
  perSet(
    runs,
    [mode],
    (m) => {
      const r = m.get(mode);
      return r && pick(r);
    },
    of,
  );

const vsBaseline = (
  runs: readonly RunSummary[],
  mode: ReindexMode,
  pick: (r: RunSummary) => number | undefined,
  what: string,
) =>
  perSet(
    runs,
    ["baseline", mode],
    (m) => {
      const [b, t] = [m.get("baseline"), m.get(mode)].map((r) => (r ? pick(r) : undefined));
      return b && t !== undefined ? t / b : undefined;
    },
    `${what} ${mode} ÷ the same set's baseline, per set`,
  );

export const tpsVsBaseline = (runs: readonly RunSummary[], mode: ReindexMode) =>
  vsBaseline(runs, mode, (r) => r.tps, "TPS");

export const updateWithinRun = (runs: readonly RunSummary[], mode: ReindexMode) =>
  perRun(
    runs,
    mode,
    (r) =>
      r.updateUnblockedMs && r.updateUnblockedMs > 0 && r.updateAddedMs !== undefined
        ? (r.updateUnblockedMs + r.updateAddedMs) / r.updateUnblockedMs
        : undefined,
    `UPDATE pgbench_accounts latency in the ${mode} run ÷ the same run's unblocked latency, per set`,
  );

export const modeSummary = (s: ReindexSummary, mode: ReindexMode) => s.modes.find((m) => m.mode === mode);

export const runsOf = (s: ReindexSummary, mode: ReindexMode) =>
  s.runs.filter((r) => r.mode === mode).sort((a, b) => a.set - b.set);

/** The REINDEX window's share of the run: the part of it inside the load, or its length when its ends are unknown. */
export function stallShare(r: RunSummary, duration: number): number | undefined {
  const { reindexStartS: a, reindexEndS: b } = r;
  const w = a !== undefined && b !== undefined ? Math.max(0, Math.min(b, duration) - Math.max(a, 0)) : r.reindexSeconds;
  return w !== undefined && duration > 0 ? w / duration : undefined;
}

export const lostDifference = (s: ReindexSummary) =>
  perSet(
    s.runs,
    ["reindex", "concurrently"],
    (m) => {
      const [c, r] = [m.get("concurrently")?.lostShare, m.get("reindex")?.lostShare];
      return c !== undefined && r !== undefined ? c - r : undefined;
    },
    "lost share with CONCURRENTLY − with REINDEX, per set",
  );

/** CONCURRENTLY ÷ plain rebuild seconds per set; a set whose probes split (PAIR_STATE_RULE) may measure the machine. */
export const rebuildPairs = (runs: readonly RunSummary[]) =>
  sameStatePairs(
    setsOf(runs).flatMap(({ set, by }) => {
      const [c, r] = [by.get("concurrently"), by.get("reindex")];
      return c?.reindexSeconds === undefined || !r?.reindexSeconds
        ? []
        : [{ set, ratio: c.reindexSeconds / r.reindexSeconds, probes: [c.speed?.medianMs, r.speed?.medianMs] }];
    }),
    (p) => p.probes,
    (p) => `set ${p.set}`,
  );

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

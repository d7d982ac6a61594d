/** Notebook 04's figures per run, per mode (medians over sets) and per set (ratios, with an exact interval). */
import { median } from "simple-statistics";
import type { LookPlan } from "../../stats/adaptive";
import { sameStatePairs, speedSpread, type SpeedSpread } from "../../stats/speed";
import { medianOf, quotient } from "../../stats/claim-statistics";
import type { Without } from "../../stats/claim-engine";
import { pgbenchFigures, statementLatency, type SeriesPoint } from "../../workloads/pgbench";
import type { ReindexMode } from "./params";
import { outlierFlags, type Interval } from "../../stats/intervals";
import { groupBy, spread, type Spread } from "../../stats/summary";
import { sumCounters } from "../../stats/counters";
import type { ReindexTrial } from "./workload/run-trials";
import type { ReadProbeRecord } from "./workload/read-probe";

/** Per run; per transaction = the delta over the run ÷ its transactions. */
export type RunSummary = ReturnType<typeof summariseRun>;
type Runs = readonly RunSummary[];
type Value = (r: RunSummary) => number | undefined;
/** A run's value that may need the summary (the run's length). */
export type RunValue = (r: RunSummary, s: ReindexSummary) => number | undefined;

/** The per-mode medians a table or a why reads, beside tps and the blocked seconds every run has. */
const SPREADS = ["updateAccountsMs", "p99Ms", "reindexSeconds", "accountsReindexSeconds", "lostShare"] as const;
export type ModeSummary = Record<"tps" | "blockedSeconds" | "allBlockedSeconds", Spread> &
  Partial<Record<(typeof SPREADS)[number] | "duringOutside", Spread>> &
  Partial<Record<"tpsRatio" | "updateRatio", Interval>> & { readonly mode: ReindexMode; readonly n: number };

export interface ReindexSummary {
  readonly durationSeconds: number;
  /** The claims engine decides at their coverage. */
  readonly looks?: LookPlan;
  readonly clients: number;
  readonly scale?: number;
  readonly speed?: SpeedSpread;
  readonly hostCpus?: number;
  readonly runs: Runs;
  readonly modes: readonly ModeSummary[];
  readonly failed: readonly { readonly key: string; readonly error: string }[];
}

/** TPS inside a window of the run and outside it, and the share of the run's transactions the window cost. */
export function windowStats(series: readonly SeriesPoint[], t0: number, runS: number, from: number, to: number) {
  const runEnd = t0 + runS * 1000;
  const [a, b] = [Math.max(from, t0), Math.min(to, runEnd)];
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
  const [windowS, outsideS] = [(b - a) / 1000, runS - (b - a) / 1000];
  if (outsideS <= 0) return undefined;
  const [during, outside] = [inside / windowS, (total - inside) / outsideS];
  return { during, outside, lostShare: outside > 0 ? ((outside - during) * windowS) / (outside * runS) : undefined };
}

/** Seconds [from, to] since the run's t0. */
type Span = readonly [number, number];

/** The longest time in `span` with no read completing: a read held up across the whole span counts all of it. */
function longestGap(doneS: readonly number[], [from, to]: Span): number {
  const inside = doneS.filter((t) => t > from && t < to).sort((a, b) => a - b);
  const points = [from, ...inside, to];
  return Math.max(...points.slice(1).map((t, i) => t - points[i]));
}

/** A run's read probe (none: stored before it, or `readProbeMs` 0); the window's figures need it reading throughout. */
export interface ReadFigures {
  readonly readProbeMs?: number;
  readonly readProbeError?: string;
  /** Reads started in the load outside the REINDEX window (the whole load in a baseline run). */
  readonly readsOutside?: number;
  readonly readMedianOutsideMs?: number;
  readonly readMaxOutsideMs?: number;
  /** The REINDEX window cut to the load, s. */
  readonly readWindowS?: number;
  readonly readsInWindow?: number;
  readonly readMaxInWindowMs?: number;
  /** The longest time in the window with no read completing, s. */
  readonly longestReadWaitS?: number;
}

/**
 * The read probe's figures in the REINDEX window (cut to the load) and in the rest of the load. The window's are
 * left out unless the probe read through the whole of it (an error or a late start leaves it unmeasured).
 */
export function readFigures(p: ReadProbeRecord | undefined, loadS: number, reindex?: Span): ReadFigures {
  if (!p) return {};
  const reads = p.startMs.map((ms, i) => ({
    startS: ms / 1000,
    ms: p.latencyMs[i],
    doneS: (ms + p.latencyMs[i]) / 1000,
  }));
  const window: Span | undefined = reindex && [Math.max(reindex[0], 0), Math.min(reindex[1], loadS)];
  const inWindow = (t: number) => window !== undefined && t >= window[0] && t < window[1];
  const covered = window && window[1] > window[0] && p.fromMs / 1000 <= window[0] && p.toMs / 1000 >= window[1];
  const outside = reads.filter((r) => r.startS >= 0 && r.startS < loadS && !inWindow(r.startS)).map((r) => r.ms);
  const within = reads.filter((r) => inWindow(r.startS)).map((r) => r.ms);
  return {
    readProbeMs: p.pauseMs,
    readProbeError: p.error,
    readsOutside: outside.length,
    readMedianOutsideMs: outside.length ? median(outside) : undefined,
    readMaxOutsideMs: outside.length ? Math.max(...outside) : undefined,
    ...(covered && window
      ? {
          readWindowS: window[1] - window[0],
          readsInWindow: within.length,
          readMaxInWindowMs: within.length ? Math.max(...within) : undefined,
          longestReadWaitS: longestGap(
            reads.map((r) => r.doneS),
            window,
          ),
        }
      : {}),
  };
}

type CompleteTrial = ReindexTrial & Required<Pick<ReindexTrial, "pgbench" | "timeline">>;

function summariseRun(t: CompleteTrial, baselineTps: number | undefined, durationSeconds: number) {
  const { pgbench: b, reindex: r } = t;
  const { samples: _n, intervalMs: _i, locks, ...timeline } = t.timeline;
  const c = t.counters ?? {};
  const accounts = r?.statements.find((s) => s.index === "pgbench_accounts_pkey");
  const upd = c["table.pgbench_accounts.n_tup_upd"];
  // The session-seconds spent waiting, in proportion to the samples whose lock was on pgbench_accounts.
  const lockSamples = sumCounters(locks, "");
  const accountsLockWaitSeconds = lockSamples
    ? (timeline.lockWaitSessionSeconds * sumCounters(locks, "relation pgbench_accounts ")) / lockSamples
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
    /** outlier: TPS far from its mode's other runs (OUTLIER_RULE); flags: outlier, checkpoint, autovacuum. */
    outlier: false as boolean,
    flags: [] as readonly string[],
    ...pgbenchFigures(b),
    maxMs: b.latency?.maxMs,
    updateAccountsMs: updateMs,
    accountsLockWaitSeconds,
    // Within the run: what its lock waits add to the average accounts UPDATE, and the rest.
    updateAddedMs,
    updateUnblockedMs: updateMs !== undefined && updateAddedMs !== undefined ? updateMs - updateAddedMs : undefined,
    updateAccountsServerMs: t.updateAccountsServer?.meanMs,
    reindexSeconds: r && !r.error ? (r.endMs - r.startMs) / 1000 : undefined,
    accountsReindexSeconds: accounts ? (accounts.endMs - accounts.startMs) / 1000 : undefined,
    reindexStartS: r ? (r.startMs - t0) / 1000 : undefined,
    reindexEndS: r ? (r.endMs - t0) / 1000 : undefined,
    reindexOutlastedLoad: r ? r.endMs > b.finishedAtMs : false,
    ...timeline,
    topLock: Object.keys(locks)[0] as string | undefined,
    tpsDuringReindex: w?.during,
    tpsOutsideReindex: w?.outside,
    lostShare: w?.lostShare,
    ...readFigures(
      t.readProbe,
      durationSeconds,
      r && !r.error ? [(r.startMs - t0) / 1000, (r.endMs - t0) / 1000] : undefined,
    ),
    tpsVsBaseline: baselineTps ? b.summary.tps / baselineTps : undefined,
    walBytesPerTransaction: c["wal.bytes"] !== undefined && tx ? c["wal.bytes"] / tx : undefined,
    accountsHotShare: upd ? (c["table.pgbench_accounts.n_tup_hot_upd"] ?? 0) / upd : undefined,
    series: b.series,
    statements: b.summary.statements,
    /** The zero of the timeline. */
    startMs: t0,
    ...(t.speed ? { speed: t.speed } : {}),
  };
}

type Context = Pick<ReindexSummary, "durationSeconds" | "clients" | "hostCpus" | "scale">;

export function summarise(trials: readonly ReindexTrial[], o: Context): ReindexSummary {
  const ok = trials.filter((t): t is CompleteTrial => t.status === "ok" && !!t.pgbench && !!t.timeline);
  const baselines = ok.filter((t) => t.condition.mode === "baseline");
  const baselineBySet = new Map(baselines.map((t) => [t.condition.set, t.pgbench.summary.tps]));
  const failed = trials.filter((t) => t.status === "failed").map((t) => ({ key: t.key, error: t.error ?? "" }));
  const runs = ok.map((t) => summariseRun(t, baselineBySet.get(t.condition.set), o.durationSeconds));
  return summariseRuns(runs, { ...o, failed });
}

export function summariseRuns(unflagged: Runs, o: Context & { failed?: ReindexSummary["failed"] }): ReindexSummary {
  const runs = flagRuns(unflagged);
  const modes = [...groupBy(runs, (r) => r.mode).values()].map((group): ModeSummary => {
    const mode = group[0].mode;
    const of = (pick: Value) => {
      const v = group.map(pick).filter((x): x is number => x !== undefined && Number.isFinite(x));
      return v.length ? spread(v) : undefined;
    };
    const vs = mode !== "baseline";
    return {
      mode,
      n: group.length,
      tps: spread(group.map((r) => r.tps)),
      ...Object.fromEntries(SPREADS.map((k) => [k, of((r) => r[k])])),
      blockedSeconds: spread(group.map((r) => r.blockedSeconds)),
      allBlockedSeconds: spread(group.map((r) => r.allBlockedSeconds)),
      duringOutside: of((r) => quotient(r.tpsDuringReindex, r.tpsOutsideReindex)),
      tpsRatio: vs ? vsBaseline(runs, mode, (r) => r.tps, "TPS") : undefined,
      updateRatio: vs
        ? vsBaseline(runs, mode, (r) => r.updateAccountsMs, "UPDATE pgbench_accounts latency")
        : undefined,
    };
  });
  const speed = speedSpread(runs);
  const { failed = [], ...context } = o;
  return { ...context, ...(speed ? { speed } : {}), runs, modes, failed };
}

function flagRuns(runs: Runs): RunSummary[] {
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
const setsOf = (runs: Runs) =>
  [...groupBy(runs, (r) => String(r.set)).values()]
    .map((g) => ({ set: g[0].set, by: new Map(g.map((r) => [r.mode, r])) }))
    .sort((a, b) => a.set - b.set);

/** A value per set from its runs by mode (run back to back; undefined where a mode is missing), median over sets. */
const perSet = (runs: Runs, of: string, f: (by: Map<ReindexMode, RunSummary>) => number | undefined) =>
  medianOf(setsOf(runs), (s) => f(s.by), of);

/** Within each run of a mode alone (the plain REINDEX unless named), so speed changes between runs do not move it. */
export const perRun = (s: ReindexSummary, pick: RunValue, of = "", mode: ReindexMode = "reindex") =>
  medianOf(runsOf(s, mode), (r) => pick(r, s), of);

const vsBaseline = (runs: Runs, mode: ReindexMode, pick: Value, what: string) =>
  perSet(runs, `${what} ${mode} ÷ the same set's baseline, per set`, (by) => {
    const [b, t] = [by.get("baseline"), by.get(mode)].map((r) => (r ? pick(r) : undefined));
    return b && t !== undefined ? t / b : undefined;
  });

/** (The unblocked UPDATE latency + what lock waits add to it) ÷ the unblocked latency, in each plain REINDEX run. */
const multiple = ({ updateUnblockedMs: u, updateAddedMs: added }: RunSummary) =>
  u && u > 0 && added !== undefined ? (u + added) / u : undefined;
export const updateWithinRun = (s: ReindexSummary) =>
  perRun(s, multiple, "UPDATE pgbench_accounts latency in the reindex run ÷ the same run's unblocked latency, per set");

export const modeSummary = (s: ReindexSummary, mode: ReindexMode) => s.modes.find((m) => m.mode === mode);

export const runsOf = (s: Pick<ReindexSummary, "runs">, mode: ReindexMode) =>
  s.runs.filter((r) => r.mode === mode).sort((a, b) => a.set - b.set);

/** The REINDEX window's seconds inside the load, or its length when its ends are unknown. */
export const windowSeconds: RunValue = ({ reindexStartS: a, reindexEndS: b, reindexSeconds }, s) =>
  a !== undefined && b !== undefined ? Math.max(0, Math.min(b, s.durationSeconds) - Math.max(a, 0)) : reindexSeconds;

/** The REINDEX window's share of the run. */
export const stallShare: RunValue = (r, s) => quotient(windowSeconds(r, s), s.durationSeconds);

/** Sampled seconds over a window from the REINDEX's own timestamps: one sample may fall past the window's edge. */
export const blockedShare: RunValue = (r, s) => quotient(r.blockedByReindexSeconds, windowSeconds(r, s));

export const lostDifference = (s: ReindexSummary) =>
  perSet(s.runs, "lost share with CONCURRENTLY − with REINDEX, per set", (by) => {
    const [c, r] = [by.get("concurrently")?.lostShare, by.get("reindex")?.lostShare];
    return c !== undefined && r !== undefined ? c - r : undefined;
  });

/** The longest the read probe went without a completed read in the REINDEX window ÷ the window. */
export const readWaitShare: RunValue = (r) => quotient(r.longestReadWaitS, r.readWindowS);

/** The REINDEX window ÷ the probe's pause: how many reads a window can hold when none waits. */
export const readsPerWindow: RunValue = (r) => quotient(r.readWindowS, r.readProbeMs && r.readProbeMs / 1000);

/** CONCURRENTLY ÷ plain rebuild seconds per set; a set whose probes split (PAIR_STATE_RULE) may measure the machine. */
export const rebuildPairs = (s: Pick<ReindexSummary, "runs">) =>
  sameStatePairs(
    setsOf(s.runs).flatMap(({ set, by }) => {
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

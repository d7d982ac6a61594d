/** Every figure notebook 05 shows; cases of a repeat run back to back, so comparisons pair per repeat. */
import { linearRegression, median } from "simple-statistics";
import type { Without } from "../../stats/claim-engine";
import { ENVIRONMENTS, type RoundTripsParams } from "./params";
import { medianInterval, outlierFlags, type Interval } from "../../stats/intervals";
import { groupBy, spread, type TrialSeconds } from "../../stats/summary";
import { CASE_INFO, CASES, type CaseId } from "./workload/cases";
import { SYNC_LEVELS, type SyncLevel } from "./workload/replication";
import type { EnvironmentKey, RoundTripTrial } from "./workload/trials";
import type { PgServerCounterKey } from "../../engines/postgres/server-counters";
import { ENVIRONMENT_INFO, type EnvironmentKind } from "./workload/environments";
import type { CalibrationRecord } from "./workload/links";
import type { PhasesResult, RoundTripsRun } from "./phases";

export const SEED_STATEMENTS = 10_000;

export interface CaseSummary extends TrialSeconds {
  readonly environment: EnvironmentKey;
  readonly case: CaseId;
  readonly statements: number;
  /** The median scaled to the seed's 10,000 statements (every case is linear in N but bulk_update). */
  readonly secondsPer10k: number;
  readonly roundTrips: number;
  readonly msPerRoundTrip: number;
  readonly statementP50Ms: number;
  readonly statementP50s: readonly number[];
  readonly statementP99Ms: number;
  /** As calibrated (median SELECT 1 through the link), ms. */
  readonly clientRttMs: number;
  /** Its select1 case's elapsed / N (the seed's measure), else the calibrated one, ms. */
  readonly rttMs: number;
  readonly standbyRttMs: number | null;
  readonly walSyncs: number;
  readonly walSyncTimeMs: number;
  readonly xactCommits: number;
  readonly walBytes: number;
  /** Fastest standby's, ms; null without standbys. */
  readonly flushLagMs: number | null;
  readonly writeLagMs: number | null;
  /** The proxy's delivery lateness (median of p50s, max of p99s), µs. */
  readonly linkLateP50Us: number | null;
  readonly linkLateP99Us: number | null;
  /** repeat → value, for pairing. */
  readonly secondsByRepeat: Readonly<Record<number, number>>;
  readonly statementP50ByRepeat: Readonly<Record<number, number>>;
  /** By OUTLIER_RULE on elapsed time; and those with a checkpoint inside. */
  readonly outlierRepeats: readonly number[];
  readonly checkpointRepeats: readonly number[];
}

export interface EnvironmentSummary {
  readonly environment: EnvironmentKey;
  readonly label: string;
  /** Whether its round trips and commits are loopback, emulated (consistency checks) or real (evidence). */
  readonly kind: EnvironmentKind;
  readonly quorum: boolean;
  readonly targetRttMs: number | null;
  readonly calibration?: CalibrationRecord;
  readonly rttMs?: number;
  readonly autocommit?: CaseSummary;
  readonly oneTransaction?: CaseSummary;
  /** (autocommit − one transaction) / N, ms: the seed's estimate; then paired per repeat. */
  readonly commitMs?: number;
  readonly commitInterval?: Interval;
  readonly preparedCommitMs?: number;
  /** Autocommit ÷ one transaction, paired per repeat; then on median statement times (robust to load spikes). */
  readonly ratio?: Interval;
  readonly statementRatio?: Interval;
  readonly walSyncMsPerCommit?: number;
  readonly walSyncsPerCommit?: number;
  readonly flushLagMs?: number | null;
  readonly standbyRttMs?: number | null;
}

export interface SweepSummary {
  readonly level: SyncLevel;
  readonly standbyTargetMs: number;
  readonly standbyRttMs: number;
  readonly trials: number;
  readonly commitMs: number;
  readonly commitMsMin: number;
  readonly commitMsMax: number;
  readonly walSyncMsPerCommit: number | null;
  readonly flushLagMs: number | null;
  readonly writeLagMs: number | null;
  readonly replayLagMs: number | null;
  readonly checkpointRepeats: readonly number[];
  /** repeat → median commit ms, for pairing levels. */
  readonly commitMsByRepeat: Readonly<Record<number, number>>;
}

export interface RoundTripsSummary extends PhasesResult {
  readonly params: RoundTripsParams;
  readonly statements: number;
  readonly cases: readonly CaseSummary[];
  readonly environments: readonly EnvironmentSummary[];
  readonly sweep: readonly SweepSummary[];
  readonly failed: readonly RoundTripTrial[];
  /** As measured at the primary's start: a WAL flush's least cost here. */
  readonly storage?: { readonly fsType: string; readonly device: string; readonly fsyncMs?: number };
}

const finite = (xs: readonly (number | null | undefined)[]) =>
  xs.filter((x): x is number => typeof x === "number" && Number.isFinite(x));
const med = (xs: readonly (number | null | undefined)[]): number => (finite(xs).length ? median(finite(xs)) : NaN);
const medOrNull = (xs: readonly (number | null | undefined)[]): number | null =>
  finite(xs).length ? median(finite(xs)) : null;
const counter = (t: RoundTripTrial, key: PgServerCounterKey) => t.counters?.[key] ?? 0;
const byRepeat = (ts: readonly RoundTripTrial[], f: (t: RoundTripTrial) => number | undefined) =>
  Object.fromEntries(ts.flatMap((t) => (Number.isFinite(f(t) ?? NaN) ? [[t.repeat, f(t) as number]] : [])));
const checkpointed = (ts: readonly RoundTripTrial[]) =>
  ts.filter((t) => counter(t, "checkpointer.timed") + counter(t, "checkpointer.requested") > 0).map((t) => t.repeat);
const p50 = (t: RoundTripTrial) => t.statementTimes?.p50Ms;

function summariseCase(
  environment: EnvironmentKey,
  c: CaseId,
  trials: readonly RoundTripTrial[],
): CaseSummary | undefined {
  const ok = trials.filter((t) => t.status === "ok" && t.seconds !== undefined);
  if (!ok.length) return undefined;
  const s = spread(ok.map((t) => t.seconds ?? NaN));
  const n = trials[0].condition.kind === "case" ? trials[0].condition.statements : 0;
  const roundTrips = CASE_INFO[c].roundTrips(n);
  const flags = outlierFlags(ok.map((t) => t.seconds));
  return {
    environment,
    case: c,
    statements: n,
    trials: ok.length,
    failed: trials.length - ok.length,
    seconds: s.values,
    medianSeconds: s.median,
    minSeconds: s.min,
    maxSeconds: s.max,
    secondsPer10k: c === "bulk_update" ? s.median : (s.median * SEED_STATEMENTS) / n,
    roundTrips,
    msPerRoundTrip: (s.median * 1000) / roundTrips,
    statementP50Ms: med(ok.map(p50)),
    statementP50s: finite(ok.map(p50)),
    statementP99Ms: med(ok.map((t) => t.statementTimes?.p99Ms)),
    clientRttMs: med(ok.map((t) => t.clientRttMs)),
    rttMs: med(ok.map((t) => t.clientRttMs)),
    standbyRttMs: medOrNull(ok.map((t) => t.standbyRttMs)),
    walSyncs: med(ok.map((t) => counter(t, "wal.sync"))),
    walSyncTimeMs: med(ok.map((t) => counter(t, "wal.sync_time_ms"))),
    xactCommits: med(ok.map((t) => counter(t, "db.xact_commit"))),
    walBytes: med(ok.map((t) => counter(t, "wal.bytes"))),
    flushLagMs: medOrNull(ok.map((t) => t.lags?.quorumFlushLagMs)),
    writeLagMs: medOrNull(ok.map((t) => t.lags?.quorumWriteLagMs)),
    linkLateP50Us: medOrNull(ok.map((t) => t.link?.lateP50Us)),
    linkLateP99Us: ok.some((t) => t.link) ? Math.max(...ok.map((t) => t.link?.lateP99Us ?? 0)) : null,
    secondsByRepeat: byRepeat(ok, (t) => t.seconds),
    statementP50ByRepeat: byRepeat(ok, p50),
    outlierRepeats: ok.filter((_, i) => flags[i]).map((t) => t.repeat),
    checkpointRepeats: checkpointed(ok),
  };
}

/** f(a, b) per repeat both cases finished (and `keep` allows), and the exact interval of its median. */
export function pairedInterval(
  a: Readonly<Record<number, number>>,
  b: Readonly<Record<number, number>>,
  f: (x: number, y: number) => number,
  of: string,
  keep: (repeat: number) => boolean = () => true,
): Interval | undefined {
  const values: number[] = [];
  for (const [key, x] of Object.entries(a)) {
    const repeat = Number(key);
    const y = b[repeat];
    if (y === undefined || !keep(repeat)) continue;
    const v = f(x, y);
    if (Number.isFinite(v)) values.push(v);
  }
  return values.length ? medianInterval(values, of) : undefined;
}

const ratio = (a: number, b: number) => a / b;
const bySeconds = (c: CaseSummary) => c.secondsByRepeat;

/** Repeats a sensitivity check leaves out of a pair: an outlier or a checkpoint in either case. */
export function flaggedRepeats(...cases: readonly (CaseSummary | undefined)[]): Set<number> {
  return new Set(cases.flatMap((c) => [...(c?.outlierRepeats ?? []), ...(c?.checkpointRepeats ?? [])]));
}

function summariseEnvironment(
  environment: EnvironmentKey,
  cases: readonly CaseSummary[],
  run: RoundTripsRun,
): EnvironmentSummary {
  const info = ENVIRONMENT_INFO[environment];
  const mine = (c: CaseId) => cases.find((s) => s.environment === environment && s.case === c);
  const auto = mine("update_autocommit");
  const one = mine("update_one_transaction");
  const pAuto = mine("prepared_autocommit");
  const pOne = mine("prepared_one_transaction");
  const target = info.clientTargetMs(run.params);
  const calibration = run.calibrations.find((c) => c.link === "client" && c.purpose.startsWith(`${environment} (`));
  const n = auto?.statements ?? one?.statements ?? run.params.statements;
  // An environment run on a host the user named (`hosts`) is measured, not emulated: its trials say so.
  const real = run.trials.some(
    (t) => t.real === true && t.condition.kind === "case" && t.condition.environment === environment,
  );
  const pair = (
    by: (c: CaseSummary) => Readonly<Record<number, number>>,
    f: (a: number, b: number) => number,
    of: string,
  ) => (auto && one ? pairedInterval(by(auto), by(one), f, of) : undefined);
  return {
    environment,
    label: real
      ? info.label.replace(/ \((emulated RTT, one server|2 standbys)\)$/, (_, what: string) =>
          what.startsWith("2") ? " (2 standbys on named hosts)" : " (real host)",
        )
      : info.label,
    kind: real ? "real" : info.kind,
    quorum: info.quorum,
    targetRttMs: target,
    calibration,
    rttMs: mine("select1")?.statementP50Ms,
    autocommit: auto,
    oneTransaction: one,
    commitMs: auto && one ? ((auto.medianSeconds - one.medianSeconds) * 1000) / n : undefined,
    commitInterval: pair(
      bySeconds,
      (a, b) => ((a - b) * 1000) / n,
      "(autocommit − one transaction) / N, ms, paired per repeat",
    ),
    preparedCommitMs: pAuto && pOne ? ((pAuto.medianSeconds - pOne.medianSeconds) * 1000) / n : undefined,
    ratio: pair(bySeconds, ratio, "autocommit ÷ one transaction, paired per repeat"),
    statementRatio: pair(
      (c) => c.statementP50ByRepeat,
      ratio,
      "median statement time, autocommit ÷ one transaction, paired per repeat",
    ),
    walSyncMsPerCommit: auto && auto.walSyncs > 0 ? auto.walSyncTimeMs / auto.walSyncs : undefined,
    walSyncsPerCommit: auto ? auto.walSyncs / n : undefined,
    flushLagMs: auto?.flushLagMs,
    standbyRttMs: auto?.standbyRttMs ?? mine("select1")?.standbyRttMs,
  };
}

function summariseSweep(trials: readonly RoundTripTrial[]): SweepSummary[] {
  const sweep = trials.filter((t) => t.status === "ok" && t.condition.kind === "commit-level");
  const groups = groupBy(sweep, (t) =>
    t.condition.kind === "commit-level" ? `${t.condition.standbyRttMs}|${t.condition.level}` : "",
  );
  const out: SweepSummary[] = [];
  for (const list of groups.values()) {
    const c = list[0].condition;
    if (c.kind !== "commit-level") continue;
    const commits = finite(list.map(p50));
    const syncs = med(list.map((t) => counter(t, "wal.sync")));
    out.push({
      level: c.level,
      standbyTargetMs: c.standbyRttMs,
      standbyRttMs: med(list.map((t) => t.standbyRttMs)),
      trials: list.length,
      commitMs: med(commits),
      commitMsMin: Math.min(...commits),
      commitMsMax: Math.max(...commits),
      walSyncMsPerCommit: syncs > 0 ? med(list.map((t) => counter(t, "wal.sync_time_ms"))) / syncs : null,
      flushLagMs: medOrNull(list.map((t) => t.lags?.quorumFlushLagMs)),
      writeLagMs: medOrNull(list.map((t) => t.lags?.quorumWriteLagMs)),
      replayLagMs: medOrNull(list.map((t) => t.lags?.quorumReplayLagMs)),
      checkpointRepeats: checkpointed(list),
      commitMsByRepeat: byRepeat(list, p50),
    });
  }
  return out.sort(
    (a, b) => a.standbyTargetMs - b.standbyTargetMs || SYNC_LEVELS.indexOf(a.level) - SYNC_LEVELS.indexOf(b.level),
  );
}

const ENV_ORDER: readonly EnvironmentKey[] = [...ENVIRONMENTS, "external"];

export function summarise(run: RoundTripsRun): RoundTripsSummary {
  const caseTrials = run.trials.filter((t) => t.condition.kind === "case");
  const groups = groupBy(caseTrials, (t) =>
    t.condition.kind === "case" ? `${t.condition.environment}|${t.condition.case}` : "",
  );
  const cases: CaseSummary[] = [];
  for (const list of groups.values()) {
    const c = list[0].condition;
    if (c.kind !== "case") continue;
    const s = summariseCase(c.environment, c.case, list);
    if (s) cases.push(s);
  }
  cases.sort(
    (a, b) =>
      ENV_ORDER.indexOf(a.environment) - ENV_ORDER.indexOf(b.environment) ||
      CASES.indexOf(a.case) - CASES.indexOf(b.case),
  );
  // The x of every chart: what the environment's own SELECT 1 stream took (elapsed / N, as the
  // seed measured it), not what calibration predicted.
  const measured = new Map(cases.filter((c) => c.case === "select1").map((c) => [c.environment, c.msPerRoundTrip]));
  for (const [i, c] of cases.entries()) cases[i] = { ...c, rttMs: measured.get(c.environment) ?? c.clientRttMs };
  const envs = ENV_ORDER.filter((e) => cases.some((c) => c.environment === e));
  const storage = run.metadata.servers.find((x) => x.engine === "postgresql" && x.storage)?.storage;
  return {
    params: run.params,
    statements: run.params.statements,
    cases,
    environments: envs.map((e) => summariseEnvironment(e, cases, run)),
    sweep: summariseSweep(run.trials),
    calibrations: run.calibrations,
    baselines: run.baselines,
    network: run.network,
    skipped: run.skipped,
    failed: run.trials.filter((t) => t.status === "failed"),
    ...(storage ? { storage } : {}),
  };
}

export function findEnvironment(s: RoundTripsSummary, e: EnvironmentKey): EnvironmentSummary | undefined {
  return s.environments.find((x) => x.environment === e);
}

/** A statement's time in the one-transaction case, ms: round trip + server time, the commit excluded. */
export const statementMs = (e: EnvironmentSummary | undefined) =>
  e?.oneTransaction ? (e.oneTransaction.secondsPer10k * 1000) / 10_000 : undefined;
/** What the server says a commit waited for: its local WAL flush and the fastest standby's flush lag. */
export const serverCommitMs = (e: EnvironmentSummary | undefined) =>
  e?.walSyncMsPerCommit === undefined
    ? undefined
    : // A lag never caught: every sample found the standbys caught up, nothing left to wait for.
      e.walSyncMsPerCommit + (e.quorum ? (e.flushLagMs ?? 0) : 0);
/** The server's commit ÷ a one-transaction statement, shown beside (c). */
export const commitShare = (e: EnvironmentSummary | undefined) => {
  const c = serverCommitMs(e);
  const st = statementMs(e);
  return c !== undefined && st ? c / st : undefined;
};

/** The client's round trip: its select1 case's, else the one-transaction case's calibrated link. */
export const clientRtt = (e: EnvironmentSummary | undefined) => e?.rttMs ?? e?.oneTransaction?.clientRttMs;
export const selectOne = (s: RoundTripsSummary, e: EnvironmentKey) =>
  s.cases.find((c) => c.environment === e && c.case === "select1");
export const crossOverSame = (s: RoundTripsSummary) => {
  const a = selectOne(s, "same-az");
  const b = selectOne(s, "cross-az");
  return a && b
    ? pairedInterval(
        b.secondsByRepeat,
        a.secondsByRepeat,
        (x, y) => x / y,
        "cross-AZ ÷ same-AZ SELECT 1 time, paired per repeat",
      )
    : undefined;
};

/** Per repeat: slope of one-transaction elapsed vs each single-server environment's SELECT 1 time, ÷ round trips. */
export function slopes(
  s: RoundTripsSummary,
): { slopes: number[]; envs: EnvironmentSummary[]; expected: number } | undefined {
  const points = s.environments
    .filter((e) => !e.quorum)
    .map((e) => ({ e, sel: selectOne(s, e.environment), one: e.oneTransaction }))
    .filter((p) => p.sel && p.one);
  if (points.length < 2) return undefined;
  const expected = CASE_INFO.update_one_transaction.roundTrips(points[0].one?.statements ?? s.statements);
  const repeats = new Set(points.flatMap((p) => Object.keys(p.one?.secondsByRepeat ?? {}).map(Number)));
  const out: number[] = [];
  for (const r of repeats) {
    const xy = points.flatMap((p) => {
      const x = p.sel?.secondsByRepeat[r];
      const y = p.one?.secondsByRepeat[r];
      return x !== undefined && y !== undefined ? [[(x * 1000) / (p.sel?.roundTrips ?? 1), y * 1000]] : [];
    });
    if (new Set(xy.map((p) => p[0].toFixed(4))).size >= 2) out.push(linearRegression(xy).m / expected);
  }
  return out.length ? { slopes: out, envs: points.map((p) => p.e), expected } : undefined;
}

/** The sweep's two levels at the largest standby round trip both ran at: on, and local (else off). */
export function sweepPair(s: RoundTripsSummary) {
  const base = s.sweep.some((x) => x.level === "local") ? "local" : "off";
  const at = (level: string, rtt: number) => s.sweep.find((x) => x.level === level && x.standbyTargetMs === rtt);
  const rtt = [...new Set(s.sweep.map((x) => x.standbyTargetMs))]
    .filter((r) => at("on", r) && at(base, r))
    .sort((a, b) => b - a)[0];
  const on = rtt === undefined ? undefined : at("on", rtt);
  const local = rtt === undefined ? undefined : at(base, rtt);
  return on && local ? { on, local, base } : undefined;
}

/** Server account ÷ gap per commit: the gap's interval, inverted, under the server's (median) account. */
export function shareOf(env: EnvironmentKey) {
  return (s: RoundTripsSummary): Interval | undefined => {
    const q = findEnvironment(s, env);
    const server = serverCommitMs(q);
    const g = q?.commitInterval;
    if (!g || server === undefined || !Number.isFinite(server) || g.low <= 0) return undefined;
    return {
      ...g,
      estimate: server / g.estimate,
      low: server / g.high,
      high: server / g.low,
      of: "server commit account ÷ gap per commit (a − b) / N, per repeat",
    };
  };
}

/** The single-server environments' ratios without their flagged repeats. */
export function withoutFlagged(s: RoundTripsSummary): Without<RoundTripsSummary> {
  const all = new Set<string>();
  const environments = s.environments.map((e) => {
    if (!e.autocommit || !e.oneTransaction || !e.ratio || e.quorum) return e;
    const flagged = flaggedRepeats(e.autocommit, e.oneTransaction);
    for (const r of flagged) all.add(`${e.environment} ${r}`);
    const keep = (r: number) => !flagged.has(r);
    return {
      ...e,
      ratio: pairedInterval(e.autocommit.secondsByRepeat, e.oneTransaction.secondsByRepeat, ratio, e.ratio.of, keep),
    };
  });
  return {
    summary: { ...s, environments },
    flagged: {
      noun: "repeat",
      count: all.size,
      detail: [...all].join(", "),
      none: "No trial of either case was flagged (outlier by elapsed time, or a checkpoint inside).",
    },
  };
}

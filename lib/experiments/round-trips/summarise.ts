/** Every figure notebook 05 shows; cases of a repeat run back to back, so comparisons pair per repeat. */
import { linearRegression, median } from "simple-statistics";
import type { Without } from "../../stats/claim-engine";
import { medianOf } from "../../stats/claim-statistics";
import { ENVIRONMENTS } from "./params";
import { medianInterval, outlierFlags, type Interval } from "../../stats/intervals";
import { groupBy, secondsSpread } from "../../stats/summary";
import { CASE_INFO, CASES, type CaseId } from "./workload/cases";
import { SYNC_LEVELS } from "./workload/replication";
import type { EnvironmentKey, RoundTripCondition, RoundTripTrial } from "./workload/trials";
import type { PgServerCounterKey } from "../../engines/postgres/server-counters";
import { ENVIRONMENT_INFO, type EnvironmentKind } from "./workload/environments";
import type { RunOf } from "../define";
import type { RoundTripsParams } from "./params";
import type { PhasesResult } from "./workload/phases";

export type RoundTripsRun = RunOf<RoundTripsParams, RoundTripTrial, PhasesResult>;

export type CaseSummary = NonNullable<ReturnType<typeof summariseCase>>;
export type EnvironmentSummary = ReturnType<typeof summariseEnvironment>;
export type RoundTripsSummary = ReturnType<typeof summarise>;

type Num = number | null | undefined;
const finite = (xs: readonly Num[]) => xs.filter((x): x is number => typeof x === "number" && Number.isFinite(x));
const medOrNull = (xs: readonly Num[]): number | null => (finite(xs).length ? median(finite(xs)) : null);
const med = (xs: readonly Num[]): number => medOrNull(xs) ?? NaN;
const counter = (t: RoundTripTrial, key: PgServerCounterKey) => t.counters?.[key] ?? 0;
const byRepeat = (ts: readonly RoundTripTrial[], f: (t: RoundTripTrial) => Num): Record<number, number> =>
  Object.fromEntries(ts.flatMap((t) => (Number.isFinite(f(t) ?? NaN) ? [[t.repeat, f(t) as number]] : [])));
const checkpointed = (ts: readonly RoundTripTrial[]) =>
  ts.filter((t) => counter(t, "checkpointer.timed") + counter(t, "checkpointer.requested") > 0).map((t) => t.repeat);
const p50 = (t: RoundTripTrial) => t.statementTimes?.p50Ms;
const lag = (ts: readonly RoundTripTrial[], k: "quorumFlushLagMs" | "quorumWriteLagMs" | "quorumReplayLagMs") =>
  medOrNull(ts.map((t) => t.lags?.[k]));

function grouped<K extends RoundTripCondition["kind"]>(
  trials: readonly RoundTripTrial[],
  kind: K,
  key: (c: Extract<RoundTripCondition, { kind: K }>) => string,
) {
  type C = Extract<RoundTripCondition, { kind: K }>;
  const mine = trials.filter((t) => t.condition.kind === kind);
  return [...groupBy(mine, (t) => key(t.condition as C)).values()].map((list) => ({ c: list[0].condition as C, list }));
}

function summariseCase(c: Extract<RoundTripCondition, { kind: "case" }>, trials: readonly RoundTripTrial[]) {
  const ok = trials.filter((t) => t.status === "ok" && t.seconds !== undefined);
  if (!ok.length) return undefined;
  const s = secondsSpread(ok.map((t) => t.seconds ?? NaN));
  const n = c.statements;
  const roundTrips = CASE_INFO[c.case].roundTrips(n);
  const flags = outlierFlags(ok.map((t) => t.seconds ?? NaN));
  const rtt = med(ok.map((t) => t.clientRttMs));
  return {
    environment: c.environment,
    case: c.case,
    statements: n,
    trials: ok.length,
    ...s,
    /** The median scaled to the seed's 10,000 statements (every case is linear in N but bulk_update). */
    secondsPer10k: c.case === "bulk_update" ? s.medianSeconds : (s.medianSeconds * 10_000) / n,
    roundTrips,
    msPerRoundTrip: (s.medianSeconds * 1000) / roundTrips,
    statementP50Ms: med(ok.map(p50)),
    statementP99Ms: med(ok.map((t) => t.statementTimes?.p99Ms)),
    /** As calibrated (median SELECT 1 through the link); rttMs becomes its select1 case's elapsed / N where it ran. */
    clientRttMs: rtt,
    rttMs: rtt,
    standbyRttMs: medOrNull(ok.map((t) => t.standbyRttMs)),
    walSyncs: med(ok.map((t) => counter(t, "wal.sync"))),
    walSyncTimeMs: med(ok.map((t) => counter(t, "wal.sync_time_ms"))),
    xactCommits: med(ok.map((t) => counter(t, "db.xact_commit"))),
    walBytes: med(ok.map((t) => counter(t, "wal.bytes"))),
    flushLagMs: lag(ok, "quorumFlushLagMs"),
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
  const pairs = Object.entries(a).filter(([r]) => b[Number(r)] !== undefined && keep(Number(r)));
  return medianOf(pairs, ([r, x]) => f(x, b[Number(r)]), of);
}

const ratio = (a: number, b: number) => a / b;

/** Repeats a sensitivity check leaves out of a pair: an outlier or a checkpoint in either case. */
export const flaggedRepeats = (...cases: readonly (CaseSummary | undefined)[]): Set<number> =>
  new Set(cases.flatMap((c) => [...(c?.outlierRepeats ?? []), ...(c?.checkpointRepeats ?? [])]));

function summariseEnvironment(environment: EnvironmentKey, cases: readonly CaseSummary[], run: RoundTripsRun) {
  const info = ENVIRONMENT_INFO[environment];
  const mine = (c: CaseId) => cases.find((s) => s.environment === environment && s.case === c);
  const [auto, one, pAuto, pOne] = (
    ["update_autocommit", "update_one_transaction", "prepared_autocommit", "prepared_one_transaction"] as const
  ).map(mine);
  const n = auto?.statements ?? one?.statements ?? run.params.statements;
  // An environment run on a host the user named (`hosts`) is measured, not emulated: its trials say so.
  const real = run.trials.some(
    (t) => t.real === true && t.condition.kind === "case" && t.condition.environment === environment,
  );
  const pair = (by: (c: CaseSummary) => Record<number, number>, f: (a: number, b: number) => number, of: string) =>
    auto && one ? pairedInterval(by(auto), by(one), f, of) : undefined;
  const kind: EnvironmentKind = real ? "real" : info.kind;
  const gap = (a?: CaseSummary, b?: CaseSummary) =>
    a && b ? ((a.medianSeconds - b.medianSeconds) * 1000) / n : undefined;
  return {
    environment,
    label: real
      ? `${info.label.replace(/ \(.*\)$/, "")} (${info.quorum ? "2 standbys on named hosts" : "real host"})`
      : info.label,
    /** Whether its round trips and commits are loopback, emulated (consistency checks) or real (evidence). */
    kind,
    quorum: info.quorum,
    targetRttMs: info.clientTargetMs(run.params),
    calibration: run.calibrations.find((c) => c.link === "client" && c.purpose.startsWith(`${environment} (`)),
    rttMs: mine("select1")?.statementP50Ms,
    autocommit: auto,
    oneTransaction: one,
    /** (autocommit − one transaction) / N, ms: the seed's estimate; then paired per repeat. */
    commitMs: gap(auto, one),
    commitInterval: pair(
      (c) => c.secondsByRepeat,
      (a, b) => ((a - b) * 1000) / n,
      "(autocommit − one transaction) / N, ms, paired per repeat",
    ),
    preparedCommitMs: gap(pAuto, pOne),
    /** Autocommit ÷ one transaction, paired per repeat; then on median statement times (robust to load spikes). */
    ratio: pair((c) => c.secondsByRepeat, ratio, "autocommit ÷ one transaction, paired per repeat"),
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

function summariseSweep({ c, list }: ReturnType<typeof grouped<"commit-level">>[number]) {
  const commits = finite(list.map(p50));
  const syncs = med(list.map((t) => counter(t, "wal.sync")));
  return {
    level: c.level,
    standbyTargetMs: c.standbyRttMs,
    standbyRttMs: med(list.map((t) => t.standbyRttMs)),
    commitMs: med(commits),
    commitMsMin: Math.min(...commits),
    commitMsMax: Math.max(...commits),
    walSyncMsPerCommit: syncs > 0 ? med(list.map((t) => counter(t, "wal.sync_time_ms"))) / syncs : null,
    flushLagMs: lag(list, "quorumFlushLagMs"),
    writeLagMs: lag(list, "quorumWriteLagMs"),
    replayLagMs: lag(list, "quorumReplayLagMs"),
    checkpointRepeats: checkpointed(list),
    commitMsByRepeat: byRepeat(list, p50),
  };
}

const ENV_ORDER: readonly EnvironmentKey[] = [...ENVIRONMENTS, "external"];
const order = <T>(list: readonly T[], x: T) => list.indexOf(x);

export function summarise(run: RoundTripsRun) {
  const cases = grouped(run.trials, "case", (c) => `${c.environment}|${c.case}`)
    .flatMap(({ c, list }) => summariseCase(c, list) ?? [])
    .sort(
      (a, b) =>
        order(ENV_ORDER, a.environment) - order(ENV_ORDER, b.environment) ||
        order(CASES, a.case) - order(CASES, b.case),
    );
  // The x of every chart: what the environment's own SELECT 1 stream took (elapsed / N, as the
  // seed measured it), not what calibration predicted.
  const measured = new Map(cases.filter((c) => c.case === "select1").map((c) => [c.environment, c.msPerRoundTrip]));
  for (const [i, c] of cases.entries()) cases[i] = { ...c, rttMs: measured.get(c.environment) ?? c.clientRttMs };
  const envs = ENV_ORDER.filter((e) => cases.some((c) => c.environment === e));
  // As measured at the primary's start: a WAL flush's least cost here.
  const storage = run.metadata.servers.find((x) => x.engine === "postgresql" && x.storage)?.storage;
  const ok = run.trials.filter((t) => t.status === "ok");
  return {
    params: run.params,
    statements: run.params.statements,
    cases,
    environments: envs.map((e) => summariseEnvironment(e, cases, run)),
    sweep: grouped(ok, "commit-level", (c) => `${c.standbyRttMs}|${c.level}`)
      .map(summariseSweep)
      .sort(
        (a, b) => a.standbyTargetMs - b.standbyTargetMs || order(SYNC_LEVELS, a.level) - order(SYNC_LEVELS, b.level),
      ),
    calibrations: run.calibrations,
    network: run.network,
    ...(storage ? { storage } : {}),
  };
}

export const findEnvironment = (s: RoundTripsSummary, e: EnvironmentKey) =>
  s.environments.find((x) => x.environment === e);

/** `env` where both its UPDATE cases ran. */
export const updated = (env: EnvironmentKey) => (s: RoundTripsSummary) => {
  const e = findEnvironment(s, env);
  return e?.autocommit && e.oneTransaction
    ? (e as EnvironmentSummary & { [K in "autocommit" | "oneTransaction"]: NonNullable<EnvironmentSummary[K]> })
    : undefined;
};

/** A statement's time in the one-transaction case, ms: round trip + server time, the commit excluded. */
export const statementMs = (e: EnvironmentSummary | undefined) =>
  e?.oneTransaction ? (e.oneTransaction.secondsPer10k * 1000) / 10_000 : undefined;
/** What the server says a commit waited for: its local WAL flush and (a lag never caught: 0) the fastest standby's. */
export const serverCommitMs = (e: EnvironmentSummary | undefined) =>
  e?.walSyncMsPerCommit === undefined ? undefined : e.walSyncMsPerCommit + (e.quorum ? (e.flushLagMs ?? 0) : 0);
export const commitShare = (e: EnvironmentSummary | undefined) => {
  const [c, st] = [serverCommitMs(e), statementMs(e)];
  return c !== undefined && st ? c / st : undefined;
};

/** The client's round trip: its select1 case's, else the one-transaction case's calibrated link. */
export const clientRtt = (e: EnvironmentSummary | undefined) => e?.rttMs ?? e?.oneTransaction?.clientRttMs;
export const selectOne = (s: RoundTripsSummary, e: EnvironmentKey) =>
  s.cases.find((c) => c.environment === e && c.case === "select1");
export const crossOverSame = (s: RoundTripsSummary) => {
  const [a, b] = [selectOne(s, "same-az"), selectOne(s, "cross-az")];
  return a && b
    ? pairedInterval(b.secondsByRepeat, a.secondsByRepeat, ratio, "cross-AZ ÷ same-AZ SELECT 1 time, paired per repeat")
    : undefined;
};

/** Per repeat: slope of one-transaction elapsed vs each single-server environment's SELECT 1 time, ÷ round trips. */
export function slopes(s: RoundTripsSummary): { slopes: number[]; envs: EnvironmentSummary[] } | undefined {
  const points = s.environments.flatMap((e) => {
    const [sel, one] = [selectOne(s, e.environment), e.oneTransaction];
    return !e.quorum && sel && one ? [{ e, sel, one }] : [];
  });
  if (points.length < 2) return undefined;
  const expected = CASE_INFO.update_one_transaction.roundTrips(points[0].one.statements);
  const repeats = new Set(points.flatMap((p) => Object.keys(p.one.secondsByRepeat).map(Number)));
  const out: number[] = [];
  for (const r of repeats) {
    const xy = points.flatMap(({ sel, one }) => {
      const [x, y] = [sel.secondsByRepeat[r], one.secondsByRepeat[r]];
      return x !== undefined && y !== undefined ? [[(x * 1000) / sel.roundTrips, y * 1000]] : [];
    });
    if (new Set(xy.map((p) => p[0].toFixed(4))).size >= 2) out.push(linearRegression(xy).m / expected);
  }
  return out.length ? { slopes: out, envs: points.map((p) => p.e) } : undefined;
}

/** (d)'s statistic: the slopes' median and its exact interval. */
export const slopeInterval = (s: RoundTripsSummary) => {
  const x = slopes(s);
  return x && medianInterval(x.slopes, "slope ÷ round trips of the one-transaction case, one per repeat");
};

/** The sweep's two levels at the largest standby round trip both ran at: on, and local (else off). */
export function sweepPair(s: RoundTripsSummary) {
  const base = s.sweep.some((x) => x.level === "local") ? "local" : "off";
  const at = (level: string, rtt: number) => s.sweep.find((x) => x.level === level && x.standbyTargetMs === rtt);
  const rtt = [...new Set(s.sweep.map((x) => x.standbyTargetMs))]
    .filter((r) => at("on", r) && at(base, r))
    .sort((a, b) => b - a)[0];
  const [on, local] = rtt === undefined ? [] : [at("on", rtt), at(base, rtt)];
  return on && local ? { on, local, base } : undefined;
}

/** (on − local, else off) commit time ÷ the standby round trip, paired per repeat: a synchronous standby's share. */
export const standbyOverhead = (s: RoundTripsSummary) => {
  const x = sweepPair(s);
  const of = `(on − ${x?.base}) commit time ÷ standby round trip, paired per repeat`;
  return (
    x && pairedInterval(x.on.commitMsByRepeat, x.local.commitMsByRepeat, (a, b) => (a - b) / x.on.standbyRttMs, of)
  );
};

/** Server account ÷ gap per commit: the gap's interval, inverted, under the server's (median) account. */
export const shareOf =
  (env: EnvironmentKey) =>
  (s: RoundTripsSummary): Interval | undefined => {
    const q = findEnvironment(s, env);
    const [server, g] = [serverCommitMs(q), q?.commitInterval];
    if (!g || server === undefined || !Number.isFinite(server) || g.low <= 0) return undefined;
    const of = "server commit account ÷ gap per commit (a − b) / N, per repeat";
    return { ...g, estimate: server / g.estimate, low: server / g.high, high: server / g.low, of };
  };

export function withoutFlagged(s: RoundTripsSummary): Without<RoundTripsSummary> {
  const all = new Set<string>();
  const environments = s.environments.map((e) => {
    if (!e.autocommit || !e.oneTransaction || !e.ratio || e.quorum) return e;
    const flagged = flaggedRepeats(e.autocommit, e.oneTransaction);
    for (const r of flagged) all.add(`${e.environment} ${r}`);
    const keep = (r: number) => !flagged.has(r);
    const { autocommit: a, oneTransaction: b } = e;
    return { ...e, ratio: pairedInterval(a.secondsByRepeat, b.secondsByRepeat, ratio, e.ratio.of, keep) };
  });
  const none = "No trial of either case was flagged (outlier by elapsed time, or a checkpoint inside).";
  return {
    summary: { ...s, environments },
    flagged: { noun: "repeat", count: all.size, detail: [...all].join(", "), none },
  };
}

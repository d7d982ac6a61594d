/** One trial, start to record; a phase's trials are a plan (`caseTrial`, `commitLevelTrial`) run by `timedTrial`. */
import type { Client } from "pg";
import { serverCounters } from "../../../engines/postgres/server-counters";
import type { DelayLink } from "../../../network/types";
import { counterDelta } from "../../../stats/counters";
import { CASE_INFO, statements, type CaseId } from "./cases";
import { resetTable } from "./dataset";
import { LagSampler, waitForReplay, type SyncLevel } from "./replication";
import { timeStatements } from "../../../workloads/statement-timing";
import { timed, type SecondsOf } from "../../../workloads/timed";
import { trialKey, type EnvironmentKey, type RoundTripCondition, type RoundTripTrial } from "./trials";
import type { PlannedTrial } from "../../../workloads/trials";

export interface PlannedRoundTrip extends PlannedTrial<RoundTripCondition> {
  readonly order?: number;
  readonly roundTrips: number;
  readonly prepare: () => Promise<void>;
  readonly run: () => ReturnType<typeof timeStatements>;
}

export interface Session {
  readonly bench: Client;
  /** Direct: resets and counters (admin), lag samples (lagAdmin). */
  readonly admin: Client;
  readonly lagAdmin?: Client;
  readonly rows: number;
  readonly clientRttMs: number;
  readonly standbyRttMs: number | null;
  /** The bench connection's link, if any: its delivery stats are recorded. */
  readonly link?: DelayLink;
  readonly real?: boolean;
}

/** Where a trial stands in its block (the repeat, its place in the rotated order) and the run's abort signal. */
export type Slot = Pick<PlannedRoundTrip, "repeat" | "order"> & { readonly signal?: AbortSignal };

/**
 * PostgreSQL 17 skips a backend's stats flush when no table, I/O or WAL stats are pending, keeping
 * its transaction counts too (a SELECT 1 stream would land in the next trial's xact_commit): a
 * catalog row read makes relation stats pending, so the counts go out with them.
 */
async function counters(s: Session) {
  await s.bench.query("SELECT 1 FROM pg_class WHERE oid = 1259");
  return serverCounters(s.admin, s.bench);
}

/** runTrials' runOne: reset, counters, the timed stream with lags sampled, counters, the link's record. */
export async function timedTrial(s: Session, planned: PlannedRoundTrip, beforeSeconds?: SecondsOf<string>) {
  const { key, condition, repeat, order, roundTrips } = planned;
  const startedAt = new Date().toISOString();
  const [, prepareSeconds] = await timed(() => planned.prepare());
  const [, replayWaitSeconds] = await timed(async () => {
    if (s.lagAdmin) await waitForReplay(s.admin);
  });
  const [before, countersBefore] = await timed(() => counters(s));
  await s.link?.stats(true);
  const sampler = s.lagAdmin ? new LagSampler(s.lagAdmin) : undefined;
  sampler?.start();
  let lags;
  let stream;
  try {
    stream = await planned.run();
  } finally {
    lags = await sampler?.stop();
  }
  const [after, countersAfter] = await timed(() => counters(s));
  const link = await s.link?.stats();
  const trial: RoundTripTrial = {
    key,
    condition,
    repeat,
    status: "ok",
    seconds: stream.seconds,
    counters: counterDelta(before, after),
    startedAt,
    finishedAt: new Date().toISOString(),
    roundTrips,
    statementTimes: stream.statements,
    clientRttMs: s.clientRttMs,
    standbyRttMs: s.standbyRttMs,
    ...(lags ? { lags } : {}),
    ...(link ? { link } : {}),
    ...(s.real ? { real: true } : {}),
    ...(order !== undefined ? { order } : {}),
    ...(beforeSeconds ? { beforeSeconds } : {}),
    prepareSeconds,
    ...(s.lagAdmin ? { replayWaitSeconds } : {}),
    countersSeconds: countersBefore + countersAfter,
  };
  return trial;
}

type Trial = Pick<PlannedRoundTrip, "roundTrips" | "prepare" | "run">;
const planned = (condition: RoundTripCondition, { repeat, order }: Slot, rest: Trial): PlannedRoundTrip => ({
  key: trialKey(condition, repeat),
  condition,
  repeat,
  order,
  ...rest,
});

export function caseTrial(s: Session, at: Slot, environment: EnvironmentKey, c: CaseId, n: number) {
  const info = CASE_INFO[c];
  const roundTrips = info.roundTrips(n);
  return planned({ kind: "case", environment, case: c, statements: n }, at, {
    roundTrips,
    prepare: async () => {
      if (info.writes) await resetTable(s.admin, s.rows);
      await s.bench.query("DEALLOCATE ALL");
    },
    run: () => timeStatements(s.bench, statements(c, n), roundTrips, at.signal),
  });
}

/** Autocommit single-row UPDATEs of a non-indexed column (always HOT) at one synchronous_commit level. */
export function commitLevelTrial(s: Session, at: Slot, level: SyncLevel, standbyRttMs: number, commits: number) {
  const sql = function* () {
    for (let i = 0; i < commits; i++)
      yield `UPDATE benchmark_accounts SET version = version + 1 WHERE id = ${1 + (i % s.rows)}`;
  };
  return planned({ kind: "commit-level", level, standbyRttMs, commits }, at, {
    roundTrips: commits,
    prepare: async () => {
      // The sweep's UPDATEs dirty pages trial after trial: a checkpoint first keeps one out of the timed window.
      await s.admin.query("CHECKPOINT");
      await s.bench.query(`SET synchronous_commit = ${level}`);
    },
    run: async () => {
      try {
        return await timeStatements(s.bench, sql(), commits, at.signal);
      } finally {
        await s.bench.query("RESET synchronous_commit");
      }
    },
  });
}

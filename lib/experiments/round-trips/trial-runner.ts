/**
 * One trial, start to record: untimed reset, counters before, the timed statement stream, counters
 * after, replication lags sampled during it, the link's own delivery record — appended to the run
 * as soon as it ends.
 */
import type { Client } from "pg";
import { serverCounters } from "../../engines/postgres/server-counters";
import type { DelayLink } from "../../network/types";
import type { RunStore } from "../../results/run-store";
import { counterDelta } from "../../stats/counters";
import { CASE_INFO, statements, type CaseId } from "../../workloads/round-trips/cases";
import { resetTable } from "../../workloads/round-trips/dataset";
import { LagSampler, waitForReplay, type LagSummary, type SyncLevel } from "../../workloads/round-trips/replication";
import { timeStatements } from "../../workloads/round-trips/timing";
import {
  trialKey,
  type EnvironmentKey,
  type RoundTripCondition,
  type RoundTripTrial,
} from "../../workloads/round-trips/trials";
import { ignored } from "../../runtime/debug";
import { watchTrial } from "../../workloads/watchdog";

export interface TrialContext {
  readonly store: RunStore<RoundTripCondition>;
  /** Keys of trials already on disk (a resumed run skips them). */
  readonly finished: ReadonlySet<string>;
  readonly signal?: AbortSignal;
  readonly continueOnError: boolean;
  /** Called after each trial (recorded or skipped). */
  readonly onTrial: (trial: RoundTripTrial | undefined, label: string) => void;
}

export interface Session {
  /** The timed connection (through the client link, or direct). */
  readonly bench: Client;
  /** Direct connections to the server: resets and counters; lag samples. */
  readonly admin: Client;
  readonly lagAdmin?: Client;
  readonly rows: number;
  readonly clientRttMs: number;
  readonly standbyRttMs: number | null;
  /** The link the bench connection goes through, if any (its delivery stats are recorded). */
  readonly link?: DelayLink;
  /** The servers are on hosts the user named, reached over the real network (recorded as `real`). */
  readonly real?: boolean;
}

/**
 * Gives the bench session something to flush before a counter snapshot. PostgreSQL 17 skips a
 * backend's stats flush — forced or not — when no table, I/O or WAL stats are pending, and then
 * keeps its transaction counts too: a stream of SELECT 1 would land in the next trial's
 * xact_commit. Reading a catalog row makes relation stats pending, so the counts go out with them.
 */
async function counters(s: Session) {
  await s.bench.query("SELECT 1 FROM pg_class WHERE oid = 1259");
  return serverCounters(s.admin, s.bench);
}

async function timedTrial(
  ctx: TrialContext,
  s: Session,
  condition: RoundTripCondition,
  repeat: number,
  prepare: () => Promise<void>,
  run: () => ReturnType<typeof timeStatements>,
  roundTrips: number,
  order?: number,
): Promise<void> {
  const key = trialKey(condition, repeat);
  if (ctx.finished.has(key)) {
    ctx.onTrial(undefined, key);
    return;
  }
  const startedAt = new Date().toISOString();
  let trial: RoundTripTrial;
  try {
    // Under the session's stall watchdog, like every notebook's trials: a frozen server fails the trial in bounded
    // time.
    trial = await watchTrial(
      "postgresql",
      `running ${key}`,
      async (): Promise<RoundTripTrial> => {
        await prepare();
        if (s.lagAdmin) await waitForReplay(s.admin);
        const before = await counters(s);
        await s.link?.stats(true);
        const sampler = s.lagAdmin ? new LagSampler(s.lagAdmin) : undefined;
        sampler?.start();
        let lags: LagSummary | undefined;
        let timed;
        try {
          timed = await run();
        } finally {
          lags = await sampler?.stop();
        }
        const after = await counters(s);
        const link = await s.link?.stats();
        return {
          key,
          condition,
          repeat,
          status: "ok",
          seconds: timed.seconds,
          counters: counterDelta(before, after),
          startedAt,
          finishedAt: new Date().toISOString(),
          roundTrips,
          statementTimes: timed.statements,
          clientRttMs: s.clientRttMs,
          standbyRttMs: s.standbyRttMs,
          ...(lags ? { lags } : {}),
          ...(link ? { link } : {}),
          ...(s.real ? { real: true } : {}),
          ...(order !== undefined ? { order } : {}),
        };
      },
      condition.kind,
    );
  } catch (error) {
    // An error inside BEGIN … leaves the session in an aborted transaction: end it for the next case.
    await s.bench.query("ROLLBACK").catch(ignored("round-trips: ROLLBACK after a failed case"));
    if (!ctx.continueOnError || ctx.signal?.aborted) throw error;
    trial = {
      key,
      condition,
      repeat,
      status: "failed",
      error: error instanceof Error ? error.message : String(error),
      startedAt,
      finishedAt: new Date().toISOString(),
    };
  }
  ctx.store.append(trial);
  ctx.onTrial(trial, key);
}

/** One of the seed's cases, N statements, on a fresh copy of the seed's table. */
export function runCaseTrial(
  ctx: TrialContext,
  s: Session,
  environment: EnvironmentKey,
  c: CaseId,
  n: number,
  repeat: number,
  order?: number,
): Promise<void> {
  const info = CASE_INFO[c];
  const roundTrips = info.roundTrips(n);
  return timedTrial(
    ctx,
    s,
    { kind: "case", environment, case: c, statements: n },
    repeat,
    async () => {
      if (info.writes) await resetTable(s.admin, s.rows);
      await s.bench.query("DEALLOCATE ALL");
    },
    () => timeStatements(s.bench, statements(c, n), roundTrips, ctx.signal),
    roundTrips,
    order,
  );
}

/** `commits` autocommit single-row UPDATEs of a non-indexed column (always HOT) at one synchronous_commit level. */
export function runCommitLevelTrial(
  ctx: TrialContext,
  s: Session,
  level: SyncLevel,
  standbyTargetMs: number,
  commits: number,
  repeat: number,
  order?: number,
): Promise<void> {
  const sql = function* () {
    for (let i = 0; i < commits; i++)
      yield `UPDATE benchmark_accounts SET version = version + 1 WHERE id = ${1 + (i % s.rows)}`;
  };
  return timedTrial(
    ctx,
    s,
    { kind: "commit-level", level, standbyRttMs: standbyTargetMs, commits },
    repeat,
    async () => {
      // The sweep's UPDATEs dirty pages trial after trial: a checkpoint first keeps one out of the timed window.
      await s.admin.query("CHECKPOINT");
      await s.bench.query(`SET synchronous_commit = ${level}`);
    },
    async () => {
      try {
        return await timeStatements(s.bench, sql(), commits, ctx.signal);
      } finally {
        await s.bench.query("RESET synchronous_commit");
      }
    },
    commits,
    order,
  );
}

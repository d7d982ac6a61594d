/**
 * Runs notebook 02's plan on one server: every trial on a fresh table after a checkpoint, each
 * phase timed on its own with the server's counters around it; each trial appended to the run's
 * trials.jsonl as soon as it ends.
 */
import { probeSpeed } from "../../../engines/postgres/speed-probe";
import type { SpeedProbe } from "../../../stats/speed";
import os from "node:os";
import type { RunStore, TrialRecord } from "../../../results/run-store";
import type { ConnectionInfo } from "../../../targets/types";
import { counterEntries, type Counters } from "../../../stats/counters";
import { waitForAutovacuumIdle } from "../../../engines/postgres/autovacuum";
import { connect } from "../../../engines/postgres/connect";
import { ensurePgstattuple, indexShape, type IndexShape } from "./index-shape";
import { conditionKey, type CreateIndexCondition, type PlannedTrial } from "./plan";
import { runTrials } from "../../../workloads/trials";
import {
  TrialSession,
  isCreateIndexCounterKey,
  type CreateIndexTrialCounterKey,
  type PhaseName,
  type PhaseRecord,
  type PhaseResult,
} from "./session";
import { buildSettingsSql, CREATE_INDEX, CREATE_TABLE, DROP_TABLE, INDEX, loadSql, TABLE } from "./sql";
import { ensureWalinspect, walRecordTypes, type WalRecordType } from "./wal-anatomy";
import { WalHold } from "../../../engines/postgres/wal-records";
import { ignored } from "../../../runtime/debug";

export type CreateIndexTrial = TrialRecord<CreateIndexCondition, CreateIndexTrialCounterKey> & {
  /** Every timed phase in the order it ran (CHECKPOINT last: the write-back each method left behind). */
  readonly phases?: readonly PhaseRecord[];
  readonly index?: IndexShape;
  /** wal_anatomy trials: the WAL of the load and index phases by record type. */
  readonly walAnatomy?: Readonly<Partial<Record<PhaseName, readonly WalRecordType[]>>>;
  /**
   * The host's 1-minute load average when the trial started and ended: on a shared 2-core machine
   * a load far above the core count means other work competed for the CPU during the trial.
   */
  readonly loadAverage?: readonly [number, number];
  /** ms spent waiting for autovacuum workers to finish before the trial; false when it timed out. */
  readonly autovacuumWait?: { readonly idle: boolean; readonly waitedMs: number };
  /** The machine's write-path speed state just before the trial (the record's `speed`). */
  readonly speed?: SpeedProbe;
};

export interface RunPlanOptions {
  readonly plan: readonly PlannedTrial[];
  readonly connection: ConnectionInfo;
  readonly store: RunStore<CreateIndexCondition>;
  readonly randomSeed: number;
  readonly settleMs: number;
  readonly continueOnError?: boolean;
  readonly signal?: AbortSignal;
  readonly onTrial?: (
    done: number,
    total: number,
    last: CreateIndexTrial | undefined,
    next: PlannedTrial | undefined,
  ) => void;
}

interface TrialOutcome {
  readonly seconds: number;
  readonly phases: PhaseRecord[];
  readonly counters: Counters<CreateIndexTrialCounterKey>;
  readonly index: IndexShape;
  readonly walAnatomy?: Partial<Record<PhaseName, WalRecordType[]>>;
  readonly autovacuumWait?: { readonly idle: boolean; readonly waitedMs: number };
  /** The write-path speed probe taken before the trial, copied onto its record. */
  readonly speed?: SpeedProbe;
}

/** Phase counters as one flat record: "<phase>.<counter>". */
function flatten(results: readonly PhaseResult[]): Counters<CreateIndexTrialCounterKey> {
  const flat: Partial<Record<CreateIndexTrialCounterKey, number>> = {};
  for (const r of results) {
    for (const [k, v] of counterEntries(r.counters)) if (isCreateIndexCounterKey(k)) flat[`${r.record.phase}.${k}`] = v;
  }
  return flat;
}

const sleep = (ms: number) => new Promise<void>((resolve) => setTimeout(resolve, ms));

/**
 * A fresh, empty table after a checkpoint, so no trial inherits another's dirty buffers. The drop
 * commits first (separate statements): a dropped table's buffers are discarded, not flushed.
 */
async function freshTable(session: TrialSession, settleMs: number): Promise<{ idle: boolean; waitedMs: number }> {
  await session.query(DROP_TABLE);
  // The table has autovacuum off, but catalogs churn with every CREATE/DROP: let a worker on them
  // finish before the checkpoint, so neither lands in a timed phase (a late one is counted and flagged).
  const wait = await waitForAutovacuumIdle(session.client);
  await session.query("CHECKPOINT");
  await session.query(CREATE_TABLE);
  // The checkpointer publishes its counters just after CHECKPOINT returns: keep them out of phase 1.
  await sleep(settleMs);
  return wait;
}

async function load(session: TrialSession, c: CreateIndexCondition, o: RunPlanOptions): Promise<PhaseResult> {
  // Reseeded right before the load, so every trial of a size writes the same codes.
  await session.query("SELECT setseed($1)", [o.randomSeed]);
  return session.phase("load", loadSql(c.rows, c.keyOrder, c.codes), { settleMs: o.settleMs });
}

async function runLoadTrial(session: TrialSession, c: CreateIndexCondition, o: RunPlanOptions): Promise<TrialOutcome> {
  // Before the table is made: the probe's own writes are in another database and CHECKPOINTed below.
  const speed = await probeSpeed(o.connection);
  const autovacuumWait = await freshTable(session, o.settleMs);
  await session.query(buildSettingsSql(c.maintenanceWorkMemMB, c.parallelWorkers));
  // A decoding trial's WAL must still be there when it is read, after the checkpoints its load
  // causes (~140 B of WAL a row, past max_wal_size from a few million rows on).
  const hold = c.kind === "wal_anatomy" ? await holdWal(session) : undefined;
  try {
    return await timedPhases(session, c, o, speed, autovacuumWait);
  } finally {
    // A dead session took its temporary slot with it; a live one gives the WAL back here.
    await hold?.release().catch(ignored("create-index: release the decoding trial's WAL"));
  }
}

async function holdWal(session: TrialSession): Promise<WalHold> {
  await ensureWalinspect(session);
  const hold = await WalHold.take(session.client);
  if (typeof hold === "string")
    throw new Error(`the WAL-decoding trial needs a temporary replication slot to keep its WAL, and got: ${hold}`);
  return hold;
}

async function timedPhases(
  session: TrialSession,
  c: CreateIndexCondition,
  o: RunPlanOptions,
  speed: TrialOutcome["speed"],
  autovacuumWait: TrialOutcome["autovacuumWait"],
): Promise<TrialOutcome> {
  const results: PhaseResult[] = [];
  const build = () => session.phase("index", CREATE_INDEX, { settleMs: o.settleMs, traceSort: true });
  if (c.method === "load_then_index") {
    results.push(await load(session, c, o));
    results.push(await build());
  } else {
    results.push(await build());
    results.push(await load(session, c, o));
  }
  results.push(await session.phase("checkpoint", "CHECKPOINT", { settleMs: o.settleMs }));
  const ms = (p: PhaseName) => {
    const result = results.find((r) => r.record.phase === p);
    if (!result) throw new Error(`create-index trial: no ${p} phase was recorded`);
    return result.record.ms;
  };
  // The seed's measure: A = INSERT + CREATE INDEX; B = INSERT only (its index was made beforehand).
  const seconds = (c.method === "load_then_index" ? ms("load") + ms("index") : ms("load")) / 1000;
  const outcome: TrialOutcome = {
    seconds,
    phases: results.map((r) => r.record),
    counters: flatten(results),
    index: await indexShape(session),
    autovacuumWait,
    ...(speed ? { speed } : {}),
  };
  if (c.kind !== "wal_anatomy") return outcome;
  const walAnatomy: Partial<Record<PhaseName, WalRecordType[]>> = {};
  for (const r of results) {
    if (r.record.phase !== "checkpoint")
      walAnatomy[r.record.phase] = await walRecordTypes(session, r.record.startLsn, r.record.endLsn);
  }
  return { ...outcome, walAnatomy };
}

/** Loads the table the CREATE INDEX sweep builds on, once, and vacuums it (hint bits set, untimed). */
async function prepareBuildTable(session: TrialSession, c: CreateIndexCondition, o: RunPlanOptions): Promise<void> {
  await freshTable(session, o.settleMs);
  await session.query("SELECT setseed($1)", [o.randomSeed]);
  await session.query(loadSql(c.rows, c.keyOrder, c.codes));
  await session.query(`VACUUM ${TABLE}`);
}

async function runBuildTrial(session: TrialSession, c: CreateIndexCondition, o: RunPlanOptions): Promise<TrialOutcome> {
  await session.query(`DROP INDEX IF EXISTS ${INDEX}`);
  const autovacuumWait = await waitForAutovacuumIdle(session.client);
  await session.query("CHECKPOINT");
  await sleep(o.settleMs);
  await session.query(buildSettingsSql(c.maintenanceWorkMemMB, c.parallelWorkers));
  const build = await session.phase("index", CREATE_INDEX, { settleMs: o.settleMs, traceSort: true });
  const outcome = {
    seconds: build.record.ms / 1000,
    phases: [build.record],
    counters: flatten([build]),
    index: await indexShape(session),
    autovacuumWait,
  };
  await session.query(`DROP INDEX ${INDEX}`);
  return outcome;
}

/** Cancels the session's running statement from a second connection (an interrupt in the notebook). */
async function cancelBackend(connection: ConnectionInfo, pid: number): Promise<void> {
  const admin = await connect(connection);
  try {
    await admin.query("SELECT pg_cancel_backend($1)", [pid]);
  } finally {
    await admin.end().catch(ignored("create-index: end the client that cancelled"));
  }
}

/**
 * Runs the plan through `runTrials` (resume, watchdog, failure record, store) on one session,
 * opened on first use and reopened after a failure (its connection may be dead; the build table
 * is reloaded then).
 */
export async function runPlan(o: RunPlanOptions): Promise<CreateIndexTrial[]> {
  let session: TrialSession | undefined;
  let buildTable: string | undefined;
  let pid = 0;
  const onAbort = () => {
    if (pid) void cancelBackend(o.connection, pid).catch(ignored("create-index: cancel the statement on interrupt"));
  };
  const openSession = async (): Promise<TrialSession> => {
    if (session) return session;
    const opened = await TrialSession.open(o.connection);
    session = opened;
    pid = Number((await opened.query<{ pid: number }>("SELECT pg_backend_pid() AS pid"))[0].pid);
    await ensurePgstattuple(opened);
    buildTable = undefined;
    return opened;
  };
  const runOne = async (planned: PlannedTrial): Promise<CreateIndexTrial> => {
    const c = planned.condition;
    const startedAt = new Date().toISOString();
    const loadAtStart = os.loadavg()[0];
    const open = await openSession();
    let outcome: TrialOutcome;
    if (c.kind === "build") {
      const wanted = `${c.rows}|${c.keyOrder}`;
      if (buildTable !== wanted) {
        await prepareBuildTable(open, c, o);
        buildTable = wanted;
      }
      outcome = await runBuildTrial(open, c, o);
    } else {
      buildTable = undefined;
      outcome = await runLoadTrial(open, c, o);
    }
    return {
      key: planned.key,
      condition: c,
      repeat: planned.repeat,
      position: planned.position,
      status: "ok",
      seconds: outcome.seconds,
      unitMs: outcome.phases.map((p) => p.ms),
      counters: outcome.counters,
      phases: outcome.phases,
      index: outcome.index,
      ...(outcome.walAnatomy ? { walAnatomy: outcome.walAnatomy } : {}),
      ...(outcome.autovacuumWait ? { autovacuumWait: outcome.autovacuumWait } : {}),
      ...(outcome.speed ? { speed: outcome.speed } : {}),
      loadAverage: [loadAtStart, os.loadavg()[0]],
      startedAt,
      finishedAt: new Date().toISOString(),
    };
  };
  o.signal?.addEventListener("abort", onAbort);
  try {
    const results = await runTrials(o.plan, runOne, {
      store: o.store,
      signal: o.signal,
      continueOnError: o.continueOnError,
      watch: (planned) => ({
        engine: "postgresql",
        what: `${planned.condition.kind === "build" ? "CREATE INDEX" : "loading"}, trial ${planned.key}`,
        group: conditionKey(planned.condition),
      }),
      afterFailure: async () => {
        const dead = session;
        session = undefined;
        await dead?.close();
      },
      onProgress: ({ done, total, last, next }) => o.onTrial?.(done, total, last, next),
    });
    if (session) await session.query(DROP_TABLE);
    return results;
  } finally {
    o.signal?.removeEventListener("abort", onAbort);
    await session?.close().catch(ignored("create-index: close the trial session"));
  }
}

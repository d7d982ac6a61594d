/** Runs the plan on one server: every trial on a fresh table after a checkpoint, each phase timed on its own. */
import os from "node:os";
import { probeSpeed } from "../../../engines/postgres/speed-probe";
import type { RunStore, TrialRecord } from "../../../results/run-store";
import type { ConnectionInfo, TargetKind } from "../../../targets/types";
import { counterEntries, type Counters } from "../../../stats/counters";
import { waitForAutovacuumIdle } from "../../../engines/postgres/autovacuum";
import { cancellable } from "../../../engines/postgres/connect";
import { WalHold } from "../../../engines/postgres/wal-records";
import { okTrial, runTrialsOn } from "../../../workloads/trials";
import { SetupClock, type SecondsOf } from "../../../workloads/timed";
import { ignored } from "../../../runtime/debug";
import { conditionKey, type CreateIndexCondition, type PlannedTrial } from "./plan";
import {
  isCreateIndexCounterKey,
  TrialSession,
  type TrialClock,
  type CreateIndexTrialCounterKey,
  type IndexShape,
  type PhaseName,
  type PhaseRecord,
  type PhaseResult,
  type SetupPart,
  type WalRecordType,
} from "./session";
import { buildSettingsSql, CREATE_INDEX, CREATE_TABLE, DROP_TABLE, INDEX, loadSql, TABLE } from "./sql";

export type CreateIndexTrial = TrialRecord<CreateIndexCondition, CreateIndexTrialCounterKey> &
  SecondsOf<SetupPart> & {
    /** In the order they ran; CHECKPOINT last: the write-back each method left behind. */
    readonly phases?: readonly PhaseRecord[];
    readonly index?: IndexShape;
    readonly walAnatomy?: Readonly<Partial<Record<PhaseName, readonly WalRecordType[]>>>;
    /** The host's 1-minute load average at the start and end: far above the cores, other work competed. */
    readonly loadAverage?: readonly [number, number];
    readonly autovacuumWait?: { readonly idle: boolean; readonly waitedMs: number };
    /** Why the phases have no run-queue wait (the server's processes are not this host's). */
    readonly runQueueUnmeasured?: string;
  };

export interface RunPlanOptions {
  readonly plan: readonly PlannedTrial[];
  readonly connection: ConnectionInfo;
  /** Only an embedded server's backend is in this host's /proc. */
  readonly serverKind: TargetKind;
  readonly store: RunStore<CreateIndexCondition>;
  readonly randomSeed: number;
  readonly settleMs: number;
  readonly continueOnError?: boolean;
  readonly signal?: AbortSignal;
  readonly onTrial?: (done: number, total: number, last?: CreateIndexTrial, next?: PlannedTrial) => void;
}

type TrialOutcome = Required<Pick<CreateIndexTrial, "seconds" | "phases" | "counters" | "index" | "autovacuumWait">> &
  Pick<CreateIndexTrial, "walAnatomy" | "speed">;

function flatten(results: readonly PhaseResult[]): Counters<CreateIndexTrialCounterKey> {
  const flat: Partial<Record<CreateIndexTrialCounterKey, number>> = {};
  for (const r of results)
    for (const [k, v] of counterEntries(r.counters)) if (isCreateIndexCounterKey(k)) flat[`${r.record.phase}.${k}`] = v;
  return flat;
}

/** `drop`, a checkpoint, `then`: no trial inherits dirty buffers (the drop commits first, discarding its buffers). */
async function afterCheckpoint(session: TrialSession, drop: string, then: string, settleMs: number, clock: TrialClock) {
  await clock.time("recreate", () => session.query(drop));
  // Catalogs churn with every CREATE/DROP: a worker on them ends before the timed phases (a late one is flagged).
  const wait = await clock.time("recreate", () => waitForAutovacuumIdle(session.client));
  await session.checkpoint(settleMs, clock);
  await clock.time("recreate", () => session.query(then));
  return wait;
}

/** One trial's part on the session, its setup timed on `clock`. */
type Step<R> = (session: TrialSession, c: CreateIndexCondition, o: RunPlanOptions, clock: TrialClock) => Promise<R>;

const load: Step<PhaseResult> = async (session, c, o, clock) => {
  // Reseeded right before the load, so every trial of a size writes the same codes.
  await clock.time("counters", () => session.query("SELECT setseed($1)", [o.randomSeed]));
  return session.phase("load", loadSql(c.rows, c.keyOrder, c.codes), { settleMs: o.settleMs, clock });
};

const build = (session: TrialSession, o: RunPlanOptions, clock: TrialClock) =>
  session.phase("index", CREATE_INDEX, { settleMs: o.settleMs, traceSort: true, clock });

const runLoadTrial: Step<TrialOutcome> = async (session, c, o, clock) => {
  // Before the table is made: the probe's own writes are in another database and CHECKPOINTed below.
  const speed = await clock.time("speed", () => probeSpeed(o.connection));
  const settings = buildSettingsSql(c.maintenanceWorkMemMB, c.parallelWorkers);
  const autovacuumWait = await afterCheckpoint(session, DROP_TABLE, `${CREATE_TABLE}; ${settings}`, o.settleMs, clock);
  // A decoding trial's WAL must outlive the checkpoints its own load causes.
  let hold: WalHold | undefined;
  if (c.kind === "wal_anatomy") {
    await clock.time("walDecoding", () => session.query("CREATE EXTENSION IF NOT EXISTS pg_walinspect"));
    const taken = await clock.time("walDecoding", () => WalHold.take(session.client));
    if (typeof taken === "string")
      throw new Error(`the WAL-decoding trial needs a temporary replication slot to keep its WAL, and got: ${taken}`);
    hold = taken;
  }
  try {
    const results =
      c.method === "load_then_index"
        ? [await load(session, c, o, clock), await build(session, o, clock)]
        : [await build(session, o, clock), await load(session, c, o, clock)];
    results.push(await session.phase("checkpoint", "CHECKPOINT", { settleMs: o.settleMs, clock, checkpoint: true }));
    const [first, second, closing] = results.map((r) => r.record.ms);
    if (c.method === "index_then_load") clock.add("emptyIndex", first / 1000);
    clock.add("writeBack", closing / 1000);
    const outcome: TrialOutcome = {
      // The seed's measure: A = INSERT + CREATE INDEX; B = INSERT only.
      seconds: (c.method === "load_then_index" ? first + second : second) / 1000,
      phases: results.map((r) => r.record),
      counters: flatten(results),
      index: await clock.time("shape", () => session.indexShape()),
      autovacuumWait,
      ...(speed ? { speed } : {}),
    };
    if (c.kind !== "wal_anatomy") return outcome;
    const walAnatomy: Partial<Record<PhaseName, WalRecordType[]>> = {};
    for (const { record: r } of results.slice(0, 2))
      walAnatomy[r.phase] = await clock.time("walDecoding", () => session.walRecordTypes(r.startLsn, r.endLsn));
    return { ...outcome, walAnatomy };
  } finally {
    // A dead session took its temporary slot with it; a live one gives the WAL back here.
    await clock.time("walDecoding", async () =>
      hold?.release().catch(ignored("create-index: release the decoding trial's WAL")),
    );
  }
};

const runBuildTrial: Step<TrialOutcome> = async (session, c, o, clock) => {
  const settings = buildSettingsSql(c.maintenanceWorkMemMB, c.parallelWorkers);
  const autovacuumWait = await afterCheckpoint(session, `DROP INDEX IF EXISTS ${INDEX}`, settings, o.settleMs, clock);
  const built = await build(session, o, clock);
  const index = await clock.time("shape", () => session.indexShape());
  await clock.time("recreate", () => session.query(`DROP INDEX ${INDEX}`));
  return { seconds: built.record.ms / 1000, phases: [built.record], counters: flatten([built]), index, autovacuumWait };
};

/** One session, opened on first use and reopened after a failure (the build table reloaded then). */
export function runPlan(o: RunPlanOptions): Promise<CreateIndexTrial[]> {
  let buildTable: string | undefined;
  const open = async (): Promise<TrialSession> => {
    const opened = await TrialSession.open(o.connection, o.serverKind, "CREATE EXTENSION IF NOT EXISTS pgstattuple");
    buildTable = undefined;
    return opened;
  };
  // An interrupt in the notebook cancels the trial's statement from a second connection.
  const runOne = (session: TrialSession, planned: PlannedTrial) =>
    cancellable(o.connection, session.client, o.signal, async (): Promise<CreateIndexTrial> => {
      const c = planned.condition;
      const startedAt = new Date().toISOString();
      const loadAtStart = os.loadavg()[0];
      const clock = new SetupClock<SetupPart>();
      // The build sweep's table, loaded once and vacuumed (hint bits set), untimed; a load trial drops it.
      const table = c.kind === "build" ? `${c.rows}|${c.keyOrder}` : undefined;
      if (table && buildTable !== table)
        await clock.time("buildTable", async () => {
          await afterCheckpoint(session, DROP_TABLE, CREATE_TABLE, o.settleMs, new SetupClock<SetupPart>());
          await session.query("SELECT setseed($1)", [o.randomSeed]);
          await session.query(loadSql(c.rows, c.keyOrder, c.codes));
          await session.query(`VACUUM ${TABLE}`);
        });
      buildTable = table;
      const outcome = await (table ? runBuildTrial : runLoadTrial)(session, c, o, clock);
      return {
        ...okTrial(planned, []),
        ...outcome,
        ...clock.record(),
        unitMs: outcome.phases.map((p) => p.ms),
        loadAverage: [loadAtStart, os.loadavg()[0]],
        ...(typeof session.backendPid === "string" ? { runQueueUnmeasured: session.backendPid } : {}),
        startedAt,
        finishedAt: new Date().toISOString(),
      };
    });
  return runTrialsOn(open, o.plan, runOne, {
    store: o.store,
    signal: o.signal,
    continueOnError: o.continueOnError,
    watch: (planned) => ({
      engine: "postgresql",
      what: `${planned.condition.kind === "build" ? "CREATE INDEX" : "loading"}, trial ${planned.key}`,
      group: conditionKey(planned.condition),
    }),
    onProgress: ({ done, total, last, next }) => o.onTrial?.(done, total, last, next),
    beforeClose: async (session) => {
      await session.query(DROP_TABLE);
    },
  });
}

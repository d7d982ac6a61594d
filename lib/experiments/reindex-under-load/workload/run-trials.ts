/** One run of seed 003's protocol: a fresh copy of pgbench's tables (generated once into a template, each run a
 * FILE_COPY clone: the seed's `pgbench -i` before every run in seconds instead of a minute), a restart, then the load
 * with (or without) a REINDEX from another session, while a sampler records who waits on what. */
import { Client } from "pg";
import { waitForAutovacuumIdle } from "../../../engines/postgres/autovacuum";
import { serverCounters, type PgServerCounterKey } from "../../../engines/postgres/server-counters";
import { probeSpeed } from "../../../engines/postgres/speed-probe";
import { counterDelta, countersFrom, keyGuard, type Counters } from "../../../stats/counters";
import type { TrialRecord } from "../../../results/run-store";
import type { ConnectionInfo, StartedServer } from "../../../targets/types";
import { postgresClientConfig } from "../../../targets/postgres-client";
import { initPgbench, waitForPgbenchGone, type PgbenchRunner } from "../../../workloads/pgbench";
import { runTrialPgbench } from "../../../workloads/pgbench-trial";
import type { PgbenchRunResult, ProgressPoint } from "../../../workloads/pgbench";
import { runTrials, type OrderedTrial, type PgbenchPlanOptions } from "../../../workloads/trials";
import { ignored } from "../../../runtime/debug";
import { handleErrors } from "../../../runtime/error-events";
import { restartServer, templateClones, withAdmin } from "../../../workloads/fresh-copies";
import { tryExtension } from "../../../engines/postgres/one-table-counters";
import type { ReindexMode, ReindexUnderLoadParams } from "../params";
import { ActivitySampler, lockTimeline, type ActivitySample, type LockTimeline, type Span } from "./activity";
import { ReadProbe, shiftedTo, type ReadProbeRecord } from "./read-probe";
import { errorMessage } from "../../../runtime/error-message";

const DATABASES = templateClones("pgbench_template", ["pgbench_run"]);
export const WORKLOAD_DATABASES = DATABASES.databases;
export const dropDatabases = DATABASES.dropAll;

/** The three primary keys the seed reindexed, in the order it named the tables. */
export const PGBENCH_PRIMARY_KEYS = ["pgbench_accounts_pkey", "pgbench_branches_pkey", "pgbench_tellers_pkey"] as const;

export type TemplateInfo = Awaited<ReturnType<typeof createTemplate>>;

/** Frozen against connections: it is only copied. */
export async function createTemplate(
  server: StartedServer,
  scale: number,
  steps: string,
  runner: PgbenchRunner,
  signal?: AbortSignal,
) {
  await DATABASES.recreate(server);
  const template = DATABASES.template(server);
  const init = await initPgbench(server, { scale, steps, database: template, signal }, runner);
  return withAdmin(server, template, async (c) => {
    // In the template, so every clone has it; a server without the library loaded simply lacks it.
    const statements = await tryExtension(c, "pg_stat_statements");
    const size = await c.query<{ db: string; rows: string }>(
      "SELECT pg_database_size(current_database())::text AS db, (SELECT count(*) FROM pgbench_accounts)::text AS rows",
    );
    const idx = await c.query<{ name: string; bytes: string }>(
      "SELECT indexrelname AS name, pg_relation_size(indexrelid)::text AS bytes FROM pg_stat_user_indexes WHERE relname LIKE 'pgbench_%'",
    );
    return {
      init,
      databaseBytes: Number(size.rows[0].db),
      accountsRows: Number(size.rows[0].rows),
      indexBytes: Object.fromEntries(idx.rows.map((r) => [r.name, Number(r.bytes)])),
      statements,
    };
  });
}

/** The series' bucket, ms: fine enough for the lost share of a window of a second or two. */
const WINDOW_BUCKET_MS = 100;

export type ReindexCondition = { readonly set: number; readonly mode: ReindexMode };
export type PlannedRun = OrderedTrial<ReindexCondition>;

/** Seconds of a run outside pgbench's load, by phase (the run's time account sums them). */
type Phase = "clone" | "restart" | "speed" | "open" | "close";

export type ReindexTrial = TrialRecord<ReindexCondition, ReindexCounterKey> &
  Partial<Record<`${Phase}Seconds`, number>> & {
    readonly pgbench?: PgbenchRunResult;
    readonly reindex?: ReindexTiming;
    readonly timeline?: LockTimeline;
    readonly samples?: readonly ActivitySample[];
    /** Absent in runs stored before the probe, and with `readProbeMs` 0; times since the run's t0. */
    readonly readProbe?: ReadProbeRecord;
    readonly restarted?: boolean;
    readonly autovacuumWait?: { readonly idle: boolean; readonly waitedMs: number };
    readonly updateAccountsServer?: { readonly calls: number; readonly meanMs: number };
  };

/** Each set starts one mode further on, so that TPS drifting from run to run does not fall on one mode. */
export const planRuns = (sets: number, modes: readonly ReindexMode[]): PlannedRun[] =>
  Array.from({ length: sets }, (_, s) => s + 1).flatMap((set) =>
    modes.map((_, i) => {
      const mode = modes[(i + set - 1) % modes.length];
      return { key: `set${set}/${mode}`, condition: { set, mode }, repeat: set, position: i };
    }),
  );

type RunSettings = Pick<
  ReindexUnderLoadParams,
  | "clients"
  | "threads"
  | "durationSeconds"
  | "reindexStartSeconds"
  | "sampleIntervalMs"
  | "restartBetweenRuns"
  | "scale"
  | "readProbeMs"
>;
type RunLength = Pick<RunSettings, "durationSeconds" | "reindexStartSeconds">;

const TABLE_COUNTERS = ["n_tup_ins", "n_tup_upd", "n_tup_hot_upd", "autovacuum_count", "autoanalyze_count"] as const;
type TableCounterKey = `table.${string}.${(typeof TABLE_COUNTERS)[number]}`;
type ReindexCounterKey = PgServerCounterKey | TableCounterKey;
const isTableCounterKey = keyGuard<TableCounterKey>([], [{ prefix: "table.", suffixes: TABLE_COUNTERS }]);

const TABLE_STATS_SQL = `
SELECT 'table.' || relname || '.' || k AS name, v::float8 AS value
FROM pg_stat_user_tables,
  LATERAL (VALUES ${TABLE_COUNTERS.map((k) => `('${k}', ${k})`).join(", ")}) AS c(k, v)
WHERE relname LIKE 'pgbench_%'
`;

async function snapshot(client: Client): Promise<Counters<ReindexCounterKey>> {
  const server = await serverCounters(client);
  const { rows } = await client.query<{ name: string; value: number }>(TABLE_STATS_SQL);
  return { ...server, ...countersFrom(rows, isTableCounterKey, "04 table counters") };
}

async function updateAccountsStatement(client: Client): Promise<{ calls: number; meanMs: number } | undefined> {
  const { rows } = await client.query<{ calls: string; ms: string }>(
    `SELECT sum(calls)::text AS calls, sum(total_exec_time)::text AS ms FROM pg_stat_statements
      WHERE dbid = (SELECT oid FROM pg_database WHERE datname = current_database()) AND query LIKE 'UPDATE pgbench_accounts%'`,
  );
  const calls = Number(rows[0]?.calls ?? 0);
  return calls > 0 ? { calls, meanMs: Number(rows[0].ms) / calls } : undefined;
}

type ReindexStatement = Span & { readonly index: string; readonly sql: string };
/** pid: the REINDEX session's backend (to tell its locks from pgbench's). */
export type ReindexTiming = Span & { readonly pid: number; readonly concurrently: boolean } & {
  readonly statements: readonly ReindexStatement[];
  readonly error?: string;
};

/** The REINDEX "from another terminal": its own session, each statement timed on the wall clock of pgbench's series. */
export class ReindexSession {
  private constructor(
    private readonly client: Client,
    readonly pid: number,
  ) {}

  static async open(connection: ConnectionInfo): Promise<ReindexSession> {
    // A lost connection fails the next REINDEX, which run() records as the trial's error.
    const client = handleErrors(
      new Client(postgresClientConfig(connection, { applicationName: "dblab-reindex" })),
      "REINDEX session",
    );
    await client.connect();
    const { rows } = await client.query<{ pid: number }>("SELECT pg_backend_pid() AS pid");
    return new ReindexSession(client, rows[0].pid);
  }

  /** REINDEX INDEX [CONCURRENTLY] each index in turn; an error is recorded, not thrown. */
  async run(indexes: readonly string[], concurrently: boolean): Promise<ReindexTiming> {
    const statements: ReindexStatement[] = [];
    const startMs = Date.now();
    let error: string | undefined;
    for (const index of indexes) {
      const sql = `REINDEX INDEX ${concurrently ? "CONCURRENTLY " : ""}${index}`;
      const began = Date.now();
      try {
        await this.client.query(sql);
      } catch (e) {
        error = `${sql}: ${errorMessage(e)}`;
        break;
      }
      statements.push({ index, sql, startMs: began, endMs: Date.now() });
    }
    return { pid: this.pid, concurrently, statements, startMs, endMs: Date.now(), error };
  }

  async close(): Promise<void> {
    await this.client.end().catch(ignored("reindex: end the REINDEX session's client"));
  }
}

export interface RunPlanOptions extends PgbenchPlanOptions<ReindexCondition, PlannedRun, RunSettings> {
  readonly onRun?: (next: PlannedRun | undefined, last: ReindexTrial | undefined) => void;
  readonly onProgress?: (planned: PlannedRun, point: ProgressPoint) => void;
}

/** A fresh copy from a clean checkpoint, as after the seed's init and restart: the clone checkpoints, the server
 * restarts where asked (a server that cannot is noted), then the speed probe where asked (04 (2)'s between-run
 * figure needs the speed state right before the run); without a restart's shutdown checkpoint, a CHECKPOINT after
 * the probe. */
async function freshCopy(
  o: Pick<RunPlanOptions, "server" | "onNote">,
  restart: boolean,
  before: string,
  probe = false,
) {
  const { server } = o;
  const cloneSeconds = await DATABASES.clone(server, 0, true);
  const restartTry = restart ? await restartServer(server) : undefined;
  if (restartTry?.failed) o.onNote?.(`no restart before ${before}: ${restartTry.failed}`);
  const restarted = restartTry !== undefined && !restartTry.failed;
  const probed = Date.now();
  const speed = probe ? await probeSpeed(server.connection) : undefined;
  const speedSeconds = (Date.now() - probed) / 1000;
  if (!restarted) await withAdmin(server, DATABASES.run(server), (admin) => admin.query("CHECKPOINT"));
  return { cloneSeconds, restarted, restartSeconds: restartTry?.restartSeconds ?? 0, speed, speedSeconds };
}

/** The probe started, or what stopped it starting (kept as a record with no reads): it never fails the run. */
async function startReadProbe(o: RunPlanOptions, connection: ConnectionInfo) {
  const { readProbeMs: pauseMs, scale } = o.settings;
  if (!(pauseMs > 0)) return undefined;
  try {
    return await ReadProbe.start(connection, pauseMs, scale * 100_000);
  } catch (e) {
    const error = `read probe: ${errorMessage(e)}`;
    const at = Date.now();
    return {
      stop: async (): Promise<ReadProbeRecord> => ({
        pauseMs,
        zeroMs: at,
        fromMs: 0,
        toMs: 0,
        startMs: [],
        latencyMs: [],
        error,
      }),
    };
  }
}

async function runTrial(o: RunPlanOptions, planned: PlannedRun): Promise<ReindexTrial> {
  const { server, settings: s } = o;
  const startedAt = new Date().toISOString();
  const { speed, ...fresh } = await freshCopy(o, s.restartBetweenRuns, planned.key, true);
  const database = DATABASES.run(server);
  const connection = { ...server.connection, database };
  const opened = Date.now();
  return withAdmin(server, database, async (admin) => {
    // A worker started on branches/tellers by the previous run must not run on into this one.
    const autovacuumWait = await waitForAutovacuumIdle(admin);
    // Cleared right before the load, so its figures are this run's alone.
    const reset = admin.query("SELECT pg_stat_statements_reset()");
    const statements = await reset.then(() => true).catch(() => false);
    const before = await snapshot(admin);
    const mode = planned.condition.mode;
    const session = mode === "baseline" ? undefined : await ReindexSession.open(connection);
    const sampler = await ActivitySampler.start(connection, s.sampleIntervalMs);
    const probe = await startReadProbe(o, connection);
    try {
      let reindexRun: Promise<ReindexTiming> | undefined;
      let timer: NodeJS.Timeout | undefined;
      const pgbench = await runTrialPgbench(o, database, {
        builtin: "tpcb-like",
        bucketMs: WINDOW_BUCKET_MS,
        onProgress: (p) => o.onProgress?.(planned, p),
        onStart: () => {
          if (!session) return;
          reindexRun = new Promise((resolve) => {
            const start = () => resolve(session.run(PGBENCH_PRIMARY_KEYS, mode === "concurrently"));
            timer = setTimeout(start, s.reindexStartSeconds * 1000);
          });
        },
      }).catch(async (error: unknown) => {
        if (timer) clearTimeout(timer);
        if (session) await admin.query("SELECT pg_cancel_backend($1)", [session.pid]).catch(ignored("cancel REINDEX"));
        await sampler.stop().catch(ignored("reindex: stop the activity sampler after a failure"));
        await session?.close();
        throw error;
      });
      // A REINDEX CONCURRENTLY may outlast the load; its whole duration is part of the result.
      const reindex = reindexRun ? await reindexRun : undefined;
      // After the REINDEX has ended, so that no read is still waiting on it.
      const probed = await probe?.stop();
      if (probed?.error) o.onNote?.(`${planned.key}: ${probed.error}; the run went on without reads from then`);
      const samples = await sampler.stop().finally(() => session?.close());
      await waitForPgbenchGone(admin);
      const after = await snapshot(admin);
      const updateAccountsServer = statements ? await updateAccountsStatement(admin) : undefined;
      return {
        key: planned.key,
        condition: planned.condition,
        repeat: planned.condition.set,
        position: planned.position,
        // A failed REINDEX's time is not a result.
        ...(reindex?.error
          ? { status: "failed" as const, error: reindex.error }
          : { status: "ok" as const, seconds: (pgbench.finishedAtMs - pgbench.startedAtMs) / 1000 }),
        counters: counterDelta(before, after),
        startedAt,
        finishedAt: new Date().toISOString(),
        pgbench,
        reindex,
        timeline: lockTimeline(samples, "pgbench", reindex?.pid),
        samples,
        ...(probed ? { readProbe: shiftedTo(probed, pgbench.loadStartedAtMs ?? pgbench.startedAtMs) } : {}),
        ...fresh,
        // The rest of the run's wall: from the probe to pgbench's start, and from its end (a REINDEX outlasting it).
        openSeconds: (pgbench.startedAtMs - opened) / 1000,
        closeSeconds: (Date.now() - pgbench.finishedAtMs) / 1000,
        autovacuumWait,
        ...(updateAccountsServer ? { updateAccountsServer } : {}),
        ...(speed ? { speed } : {}),
      };
    } finally {
      // A second stop returns the same record: here it only closes a probe that a failure left reading.
      await probe?.stop();
    }
  });
}

export const runPlan = (o: RunPlanOptions): Promise<ReindexTrial[]> =>
  runTrials(o.plan, (planned) => runTrial(o, planned), {
    store: o.store,
    signal: o.signal,
    watch: (planned) => ({ engine: "postgresql", what: `run ${planned.key} (pgbench with REINDEX)` }),
    onProgress: ({ last, next }) => o.onRun?.(next, last),
  });

/** Under a plain REINDEX pgbench's clients stand blocked, so a run's rebuild has the machine to itself as here: the
 * calibration gives the stall a run will see, before the runs, and so the run length. */
export async function calibrateRunLength(
  server: StartedServer,
  s: Pick<ReindexUnderLoadParams, "restartBetweenRuns" | "stallShare" | "durationSeconds" | "reindexStartSeconds">,
  hooks: Pick<RunPlanOptions, "onNote"> = {},
) {
  const at = new Date().toISOString();
  const { cloneSeconds, restarted } = await freshCopy({ server, ...hooks }, s.restartBetweenRuns, "the calibration");
  const session = await ReindexSession.open({ ...server.connection, database: DATABASES.run(server) });
  try {
    const timing = await session.run(PGBENCH_PRIMARY_KEYS, false);
    if (timing.error) throw new Error(`calibration rebuild failed: ${timing.error}`);
    const accounts = timing.statements.find((x) => x.index === "pgbench_accounts_pkey");
    const seconds = (timing.endMs - timing.startMs) / 1000;
    const accountsSeconds = accounts ? (accounts.endMs - accounts.startMs) / 1000 : undefined;
    const runLength = runLengthFor(seconds, s.stallShare, s);
    return { seconds, accountsSeconds, cloneSeconds, restarted, at, stallShare: s.stallShare, ...runLength };
  } finally {
    await session.close();
  }
}

/** Rebuild ÷ share within 6–60 s (load around the window); the REINDEX starts at its planned fraction of the run. */
export function runLengthFor(rebuildSeconds: number, share: number, planned: RunLength): RunLength {
  if (!(rebuildSeconds > 0) || !(share > 0 && share < 1))
    throw new Error(`runLengthFor: needs a rebuild > 0 s and a share in (0, 1), got ${rebuildSeconds} s, ${share}`);
  const durationSeconds = Math.min(60, Math.max(6, Math.round(rebuildSeconds / share)));
  const fraction = planned.reindexStartSeconds / planned.durationSeconds;
  return { durationSeconds, reindexStartSeconds: Math.max(0.5, Math.round(durationSeconds * fraction * 10) / 10) };
}

/** Kept beside the trials, so that a resume runs at it. */
export type RunLengthCalibration = Awaited<ReturnType<typeof calibrateRunLength>>;

/**
 * One run of seed 003's protocol: a fresh copy of pgbench's tables, a restart, then pgbench's
 * TPC-B-like load for a fixed time, with (or without) a REINDEX of the three primary keys from
 * another session at a chosen second, while a sampler records who waits on what.
 */
import type { Client } from "pg";
import { waitForAutovacuumIdle } from "../../../engines/postgres/autovacuum";
import { serverCounters, type PgServerCounterKey } from "../../../engines/postgres/server-counters";
import { counterDelta, countersFrom, keyGuard, type Counters } from "../../../stats/counters";
import type { RunStore, TrialRecord } from "../../../results/run-store";
import type { StartedServer } from "../../../targets/types";
import {
  runPgbench,
  waitForPgbenchGone,
  type PgbenchRunner,
  type PgbenchRunResult,
  type ProgressPoint,
} from "../../../workloads/pgbench";
import { runTrials } from "../../../workloads/trials";
import { ActivitySampler, type ActivitySample } from "./activity-sampler";
import { probeSpeed } from "../../../engines/postgres/speed-probe";
import { cloneRunDatabase, PGBENCH_PRIMARY_KEYS, runDatabase, withAdmin } from "./databases";
import { lockTimeline, type LockTimeline } from "./lock-timeline";
import { ReindexSession, type ReindexTiming } from "./reindex-session";
import { ignored } from "../../../runtime/debug";

/** The series' bucket, ms: fine enough for the lost share of a window of a second or two. */
const WINDOW_BUCKET_MS = 100;

/** The runs of one set: the seed's two, and REINDEX CONCURRENTLY (the seed's suggested remedy). */
export const REINDEX_MODES = ["baseline", "reindex", "concurrently"] as const;
export type ReindexMode = (typeof REINDEX_MODES)[number];

export interface ReindexCondition {
  readonly set: number;
  readonly mode: ReindexMode;
}

export type ReindexTrial = TrialRecord<ReindexCondition, ReindexCounterKey> & {
  readonly pgbench?: PgbenchRunResult;
  readonly reindex?: ReindexTiming;
  /** The samples, condensed (intervals, waits, phases); the raw samples follow. */
  readonly timeline?: LockTimeline;
  readonly samples?: readonly ActivitySample[];
  /** Seconds to copy the template into the run database. */
  readonly cloneSeconds?: number;
  readonly restarted?: boolean;
  /** Waiting for autovacuum workers to finish before the load started; idle false when it timed out. */
  readonly autovacuumWait?: { readonly idle: boolean; readonly waitedMs: number };
  /** pg_stat_statements over the run: the accounts UPDATE's calls and mean time inside the server. */
  readonly updateAccountsServer?: { readonly calls: number; readonly meanMs: number };
};

export interface PlannedRun {
  readonly key: string;
  readonly condition: ReindexCondition;
  /** The set it belongs to (= condition.set): what a trial record calls its repeat. */
  readonly repeat: number;
  /** Place in its set's (rotated) order, from 0. Recorded in the trial. */
  readonly position: number;
}

/**
 * Sets outermost; set 1 runs the modes in the given order (the seed's: baseline first), each later
 * set starts one mode further on, so that TPS drifting from run to run does not fall on one mode.
 */
export function planRuns(sets: number, modes: readonly ReindexMode[]): PlannedRun[] {
  const plan: PlannedRun[] = [];
  for (let set = 1; set <= sets; set++) {
    for (let i = 0; i < modes.length; i++) {
      const mode = modes[(i + set - 1) % modes.length];
      plan.push({ key: `set${set}/${mode}`, condition: { set, mode }, repeat: set, position: i });
    }
  }
  return plan;
}

export interface RunSettings {
  readonly clients: number;
  readonly threads: number;
  readonly durationSeconds: number;
  readonly reindexStartSeconds: number;
  readonly sampleIntervalMs: number;
  readonly restartBetweenRuns: boolean;
}

/** pg_stat_user_tables' columns read per pgbench table, named as the columns. */
const TABLE_COUNTERS = ["n_tup_ins", "n_tup_upd", "n_tup_hot_upd", "autovacuum_count", "autoanalyze_count"] as const;
type TableCounter = (typeof TABLE_COUNTERS)[number];
/** The table and index names are pgbench's (pgbench_accounts, pgbench_accounts_pkey, …). */
type TableCounterKey = `table.${string}.${TableCounter}` | `size.index.${string}`;
/** What a trial of 04 records: the whole server's counters, and per pgbench table and index. */
export type ReindexCounterKey = PgServerCounterKey | TableCounterKey;

const isTableCounterKey = keyGuard<TableCounterKey>(
  [],
  [{ prefix: "table.", suffixes: TABLE_COUNTERS }, { prefix: "size.index." }],
);

const TABLE_STATS_SQL = `
SELECT 'table.' || relname || '.' || k AS name, v::float8 AS value
FROM pg_stat_user_tables,
  LATERAL (VALUES ${TABLE_COUNTERS.map((k) => `('${k}', ${k})`).join(", ")}) AS c(k, v)
WHERE relname LIKE 'pgbench_%'
UNION ALL
SELECT 'size.index.' || indexrelname, pg_relation_size(indexrelid)::float8 FROM pg_stat_user_indexes WHERE relname LIKE 'pgbench_%'
`;

async function snapshot(client: Client): Promise<Counters<ReindexCounterKey>> {
  const server = await serverCounters(client);
  const { rows } = await client.query<{ name: string; value: number }>(TABLE_STATS_SQL);
  return { ...server, ...countersFrom(rows, isTableCounterKey, "04 table counters") };
}

/** pgbench's `UPDATE pgbench_accounts …` as pg_stat_statements saw it in this database. */
async function updateAccountsStatement(client: Client): Promise<{ calls: number; meanMs: number } | undefined> {
  const { rows } = await client.query<{ calls: string; ms: string }>(
    `SELECT sum(calls)::text AS calls, sum(total_exec_time)::text AS ms FROM pg_stat_statements
      WHERE dbid = (SELECT oid FROM pg_database WHERE datname = current_database()) AND query LIKE 'UPDATE pgbench_accounts%'`,
  );
  const calls = Number(rows[0]?.calls ?? 0);
  return calls > 0 ? { calls, meanMs: Number(rows[0].ms) / calls } : undefined;
}

export interface TrialHooks {
  readonly signal?: AbortSignal;
  readonly onProgress?: (point: ProgressPoint) => void;
  /** Called with notes worth showing (e.g. the target cannot restart). */
  readonly onNote?: (note: string) => void;
}

export async function runTrial(
  server: StartedServer,
  runner: PgbenchRunner,
  planned: PlannedRun,
  s: RunSettings,
  hooks: TrialHooks = {},
): Promise<ReindexTrial> {
  const startedAt = new Date().toISOString();
  const cloneSeconds = await cloneRunDatabase(server);
  const restarted = await restartIfAsked(server, s, hooks, planned.key);
  // The machine's speed state right before this run: 04 (2)'s between-run figure needs it (its
  // decided figure is within-run), and the run header shows its spread over the sets.
  const speed = server.engine === "postgresql" ? await probeSpeed(server.connection) : undefined;
  const connection = { ...server.connection, database: runDatabase(server) };
  return withAdmin(
    server,
    async (admin) => {
      // The restart's shutdown checkpoint leaves no dirty buffers behind; without one, checkpoint here.
      if (!restarted) await admin.query("CHECKPOINT");
      // pgbench updates branches and tellers thousands of times a run: a worker started on them by
      // the previous run must not run on into this one (a late one is counted in the window).
      const autovacuumWait = await waitForAutovacuumIdle(admin);
      // Cleared right before the load, so its figures are this run's alone; absent without the library.
      const statements = await admin.query("SELECT pg_stat_statements_reset()").then(
        () => true,
        () => false,
      );
      const before = await snapshot(admin);
      const mode = planned.condition.mode;
      const session = mode === "baseline" ? undefined : await ReindexSession.open(connection);
      const sampler = await ActivitySampler.start(connection, s.sampleIntervalMs);
      let reindexRun: Promise<ReindexTiming> | undefined;
      let timer: NodeJS.Timeout | undefined;
      let pgbench: PgbenchRunResult;
      let samples: ActivitySample[];
      try {
        pgbench = await runPgbench(server, {
          runner,
          database: runDatabase(server),
          clients: s.clients,
          threads: s.threads,
          durationSeconds: s.durationSeconds,
          builtin: "tpcb-like",
          bucketMs: WINDOW_BUCKET_MS,
          signal: hooks.signal,
          onProgress: hooks.onProgress,
          onStart: () => {
            if (!session) return;
            reindexRun = new Promise((resolve) => {
              timer = setTimeout(
                () => resolve(session.run(PGBENCH_PRIMARY_KEYS, mode === "concurrently")),
                s.reindexStartSeconds * 1000,
              );
            });
          },
        });
      } catch (error) {
        if (timer) clearTimeout(timer);
        if (session) await admin.query("SELECT pg_cancel_backend($1)", [session.pid]).catch(ignored("cancel REINDEX"));
        await sampler.stop().catch(ignored("reindex: stop the activity sampler after a failure"));
        await session?.close();
        throw error;
      }
      // A REINDEX CONCURRENTLY may outlast the load; its whole duration is part of the result.
      const reindex = reindexRun ? await reindexRun : undefined;
      try {
        samples = await sampler.stop();
      } finally {
        await session?.close();
      }
      await waitForPgbenchGone(admin);
      const after = await snapshot(admin);
      const updateAccountsServer = statements ? await updateAccountsStatement(admin) : undefined;
      const record: ReindexTrial = {
        key: planned.key,
        condition: planned.condition,
        repeat: planned.condition.set,
        position: planned.position,
        // A failed REINDEX fails the run: its time is not a result (pgbench's own timestamps stay in the record).
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
        cloneSeconds,
        restarted,
        autovacuumWait,
        ...(updateAccountsServer ? { updateAccountsServer } : {}),
        ...(speed ? { speed } : {}),
      };
      return record;
    },
    runDatabase(server),
  );
}

export interface RunPlanOptions {
  readonly server: StartedServer;
  readonly runner: PgbenchRunner;
  readonly plan: readonly PlannedRun[];
  readonly settings: RunSettings;
  readonly store: RunStore<ReindexCondition>;
  readonly signal?: AbortSignal;
  readonly onRun?: (done: number, total: number, next: PlannedRun | undefined, last: ReindexTrial | undefined) => void;
  readonly onProgress?: (planned: PlannedRun, point: ProgressPoint) => void;
  readonly onNote?: (note: string) => void;
}

/** Runs the plan through `runTrials` (resume, watchdog, failure record, store), one run at a time. */
export async function runPlan(o: RunPlanOptions): Promise<ReindexTrial[]> {
  return runTrials(
    o.plan,
    (planned) =>
      runTrial(o.server, o.runner, planned, o.settings, {
        signal: o.signal,
        onProgress: (p) => o.onProgress?.(planned, p),
        onNote: o.onNote,
      }),
    {
      store: o.store,
      signal: o.signal,
      watch: (planned) => ({ engine: "postgresql", what: `run ${planned.key} (pgbench with REINDEX)` }),
      // Counted within this part of the plan: the caller places the part in the whole run.
      onProgress: ({ done, total, skipped, last, next }) => o.onRun?.(done - skipped, total - skipped, next, last),
    },
  );
}

/** The calibration rebuild: what a plain REINDEX of the three keys took on a fresh clone, no load. */
export interface RebuildCalibration {
  /** All three statements, s; and the accounts key alone. */
  readonly seconds: number;
  readonly accountsSeconds?: number;
  readonly cloneSeconds: number;
  readonly restarted: boolean;
  readonly at: string;
}

/**
 * The restart a run gets before it (the seed restarted between runs), when asked; a server that
 * cannot restart (an external one) is noted and the run goes on from its cache as it is.
 */
async function restartIfAsked(
  server: StartedServer,
  s: Pick<RunSettings, "restartBetweenRuns">,
  hooks: TrialHooks,
  before: string,
): Promise<boolean> {
  if (!s.restartBetweenRuns) return false;
  try {
    await server.restart();
    return true;
  } catch (error) {
    hooks.onNote?.(`no restart before ${before}: ${error instanceof Error ? error.message : String(error)}`);
    return false;
  }
}

/**
 * Times a plain REINDEX of the three primary keys on a fresh clone after the same restart a run
 * gets, without load. Under a plain REINDEX pgbench's clients stand blocked on the accounts table,
 * so the rebuild in a run has the machine to itself as here: the calibration gives the stall a run
 * will see, before the runs.
 */
export async function calibrateRebuild(
  server: StartedServer,
  s: Pick<RunSettings, "restartBetweenRuns">,
  hooks: TrialHooks = {},
): Promise<RebuildCalibration> {
  const at = new Date().toISOString();
  const cloneSeconds = await cloneRunDatabase(server);
  const restarted = await restartIfAsked(server, s, hooks, "the calibration");
  if (!restarted) await withAdmin(server, (admin) => admin.query("CHECKPOINT"), runDatabase(server));
  const session = await ReindexSession.open({ ...server.connection, database: runDatabase(server) });
  try {
    const timing = await session.run(PGBENCH_PRIMARY_KEYS, false);
    if (timing.error) throw new Error(`calibration rebuild failed: ${timing.error}`);
    const accounts = timing.statements.find((x) => x.index === "pgbench_accounts_pkey");
    return {
      seconds: (timing.endMs - timing.startMs) / 1000,
      accountsSeconds: accounts ? (accounts.endMs - accounts.startMs) / 1000 : undefined,
      cloneSeconds,
      restarted,
      at,
    };
  } finally {
    await session.close();
  }
}

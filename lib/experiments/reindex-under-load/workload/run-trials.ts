/**
 * One run of seed 003's protocol: a fresh copy of pgbench's tables, a restart, then the load with
 * (or without) a REINDEX from another session, while a sampler records who waits on what.
 */
import fs from "node:fs";
import path from "node:path";
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

/** CONCURRENTLY is the seed's suggested remedy. */
export const REINDEX_MODES = ["baseline", "reindex", "concurrently"] as const;
export type ReindexMode = (typeof REINDEX_MODES)[number];

export interface ReindexCondition {
  readonly set: number;
  readonly mode: ReindexMode;
}

export type ReindexTrial = TrialRecord<ReindexCondition, ReindexCounterKey> & {
  readonly pgbench?: PgbenchRunResult;
  readonly reindex?: ReindexTiming;
  readonly timeline?: LockTimeline;
  readonly samples?: readonly ActivitySample[];
  readonly cloneSeconds?: number;
  readonly restarted?: boolean;
  readonly autovacuumWait?: { readonly idle: boolean; readonly waitedMs: number };
  readonly updateAccountsServer?: { readonly calls: number; readonly meanMs: number };
};

export interface PlannedRun {
  readonly key: string;
  readonly condition: ReindexCondition;
  /** What a trial record calls its repeat. */
  readonly repeat: number;
  readonly position: number;
}

/** Each set starts one mode further on, so that TPS drifting from run to run does not fall on one mode. */
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

interface RunSettings {
  readonly clients: number;
  readonly threads: number;
  readonly durationSeconds: number;
  readonly reindexStartSeconds: number;
  readonly sampleIntervalMs: number;
  readonly restartBetweenRuns: boolean;
}

const TABLE_COUNTERS = ["n_tup_ins", "n_tup_upd", "n_tup_hot_upd", "autovacuum_count", "autoanalyze_count"] as const;
type TableCounter = (typeof TABLE_COUNTERS)[number];
type TableCounterKey = `table.${string}.${TableCounter}` | `size.index.${string}`;
type ReindexCounterKey = PgServerCounterKey | TableCounterKey;

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

async function updateAccountsStatement(client: Client): Promise<{ calls: number; meanMs: number } | undefined> {
  const { rows } = await client.query<{ calls: string; ms: string }>(
    `SELECT sum(calls)::text AS calls, sum(total_exec_time)::text AS ms FROM pg_stat_statements
      WHERE dbid = (SELECT oid FROM pg_database WHERE datname = current_database()) AND query LIKE 'UPDATE pgbench_accounts%'`,
  );
  const calls = Number(rows[0]?.calls ?? 0);
  return calls > 0 ? { calls, meanMs: Number(rows[0].ms) / calls } : undefined;
}

interface TrialHooks {
  readonly signal?: AbortSignal;
  readonly onProgress?: (point: ProgressPoint) => void;
  /** Notes worth showing (e.g. the target cannot restart). */
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
  // 04 (2)'s between-run figure needs the speed state right before this run.
  const speed = server.engine === "postgresql" ? await probeSpeed(server.connection) : undefined;
  const connection = { ...server.connection, database: runDatabase(server) };
  return withAdmin(
    server,
    async (admin) => {
      // The restart's shutdown checkpoint leaves no dirty buffers behind; without one, checkpoint here.
      if (!restarted) await admin.query("CHECKPOINT");
      // A worker started on branches/tellers by the previous run must not run on into this one.
      const autovacuumWait = await waitForAutovacuumIdle(admin);
      // Cleared right before the load, so its figures are this run's alone.
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
      onProgress: ({ done, total, skipped, last, next }) => o.onRun?.(done - skipped, total - skipped, next, last),
    },
  );
}

/** The seed restarted between runs; a server that cannot restart is noted and the run goes on. */
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
 * Under a plain REINDEX pgbench's clients stand blocked, so a run's rebuild has the machine to
 * itself as here: the calibration gives the stall a run will see, before the runs.
 */
export async function calibrateRebuild(
  server: StartedServer,
  s: Pick<RunSettings, "restartBetweenRuns">,
  hooks: TrialHooks = {},
) {
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

/** Rebuild ÷ share within 6–60 s (load around the window); the REINDEX starts at its planned fraction of the run. */
export function runLengthFor(
  rebuildSeconds: number,
  share: number,
  planned: { readonly durationSeconds: number; readonly reindexStartSeconds: number },
): { readonly durationSeconds: number; readonly reindexStartSeconds: number } {
  if (!(rebuildSeconds > 0) || !(share > 0 && share < 1)) {
    throw new Error(`runLengthFor: needs a rebuild > 0 s and a share in (0, 1), got ${rebuildSeconds} s, ${share}`);
  }
  const durationSeconds = Math.min(60, Math.max(6, Math.round(rebuildSeconds / share)));
  const fraction = planned.reindexStartSeconds / planned.durationSeconds;
  return { durationSeconds, reindexStartSeconds: Math.max(0.5, Math.round(durationSeconds * fraction * 10) / 10) };
}

/** Kept beside the trials, so that a resume runs at it. */
export type RunLengthCalibration = Awaited<ReturnType<typeof calibrateRebuild>> & {
  readonly stallShare: number;
  readonly durationSeconds: number;
  readonly reindexStartSeconds: number;
};

export const CALIBRATION_FILE = "calibration.json";

export function storedCalibration(directory: string): RunLengthCalibration | undefined {
  const file = path.join(directory, CALIBRATION_FILE);
  return fs.existsSync(file) ? (JSON.parse(fs.readFileSync(file, "utf8")) as RunLengthCalibration) : undefined;
}

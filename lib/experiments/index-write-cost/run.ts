/**
 * Notebook 01's experiment: start the servers, run the seed's trial matrix, record everything.
 */
import { diskNeed01 } from "./disk";
import type { IndexWriteCostParams } from "./params";
import { PostgresIndexWriteTable } from "./workload/postgres-table";
import type { RunMetadata } from "../../results/metadata";
import type { Engine, ServerSpec, StartedServer } from "../../targets/types";
import { withSession, type RunControl } from "../session";
import { estimateRun } from "../eta";
import { estimate as eta } from "./eta";
import type { IndexWriteEngine } from "./workload/engine";
import { OPERATION_LABELS } from "./workload/operations";
import {
  planTrials,
  runPlan,
  type IndexWriteCondition,
  type IndexWriteTrial,
  type PlannedTrial,
} from "./workload/run-trials";
import { nextRound } from "../../stats/adaptive";
import { addRounds } from "../adaptive-rounds";
import { planText } from "../../stats/claims";
import { checkClaims, plan01 } from "./claims";
import { summarise } from "./summarise";

/** The claims the adaptive design adds repeats for: (a) and (c), judged at the largest size. */
const HEADLINE = ["a (", "c (postgresql)", "c (mongodb)"];

export interface IndexWriteCostRun {
  readonly runId: string;
  readonly directory: string;
  readonly trials: readonly IndexWriteTrial[];
  readonly metadata: RunMetadata;
  readonly unavailable: ReadonlyMap<Engine, string>;
}

/** The seed's server settings: 1 GB cache on both engines, no durable-commit wait. */
export function serverSpecs(p: IndexWriteCostParams): ServerSpec[] {
  const specs: ServerSpec[] = [];
  if (p.engines.includes("postgresql")) {
    specs.push({
      engine: "postgresql",
      name: "01-pg",
      // pg_stat_statements: the server time of the timed statements, a ratio that does not depend
      // on the client path (an independent C client gave the same UPDATE ratios within 8 %).
      settings: {
        shared_buffers: `${p.cacheGiB}GB`,
        synchronous_commit: "off",
        track_io_timing: "on",
        shared_preload_libraries: "pg_stat_statements",
      },
      uses: {
        notebook: "01 index write cost",
        disk: diskNeed01(p),
        clients: 3,
        extensions: [
          { name: "pg_stat_statements", preload: true, measures: "server time of the timed statements" },
          { name: "pg_walinspect", measures: "WAL records by type in the timed window (B-tree inserts counted)" },
        ],
      },
    });
  }
  if (p.engines.includes("mongodb")) {
    specs.push({ engine: "mongodb", name: "01-mongo", settings: { wiredTigerCacheSizeGB: p.cacheGiB } });
  }
  return specs;
}

/** Each engine's adapter for this workload; MongoDB's driver is loaded only when a MongoDB server runs. */
const ADAPTERS: Readonly<Record<Engine, (server: StartedServer) => Promise<IndexWriteEngine>>> = {
  postgresql: (server) => PostgresIndexWriteTable.open(server.connection),
  mongodb: async (server) => {
    const { MongoIndexWriteCollection } = await import("./workload/mongo-collection");
    return MongoIndexWriteCollection.open(server.uri, server.connection.database);
  },
};

function openEngine(server: StartedServer): Promise<IndexWriteEngine> {
  return ADAPTERS[server.engine](server);
}

export type { RunControl } from "../session";

export async function runIndexWriteCost(p: IndexWriteCostParams, control: RunControl = {}): Promise<IndexWriteCostRun> {
  return withSession<IndexWriteCondition, IndexWriteCostRun>(
    {
      notebook: "01-index-write-cost",
      estimate: (done) => estimateRun("01-index-write-cost", eta, p, done),
      title: "01 index write cost",
      params: p,
      control,
      specs: serverSpecs(p),
      target: p.target,
      cpus: p.cpus,
      memoryGiB: p.memoryGiB,
      prospect: planText(plan01(p)),
    },
    async ({ store, progress, servers, signal, metadata, notes, writeMetadata }) => {
      const engines = p.engines.filter((e) => servers.byEngine.has(e));
      const started = Date.now();
      const runPart = (plan: readonly PlannedTrial[]) =>
        runPlan({
          plan,
          batchSize: p.batchSize,
          seed: p.seed,
          store,
          continueOnError: control.continueOnError,
          signal,
          open: async (engine) => {
            const server = servers.byEngine.get(engine);
            if (!server) throw new Error(`no ${engine} server was started`);
            return openEngine(server);
          },
          onTrial: (done, total, trial, next) => {
            const result = trial?.status === "ok" ? `${trial.seconds.toFixed(3)} s` : "failed";
            const last = trial ? `last: ${trial.key} ${result} · ` : "";
            const upcoming = next
              ? `next: ${next.condition.engine} ${next.condition.rows.toLocaleString("en-US")} rows, ${OPERATION_LABELS[next.condition.operation]}, +${next.condition.extraIndexes} indexes`
              : "done";
            progress.update(done, total, `${last}${upcoming}`);
          },
        });
      let plan = planTrials({ ...p, engines });
      await runPart(plan);
      // The adaptive design: more repeats of the largest size while a headline claim is undecided.
      const largest = Math.max(...p.rowCounts);
      const unavailable = Object.fromEntries(servers.unavailable);
      const { rounds: repeats, stoppedBy } = await addRounds(
        p.repeats,
        (done) => {
          const step = nextRound({
            done,
            planned: p.repeats,
            maxRepeats: p.maxRepeats,
            elapsedSeconds: (Date.now() - started) / 1000,
            budgetSeconds: p.budgetSeconds,
            undecided: checkClaims(summarise(store.trials()), { unavailable })
              .filter((c) => HEADLINE.some((h) => c.id.startsWith(h)) && c.verdict === "inconclusive")
              .map((c) => c.id),
            decided: "the headline claims were decided",
            words: { one: "repeat", many: "repeats", cap: "maxRepeats" },
          });
          return step.more ? undefined : step.reason;
        },
        async (repeats) => {
          const extra = planTrials({ ...p, engines, rowCounts: [largest], growthRows: [], repeats })
            .filter((t) => t.repeat === repeats)
            .map((t, i) => ({ ...t, position: plan.length + i }));
          plan = [...plan, ...extra];
          await runPart(extra);
        },
      );
      notes.push(
        `adaptive design: ${stoppedBy} (planned ${p.repeats}, at most ${p.maxRepeats}, budget ${p.budgetSeconds} s)`,
      );
      writeMetadata({
        adaptive: {
          plannedRepeats: p.repeats,
          repeats,
          maxRepeats: p.maxRepeats,
          budgetSeconds: p.budgetSeconds,
          stoppedBy,
        },
      });
      progress.finish(`${plan.length} trials`);
      return {
        runId: store.runId,
        directory: store.directory,
        trials: store.trials(),
        metadata,
        unavailable: servers.unavailable,
      };
    },
  );
}

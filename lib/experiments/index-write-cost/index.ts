/** Seed 000's matrix: secondary indexes × write operations × table sizes, PostgreSQL and MongoDB, adaptive repeats. */
import { flaggedUnits } from "../../stats/claim-statistics";
import { judge } from "../../stats/claim-engine";
import { nextRound } from "../../stats/adaptive";
import type { Engine, ServerSpec, StartedServer } from "../../targets/types";
import { addRounds } from "../adaptive-rounds";
import { flaggedColumns, secondsColumns, timedTrialProgress } from "../condition-groups";
import { defineExperiment, serverName } from "../define";
import { intervalColumns } from "../interval-columns";
import { CLAIMS } from "./claims";
import { estimate, mongoUnavailable, withMongoFacts, withMongoReason } from "./eta";
import { checkParams, diskNeed, INDEX_WRITE_COST_PROFILES } from "./params";
import { readingOrder, showUnavailable } from "./present";
import { summarise as summariseTrials } from "./summarise";
import type { IndexWriteEngine } from "./workload/engine";
import { OPERATION_LABELS } from "./workload/operations";
import { PostgresIndexWriteTable } from "./workload/postgres-table";
import { conditionKey, planTrials, runPlan, type IndexWriteTrial, type PlannedTrial } from "./workload/run-trials";

const SLUG = "01-index-write-cost";
/** The claims the adaptive design adds repeats for: (a) and (c), judged at the largest size. */
const HEADLINE = ["a (", "c (postgresql)", "c (mongodb)"];

/** MongoDB's driver is loaded only when a MongoDB server runs. */
const ADAPTERS: Readonly<Record<Engine, (server: StartedServer) => Promise<IndexWriteEngine>>> = {
  postgresql: (server) => PostgresIndexWriteTable.open(server.connection),
  mongodb: async (server) => {
    const { MongoIndexWriteCollection } = await import("./workload/mongo-collection");
    return MongoIndexWriteCollection.open(server.uri, server.connection.database);
  },
};

export const experiment = defineExperiment({
  slug: SLUG,
  title: "Index write cost: secondary indexes vs INSERT/UPDATE time",
  profiles: INDEX_WRITE_COST_PROFILES,
  check: checkParams,
  // The seed's settings: 1 GB cache on both engines, no durable-commit wait.
  servers: (p) => {
    const specs: ServerSpec[] = [
      {
        engine: "postgresql",
        name: serverName(SLUG, "pg"),
        // pg_stat_statements: the server time of the timed statements, a ratio free of the client path.
        settings: {
          shared_buffers: `${p.cacheGiB}GB`,
          synchronous_commit: "off",
          track_io_timing: "on",
          shared_preload_libraries: "pg_stat_statements",
        },
        uses: {
          notebook: "01 index write cost",
          disk: diskNeed(p),
          clients: 3,
          extensions: [
            { name: "pg_stat_statements", preload: true, measures: "server time of the timed statements" },
            { name: "pg_walinspect", measures: "WAL records by type in the timed window (B-tree inserts counted)" },
          ],
        },
      },
      { engine: "mongodb", name: serverName(SLUG, "mongo"), settings: { wiredTigerCacheSizeGB: p.cacheGiB } },
    ];
    return specs.filter((spec) => p.engines.includes(spec.engine));
  },
  // Adaptive: the planned repeats, then more of the largest size while a headline claim is undecided.
  work: async ({
    params: p,
    session: { store, progress, servers, signal, notes, writeMetadata },
    control,
  }): Promise<{ readonly unavailable: ReadonlyMap<Engine, string> }> => {
    const engines = p.engines.filter((e) => servers.byEngine.has(e));
    const started = Date.now();
    const runPart = (part: readonly PlannedTrial[]) =>
      runPlan({
        plan: part,
        batchSize: p.batchSize,
        seed: p.seed,
        store,
        continueOnError: control.continueOnError,
        signal,
        open: async (engine) => {
          const server = servers.byEngine.get(engine);
          if (!server) throw new Error(`no ${engine} server was started`);
          return ADAPTERS[server.engine](server);
        },
        onProgress: ({ done, total, last, next }) => {
          const c = next?.condition;
          const upcoming =
            c &&
            `${c.engine} ${c.rows.toLocaleString("en-US")} rows, ${OPERATION_LABELS[c.operation]}, +${c.extraIndexes} indexes`;
          progress.update(done, total, timedTrialProgress(last, upcoming));
        },
      });
    let plan = planTrials({ ...p, engines });
    await runPart(plan);
    const largest = Math.max(...p.rowCounts);
    const { rounds: repeats, stoppedBy } = await addRounds(
      p.repeats,
      (done) => {
        const checks = judge(CLAIMS, summariseTrials(store.trials()));
        const step = nextRound({
          done,
          planned: p.repeats,
          maxRepeats: p.maxRepeats,
          elapsedSeconds: (Date.now() - started) / 1000,
          budgetSeconds: p.budgetSeconds,
          undecided: checks
            .filter((c) => HEADLINE.some((h) => c.id.startsWith(h)) && c.verdict === "inconclusive")
            .map((c) => c.id),
          decided: "the headline claims were decided",
          words: { one: "repeat", many: "repeats", cap: "maxRepeats" },
        });
        return step.more ? undefined : step.reason;
      },
      async (repeat) => {
        const extra = planTrials({ ...p, engines, rowCounts: [largest], growthRows: [], repeats: repeat })
          .filter((t) => t.repeat === repeat)
          .map((t, i) => ({ ...t, position: plan.length + i }));
        plan = [...plan, ...extra];
        await runPart(extra);
      },
    );
    const { maxRepeats, budgetSeconds } = p;
    notes.push(
      `adaptive design: ${stoppedBy} (planned ${p.repeats}, at most ${maxRepeats}, budget ${budgetSeconds} s)`,
    );
    writeMetadata({ adaptive: { plannedRepeats: p.repeats, repeats, maxRepeats, budgetSeconds, stoppedBy } });
    progress.finish(`${plan.length} trials`);
    return { unavailable: servers.unavailable };
  },
  summarise: (trials: readonly IndexWriteTrial[]) => summariseTrials(trials),
  claims: CLAIMS,
  prospectHere: (plans, p) => withMongoFacts(plans, mongoUnavailable(p)),
  explain: (checks, run) => withMongoReason(checks, run.unavailable.get("mongodb")),
  // Sensitivity: the same trials without the outliers and the trials with a checkpoint or autovacuum in their window.
  without: (run, summary) => ({
    summary: summariseTrials(run.trials, { withoutFlagged: true }),
    flagged: flaggedUnits(
      "trial",
      summary.flatMap((s) =>
        [...new Set([...s.outlierRepeats, ...s.disturbedRepeats])].map((repeat) => ({ s, repeat })),
      ),
      ({ s, repeat }) => [
        s.outlierRepeats.includes(repeat) ? "outlier" : "",
        s.disturbedRepeats.includes(repeat) ? "checkpoint or autovacuum in its window" : "",
      ],
      ({ s, repeat }) => `${conditionKey(s)}/r${repeat}`,
      "No trial was flagged (outlier, checkpoint or autovacuum in its window).",
    ),
  }),
  csvRows: (summaries) =>
    readingOrder(summaries).map((s) => ({
      engine: s.engine,
      rows: s.rows,
      operation: s.operation,
      extra_indexes: s.extraIndexes,
      fillfactor: s.fillfactor,
      ...secondsColumns(s),
      ...intervalColumns("ratio", s.ratio, s.ratioInterval, "ratio_interval_coverage"),
      server_ratio: s.serverRatioInterval?.estimate ?? null,
      ...flaggedColumns(s),
      hot_share: s.hotShare ?? null,
      btree_inserts_per_row: s.btreeInsertsPerRow ?? null,
      btree_splits_per_1000: s.btreeSplitsPer1000 ?? null,
      wal_bytes_per_row: s.walBytesPerRow ?? null,
      index_bytes: s.indexBytes ?? null,
    })),
  disk: diskNeed,
  eta: estimate,
  // The fault matrix's cells: the fault at this notebook's most exposed point, where it is most likely met.
  faults: {
    overrides: [
      'engines=["postgresql"]',
      "rowCounts=[20000]",
      "extraIndexes=[0,5]",
      'operations=["insert","update_one_field"]',
    ],
    point: "batch",
    cells: [
      { fault: "sigterm", target: "embedded", boundSeconds: 45 },
      { fault: "kill-9", target: "docker", boundSeconds: 30 },
    ],
  },
});

export const { params, run, open, summarise, claims, save, showClaims, registered } = experiment;
export type IndexWriteCostRun = Awaited<ReturnType<typeof run>>;
export type { ConditionSummary } from "./summarise";
export { showSummaryTable, showCharts, showSeedComparison, showExplanation } from "./present";

/** The base's run header and failed trials, then each engine that could not start here and why. */
export function showRun(r: IndexWriteCostRun): void {
  experiment.showRun(r);
  showUnavailable(r.unavailable);
}

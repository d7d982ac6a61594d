/** Notebook 08 (`lab.indexTypes.*`): what one index of each kind costs INSERTs and UPDATEs, beside no index. */
import { defineExperiment, serverName } from "../define";
import { finiteOrNaN, referencesIn } from "../eta";
import {
  flaggedColumns,
  flaggedTrials,
  POSTGRES_DOCS_CLAIMS_CAPTION,
  secondsColumns,
  timedTrialProgress,
} from "../condition-groups";
import { CLAIMS } from "./claims";
import { checkParams, INDEX_TYPES_PROFILES, type IndexTypesParams } from "./params";
import { readingOrder } from "./present";
import { summarise as summariseTrials } from "./summarise";
import { IndexTable, planTrials, runPlan, type IndexTypesTrial } from "./workload";

const SLUG = "08-index-types";

/** The peak: one table, every row in two versions of ~300 B with its index entries, max_wal_size of WAL, the server. */
const diskNeed = (p: IndexTypesParams) => ({
  bytes: p.rows * 2 * 300 + 2 ** 30 + 200 * 2 ** 20,
  what: `${p.rows.toLocaleString("en-US")} rows × 2 versions × 300 B + max_wal_size 1 GiB + 200 MiB of server`,
});

export const experiment = defineExperiment({
  slug: SLUG,
  title: "Index types: what one B-tree, hash, BRIN, GIN or partial index costs an INSERT stream and an UPDATE",
  profiles: INDEX_TYPES_PROFILES,
  check: checkParams,
  servers: (p) => [
    {
      engine: "postgresql",
      name: serverName(SLUG, "pg"),
      settings: { shared_buffers: `${p.sharedBuffersMiB}MB` },
      uses: {
        notebook: "08 index types",
        disk: diskNeed(p),
        clients: 1,
        extensions: [{ name: "pageinspect", measures: "GIN's pending-list pages after each batch (its flushes)" }],
      },
    },
  ],
  plan: planTrials,
  work: async ({ params: p, plan, session: { store, progress, servers, signal }, control }) => {
    const server = servers.byEngine.get("postgresql");
    if (!server) throw new Error("no PostgreSQL server was started");
    await runPlan({
      plan,
      params: p,
      store,
      signal,
      continueOnError: control.continueOnError,
      open: () => IndexTable.open(server.connection),
      onProgress: ({ done, total, last, next }) =>
        progress.update(
          done,
          total,
          timedTrialProgress(last, next && `${next.condition.kind} ${next.condition.operation}`),
        ),
    });
    progress.finish(`${plan.length} trials`);
    return {};
  },
  summarise: (trials: readonly IndexTypesTrial[], run: { readonly params: IndexTypesParams }) =>
    summariseTrials(trials, run.params),
  claims: CLAIMS,
  claimsCaption: POSTGRES_DOCS_CLAIMS_CAPTION,
  without: (run, summary) => ({
    summary: summariseTrials(run.trials, run.params, { withoutFlagged: true }),
    flagged: {
      noun: "trial",
      count: flaggedTrials(summary),
      detail: "outliers in seconds, or a checkpoint inside the timed batches",
      none: "No trial was flagged (outlier, or a checkpoint in its batches).",
    },
  }),
  csvRows: (summaries) =>
    readingOrder(summaries).map((s) => ({
      kind: s.kind,
      operation: s.operation,
      ...secondsColumns(s),
      batch_p50_ms: s.medianMs ?? null,
      batch_p99_ms: s.p99Ms ?? null,
      batch_max_ms: s.maxMs ?? null,
      wal_bytes_per_row: s.walBytesPerRow ?? null,
      index_bytes: s.indexBytes ?? null,
      outside_batch_ms: s.outsideMedianMs ?? null,
      outside_wal_bytes_per_row: s.outsideWalBytesPerRow ?? null,
      gin_flushes: s.flushes ?? null,
      ...flaggedColumns(s),
    })),
  disk: diskNeed,
  eta: {
    unit: (t, p) => ({ size: p.rows, kind: t.condition.operation }),
    size: (_condition, params) => finiteOrNaN(params.rows),
    kind: (condition) => (condition.operation === "update" ? "update" : "insert"),
    references: referencesIn(__dirname),
  },
});

export const { params, run, summarise, claims, save, showRun, showClaims, registered } = experiment;
export type IndexTypesRun = Awaited<ReturnType<typeof run>>;
export type { ConditionSummary } from "./summarise";
export { showSummaryTable, showCharts, showExplanation } from "./present";

/** Notebook 08 (`lab.indexTypes.*`): what one index of each kind costs INSERTs and UPDATEs, beside no index. */
import { defineExperiment, type RunOf } from "../define";
import { flaggedTrialsOf, postgresServer, rowsEta, workOnPostgres } from "../one-postgres";
import { flaggedColumns, POSTGRES_DOCS_CLAIMS_CAPTION, secondsColumns } from "../condition-groups";
import { bytesText } from "../../targets/disk-need";
import { CLAIMS } from "./claims";
import { checkParams, INDEX_TYPES_PROFILES, type IndexTypesParams } from "./params";
import { readingOrder } from "./present";
import { summarise as summariseTrials } from "./summarise";
import { IndexTable, planTrials, runPlan, type IndexTypesCondition, type IndexTypesTrial } from "./workload";

const SLUG = "08-index-types";

/**
 * A checkpoint is requested after max_wal_size ÷ (1 + checkpoint_completion_target 0.9) of WAL: twice the heaviest
 * trials' WAL (GIN without fastupdate, a new entry per key, bounded at 6 kB a row; docs/claims-and-regimes.md) keeps
 * it out of every trial's batches; PostgreSQL's default, 1 GiB, at least.
 */
const maxWalBytes = (p: IndexTypesParams) => Math.max(2 ** 30, 2 * 6000 * p.rows);

/** The peak: one table, every row in two versions of ~300 B with its index entries, max_wal_size of WAL, the server. */
const diskNeed = (p: IndexTypesParams) => ({
  bytes: p.rows * 2 * 300 + maxWalBytes(p) + 200 * 2 ** 20,
  what: `${p.rows.toLocaleString("en-US")} rows × 2 versions × 300 B + max_wal_size ${bytesText(maxWalBytes(p))} + 200 MiB of server`,
});

export const experiment = defineExperiment({
  slug: SLUG,
  title: "Index types: what one B-tree, hash, BRIN, GIN or partial index costs an INSERT stream and an UPDATE",
  profiles: INDEX_TYPES_PROFILES,
  check: checkParams,
  servers: (p) =>
    postgresServer(SLUG, p.sharedBuffersMiB, {
      notebook: "08 index types",
      disk: diskNeed(p),
      clients: 1,
      extensions: [{ name: "pageinspect", measures: "GIN's pending-list pages after each batch (its flushes)" }],
    }).map((s) => ({ ...s, settings: { ...s.settings, max_wal_size: `${Math.ceil(maxWalBytes(p) / 2 ** 20)}MB` } })),
  plan: planTrials,
  work: workOnPostgres(
    (c) => IndexTable.open(c),
    (o, p: IndexTypesParams) => runPlan({ ...o, params: p }),
    (c) => `${c.kind} ${c.operation}`,
  ),
  summarise: (trials: readonly IndexTypesTrial[], run: RunOf<IndexTypesParams, IndexTypesTrial>) =>
    summariseTrials(trials, run.params),
  claims: CLAIMS,
  claimsCaption: POSTGRES_DOCS_CLAIMS_CAPTION,
  without: (run, summary) => ({
    summary: summariseTrials(run.trials, run.params, { withoutFlagged: true }),
    flagged: flaggedTrialsOf(
      summary,
      "outliers in seconds, or a checkpoint inside the timed batches",
      "No trial was flagged (outlier, or a checkpoint in its batches).",
    ),
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
  // Per index kind and operation: GIN without fastupdate takes several times what the others do.
  eta: rowsEta(__dirname, (c: IndexTypesCondition) => `${c.kind} ${c.operation}`),
});

export const { params, run, open, summarise, claims, save, showRun, showClaims, registered } = experiment;
export type IndexTypesRun = Awaited<ReturnType<typeof run>>;
export type { ConditionSummary } from "./summarise";
export { showSummaryTable, showCharts, showExplanation } from "./present";

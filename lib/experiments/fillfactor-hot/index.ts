/** Notebook 07 (`lab.fillfactorHot.*`): PostgreSQL's fillfactor and HOT, by an UPDATE pass over a fresh table. */
import { defineExperiment } from "../define";
import { flaggedTrialsOf, postgresServer, rowsEta, workOnPostgres } from "../one-postgres";
import { flaggedColumns, POSTGRES_DOCS_CLAIMS_CAPTION, secondsColumns } from "../condition-groups";
import { intervalColumns } from "../interval-columns";
import { CLAIMS } from "./claims";
import { checkParams, FILLFACTOR_HOT_PROFILES, type FillfactorHotParams } from "./params";
import { readingOrder } from "./present";
import { summarise as summariseTrials } from "./summarise";
import { diskNeed } from "./workload/page-model";
import { HotTable } from "./workload/table";
import { planTrials, runPlan, type FillfactorHotTrial } from "./workload/run-trials";

const SLUG = "07-fillfactor-hot";

export const experiment = defineExperiment({
  slug: SLUG,
  title: "fillfactor vs HOT: free page space, heap-only updates and what they save",
  profiles: FILLFACTOR_HOT_PROFILES,
  check: checkParams,
  // The table and its indexes stay in shared_buffers: the pass measures page placement, not reads.
  servers: (p) =>
    postgresServer(SLUG, p.sharedBuffersMiB, {
      notebook: "07 fillfactor vs HOT",
      disk: diskNeed(p),
      clients: 3,
      extensions: [
        { name: "pgstattuple", measures: "rows and free bytes per loaded heap page (the claims' room ratio)" },
        { name: "pg_walinspect", measures: "B-tree entries inserted by the pass, counted in its WAL" },
      ],
    }),
  plan: planTrials,
  work: workOnPostgres(
    (c) => HotTable.open(c),
    (o, p: FillfactorHotParams) => runPlan({ ...o, size: p }),
    (c) => `fillfactor ${c.fillfactor}, UPDATE ${c.column}`,
  ),
  summarise: (trials: readonly FillfactorHotTrial[]) => summariseTrials(trials),
  claims: CLAIMS,
  claimsCaption: POSTGRES_DOCS_CLAIMS_CAPTION,
  without: (run, summary) => ({
    summary: summariseTrials(run.trials, { withoutFlagged: true }),
    flagged: flaggedTrialsOf(
      summary,
      "outliers, or a checkpoint/autovacuum in the timed window",
      "No trial was flagged (outlier, checkpoint or autovacuum in its window).",
    ),
  }),
  csvRows: (summaries) =>
    readingOrder(summaries).map((s) => ({
      fillfactor: s.fillfactor,
      column: s.column,
      ...secondsColumns(s),
      ...intervalColumns("hot_share", s.hotShare, s.hotShareInterval),
      new_page_share: s.newPageShare ?? null,
      room_ratio: s.roomRatio ?? null,
      rows_per_page: s.rowsPerPage ?? null,
      free_bytes_per_page: s.freeBytesPerPage ?? null,
      index_entries_per_row: s.indexEntriesPerRow ?? null,
      index_bytes_per_row: s.indexBytesPerRow ?? null,
      heap_bytes_per_row: s.heapBytesPerRow ?? null,
      wal_bytes_per_row: s.walBytesPerRow ?? null,
      fpi_per_1000_rows: s.fpiPer1000Rows ?? null,
      ...flaggedColumns(s),
    })),
  disk: diskNeed,
  // One kind, so the pass's growth past the stored rows is fitted.
  eta: rowsEta(__dirname, () => "pass"),
  // The fault matrix's cell: a SIGTERM while a statement of a trial runs (a pass's UPDATE or a load's INSERT).
  faults: {
    overrides: ["rows=50000", "batchRows=5000"],
    point: "batch",
    cells: [{ fault: "sigterm", target: "embedded", boundSeconds: 45 }],
  },
});

export const { params, run, open, summarise, claims, save, showRun, showClaims, registered } = experiment;
export type FillfactorHotRun = Awaited<ReturnType<typeof run>>;
export type { ConditionSummary } from "./summarise";
export { showSummaryTable, showCharts, showExplanation } from "./present";

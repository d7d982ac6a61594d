/** Writes a run's summaries as JSON and CSV beside its trials. */
import path from "node:path";
import { RunStore } from "../../results/run-store";
import { summaryCsv } from "../../results/summary-csv";
import type { ClaimCheck } from "../../stats/claims";
import type { FillfactorHotRun } from "./run";
import { readingOrder } from "./present";
import type { ConditionSummary } from "./summarise";
import type { FillfactorHotCondition } from "./workload/run-trials";

export function summaryRows(summaries: readonly ConditionSummary[]): Record<string, string | number | null>[] {
  return readingOrder(summaries).map((s) => ({
    fillfactor: s.fillfactor,
    column: s.column,
    trials: s.trials,
    failed: s.failed,
    median_s: s.medianSeconds,
    min_s: s.minSeconds,
    max_s: s.maxSeconds,
    hot_share: s.hotShare ?? null,
    hot_share_low: s.hotShareInterval?.low ?? null,
    hot_share_high: s.hotShareInterval?.high ?? null,
    hot_share_coverage: s.hotShareInterval?.coverage ?? null,
    new_page_share: s.newPageShare ?? null,
    room_ratio: s.roomRatio ?? null,
    rows_per_page: s.rowsPerPage ?? null,
    free_bytes_per_page: s.freeBytesPerPage ?? null,
    index_entries_per_row: s.indexEntriesPerRow ?? null,
    index_bytes_per_row: s.indexBytesPerRow ?? null,
    heap_bytes_per_row: s.heapBytesPerRow ?? null,
    wal_bytes_per_row: s.walBytesPerRow ?? null,
    fpi_per_1000_rows: s.fpiPer1000Rows ?? null,
    outlier_repeats: s.outlierRepeats.join(" "),
    disturbed_repeats: s.disturbedRepeats.join(" "),
  }));
}

/** Writes summary.json and summary.csv into the run's folder; returns their paths. */
export function writeSummaries(
  run: FillfactorHotRun,
  summaries: readonly ConditionSummary[],
  claims: readonly ClaimCheck[],
): string[] {
  const store = RunStore.open<FillfactorHotCondition>({
    notebook: run.metadata.notebook,
    params: run.metadata.params,
    resumeId: run.runId,
    root: path.dirname(run.directory),
  });
  return [
    store.writeSummary("summary.json", { summaries, claims }),
    store.writeSummary(
      "summary.csv",
      summaryCsv(summaryRows(summaries), { runId: store.runId, notebook: run.metadata.notebook }),
    ),
  ];
}

/** Writes a run's summaries as JSON and CSV beside its trials (the seed's tool wrote both). */
import path from "node:path";
import { RunStore } from "../../results/run-store";
import { summaryCsv } from "../../results/summary-csv";
import { readingOrder } from "./present";
import type { IndexWriteCostRun } from "./run";
import type { IndexWriteCondition } from "./workload/run-trials";
import type { ConditionSummary } from "./summarise";
import type { ClaimCheck } from "../../stats/claims";

export function summaryRows(summaries: readonly ConditionSummary[]): Record<string, string | number | null>[] {
  return summaries.map((s) => ({
    engine: s.engine,
    rows: s.rows,
    operation: s.operation,
    extra_indexes: s.extraIndexes,
    fillfactor: s.fillfactor,
    trials: s.trials,
    failed: s.failed,
    median_s: s.medianSeconds,
    min_s: s.minSeconds,
    max_s: s.maxSeconds,
    ratio: s.ratio ?? null,
    ratio_low: s.ratioInterval?.low ?? null,
    ratio_high: s.ratioInterval?.high ?? null,
    ratio_interval_coverage: s.ratioInterval?.coverage ?? null,
    server_ratio: s.serverRatioInterval?.estimate ?? null,
    outlier_repeats: s.outlierRepeats.join(" "),
    disturbed_repeats: s.disturbedRepeats.join(" "),
    hot_share: s.hotShare ?? null,
    btree_inserts_per_row: s.btreeInsertsPerRow ?? null,
    btree_splits_per_1000: s.btreeSplitsPer1000 ?? null,
    wal_bytes_per_row: s.walBytesPerRow ?? null,
    index_bytes: s.indexBytes ?? null,
  }));
}

/** Writes summary.json and summary.csv into the run's folder; returns their paths. */
export function writeSummaries(
  run: IndexWriteCostRun,
  summaries: readonly ConditionSummary[],
  claims: readonly ClaimCheck[],
): string[] {
  const store = RunStore.open<IndexWriteCondition>({
    notebook: run.metadata.notebook,
    params: run.metadata.params,
    resumeId: run.runId,
    root: path.dirname(run.directory),
  });
  const rows = summaryRows(readingOrder(summaries));
  return [
    store.writeSummary("summary.json", { summaries, claims }),
    store.writeSummary("summary.csv", summaryCsv(rows, { runId: store.runId, notebook: run.metadata.notebook })),
  ];
}

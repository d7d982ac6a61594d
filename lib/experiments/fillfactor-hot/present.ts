/** What notebook 07 shows, one call per section, so the notebook stays narrative + calls. */
import { plot } from "../../display/plotly";
import { showTable, sortedBy, type Row } from "../../display/table";
import { intervalLabel, OUTLIER_RULE } from "../../stats/intervals";
import { UPDATED_COLUMNS } from "./params";
import { costPerRow, hotShareByFillfactor, trialSeconds } from "./charts";
import type { ConditionSummary } from "./summarise";

/** Conditions in reading order: fillfactor from 100 down, then the column (counter before k). */
export function readingOrder(summaries: readonly ConditionSummary[]): ConditionSummary[] {
  return sortedBy(summaries, (s) => -s.fillfactor, [(s) => s.column, UPDATED_COLUMNS]);
}

const pct = (x: number | undefined) => (x === undefined ? "" : `${(x * 100).toFixed(x < 0.1 && x > 0 ? 1 : 0)} %`);
const r = (x: number | undefined, d = 2) => (x === undefined ? undefined : Math.round(x * 10 ** d) / 10 ** d);

export function showSummaryTable(summaries: readonly ConditionSummary[]): void {
  const rows: Row[] = readingOrder(summaries).map((s) => ({
    fillfactor: s.fillfactor,
    "UPDATE sets": s.column,
    n: s.trials,
    "room ratio": r(s.roomRatio),
    "HOT share": pct(s.hotShare),
    interval: s.hotShareInterval
      ? `${pct(s.hotShareInterval.low)}–${pct(s.hotShareInterval.high)} (${intervalLabel(s.hotShareInterval)})`
      : "",
    "new page": pct(s.newPageShare),
    "median s": s.medianSeconds,
    "min–max s": `${s.minSeconds.toFixed(3)}–${s.maxSeconds.toFixed(3)}`,
    flagged: [
      s.outlierRepeats.length ? `outlier: round ${s.outlierRepeats.join(", ")}` : "",
      s.disturbedRepeats.length ? `checkpoint/autovacuum: round ${s.disturbedRepeats.join(", ")}` : "",
    ]
      .filter(Boolean)
      .join("; "),
  }));
  showTable(rows, {
    caption:
      "Per condition, over rounds: room ratio = free bytes per loaded page ÷ (rows per page × bytes of one new version); " +
      "HOT share = Δn_tup_hot_upd ÷ Δn_tup_upd of the pass, median with the exact order-statistic interval of the median; " +
      `new page = Δn_tup_newpage_upd ÷ Δn_tup_upd. Flagged: outliers (${OUTLIER_RULE}) and passes with a checkpoint or autovacuum.`,
  });
}

export function showCharts(summaries: readonly ConditionSummary[]): void {
  plot(hotShareByFillfactor(summaries));
  plot(costPerRow(summaries));
  plot(trialSeconds(summaries), 380);
}

/** The counters behind the claims: the pages' room and what each pass added, per updated row. */
export function showExplanation(summaries: readonly ConditionSummary[]): void {
  const rows: Row[] = readingOrder(summaries).map((s) => ({
    fillfactor: s.fillfactor,
    "UPDATE sets": s.column,
    "rows / page": r(s.rowsPerPage, 1),
    "free B / page": r(s.freeBytesPerPage, 0),
    "B / version": r(s.versionBytes, 0),
    "HOT share": pct(s.hotShare),
    "index entries / row": r(s.indexEntriesPerRow, 3),
    "index B / row": r(s.indexBytesPerRow, 1),
    "heap B / row": r(s.heapBytesPerRow, 1),
    "WAL B / row": r(s.walBytesPerRow, 0),
    "FPI / 1k rows": r(s.fpiPer1000Rows, 1),
  }));
  showTable(rows, {
    caption:
      "Medians over rounds. Rows, free bytes and version bytes per page: pgstattuple on the loaded, vacuumed table. " +
      "Index entries: B-tree leaf insertions counted in the pass's WAL (pg_walinspect), blank without it; index and heap " +
      "bytes: pg_relation_size growth over the pass; WAL and full-page images: pg_stat_wal.",
  });
}

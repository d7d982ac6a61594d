/** What notebook 07 shows, one call per section. */
import { flaggedCell } from "../condition-groups";
import { axis, chart, COLOR, intervalBars, twoAxes, type PlotlyTrace } from "../../display/plotly";
import { rounded as r, showTable, sortedBy, type Row } from "../../display/table";
import { intervalLabel, OUTLIER_RULE } from "../../stats/intervals";
import { UPDATED_COLUMNS } from "./params";
import type { ConditionSummary } from "./summarise";

export function readingOrder(summaries: readonly ConditionSummary[]): ConditionSummary[] {
  return sortedBy(summaries, (s) => -s.fillfactor, [(s) => s.column, UPDATED_COLUMNS]);
}

const pct = (x: number | undefined) => (x === undefined ? "" : `${(x * 100).toFixed(x < 0.1 && x > 0 ? 1 : 0)} %`);

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
    flagged: flaggedCell(s, "round", "checkpoint/autovacuum"),
  }));
  showTable(rows, {
    caption:
      "Per condition, over rounds: room ratio = free bytes per loaded page ÷ (rows per page × bytes of one new version); " +
      "HOT share = Δn_tup_hot_upd ÷ Δn_tup_upd of the pass, median with the exact order-statistic interval of the median; " +
      `new page = Δn_tup_newpage_upd ÷ Δn_tup_upd. Flagged: outliers (${OUTLIER_RULE}) and passes with a checkpoint or autovacuum.`,
  });
}

const COLORS: Readonly<Record<string, string>> = { counter: COLOR.orange, k: COLOR.green, room: COLOR.blue };
const LABELS: Readonly<Record<string, string>> = { counter: "UPDATE counter (in no index)", k: "UPDATE k (indexed)" };

/** The HOT share beside the room ratio (capped at 1), what each pass wrote per row, and every pass's seconds. */
export function showCharts(summaries: readonly ConditionSummary[]): void {
  const byFillfactor = (column: string) =>
    summaries.filter((s) => s.column === column).sort((a, b) => a.fillfactor - b.fillfactor);
  const share: PlotlyTrace[] = UPDATED_COLUMNS.map(byFillfactor)
    .filter((points) => points.length)
    .map((points) => ({
      type: "scatter",
      mode: "lines+markers",
      name: LABELS[points[0].column],
      x: points.map((p) => p.fillfactor),
      y: points.map((p) => p.hotShare ?? null),
      line: { color: COLORS[points[0].column] },
      ...intervalBars(points.map((p) => p.hotShareInterval)),
    }));
  const room = byFillfactor("counter");
  if (room.length)
    share.push({
      type: "scatter",
      mode: "lines",
      name: "room ratio of the loaded pages (capped at 1)",
      x: room.map((p) => p.fillfactor),
      y: room.map((p) => (p.roomRatio === undefined ? null : Math.min(1, p.roomRatio))),
      line: { color: COLORS.room, dash: "dot" },
    });
  chart(
    "HOT share of the UPDATE pass vs heap fillfactor",
    {
      xaxis: axis("fillfactor, %", { autorange: "reversed" }),
      yaxis: axis("share of updated rows", { tickformat: ".0%", range: [-0.05, 1.05] }),
    },
    share,
  );
  const sorted = [...summaries].sort((a, b) => b.fillfactor - a.fillfactor || a.column.localeCompare(b.column));
  const x = sorted.map((s) => `ff ${s.fillfactor} · ${s.column}`);
  const bar = (name: string, y: (s: ConditionSummary) => number | undefined, color: string, axis = {}) => ({
    type: "bar",
    name,
    x,
    y: sorted.map((s) => y(s) ?? null),
    marker: { color },
    ...axis,
  });
  const tozero = { rangemode: "tozero" };
  chart(
    "What each pass wrote, per updated row",
    { barmode: "group", ...twoAxes("index entries per row", "WAL bytes per row", tozero, tozero) },
    [
      bar("index entries per row (WAL B-tree records)", (s) => s.indexEntriesPerRow, COLOR.green),
      bar("WAL bytes per row", (s) => s.walBytesPerRow, COLOR.blue, { yaxis: "y2" }),
    ],
  );
  // In run order, so drift and outliers show.
  chart(
    "Seconds of each trial's UPDATE pass",
    { yaxis: axis("seconds (sum of the pass's statements)"), showlegend: false },
    summaries.map((s) => ({
      type: "box",
      name: `ff ${s.fillfactor} · ${s.column}`,
      y: s.seconds,
      boxpoints: "all",
      jitter: 0.3,
      marker: { color: COLORS[s.column] },
    })),
    380,
  );
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

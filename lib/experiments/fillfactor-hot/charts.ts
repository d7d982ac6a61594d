import type { PlotlyFigure, PlotlyTrace } from "../../display/plotly";
import { UPDATED_COLUMNS } from "./params";
import type { ConditionSummary } from "./summarise";

const COLORS: Readonly<Record<string, string>> = { counter: "#f58518", k: "#54a24b", room: "#4c78a8" };
const LABELS: Readonly<Record<string, string>> = {
  counter: "UPDATE counter (in no index)",
  k: "UPDATE k (indexed)",
};

/** Beside it the room ratio (capped at 1): the share of rows whose new version the page had room for. */
export function hotShareByFillfactor(summaries: readonly ConditionSummary[]): PlotlyFigure {
  const data: PlotlyTrace[] = [];
  for (const column of UPDATED_COLUMNS) {
    const points = summaries.filter((s) => s.column === column).sort((a, b) => a.fillfactor - b.fillfactor);
    if (!points.length) continue;
    data.push({
      type: "scatter",
      mode: "lines+markers",
      name: LABELS[column],
      x: points.map((p) => p.fillfactor),
      y: points.map((p) => p.hotShare ?? null),
      line: { color: COLORS[column] },
      error_y: {
        type: "data",
        symmetric: false,
        array: points.map((p) => (p.hotShareInterval ? p.hotShareInterval.high - p.hotShareInterval.estimate : 0)),
        arrayminus: points.map((p) => (p.hotShareInterval ? p.hotShareInterval.estimate - p.hotShareInterval.low : 0)),
      },
    });
  }
  const room = summaries.filter((s) => s.column === "counter").sort((a, b) => a.fillfactor - b.fillfactor);
  if (room.length)
    data.push({
      type: "scatter",
      mode: "lines",
      name: "room ratio of the loaded pages (capped at 1)",
      x: room.map((p) => p.fillfactor),
      y: room.map((p) => (p.roomRatio === undefined ? null : Math.min(1, p.roomRatio))),
      line: { color: COLORS.room, dash: "dot" },
    });
  return {
    data,
    layout: {
      title: { text: "HOT share of the UPDATE pass vs heap fillfactor" },
      xaxis: { title: { text: "fillfactor, %" }, autorange: "reversed" },
      yaxis: { title: { text: "share of updated rows" }, tickformat: ".0%", range: [-0.05, 1.05] },
    },
  };
}

export function costPerRow(summaries: readonly ConditionSummary[]): PlotlyFigure {
  const sorted = [...summaries].sort((a, b) => b.fillfactor - a.fillfactor || a.column.localeCompare(b.column));
  const x = sorted.map((s) => `ff ${s.fillfactor} · ${s.column}`);
  return {
    data: [
      {
        type: "bar",
        name: "index entries per row (WAL B-tree records)",
        x,
        y: sorted.map((s) => s.indexEntriesPerRow ?? null),
        marker: { color: "#54a24b" },
      },
      {
        type: "bar",
        name: "WAL bytes per row",
        x,
        y: sorted.map((s) => s.walBytesPerRow ?? null),
        marker: { color: "#4c78a8" },
        yaxis: "y2",
      },
    ],
    layout: {
      title: { text: "What each pass wrote, per updated row" },
      barmode: "group",
      yaxis: { title: { text: "index entries per row" }, rangemode: "tozero" },
      yaxis2: { title: { text: "WAL bytes per row" }, overlaying: "y", side: "right", rangemode: "tozero" },
    },
  };
}

/** In run order, so drift and outliers show. */
export function trialSeconds(summaries: readonly ConditionSummary[]): PlotlyFigure {
  return {
    data: summaries.map((s) => ({
      type: "box",
      name: `ff ${s.fillfactor} · ${s.column}`,
      y: s.seconds,
      boxpoints: "all",
      jitter: 0.3,
      marker: { color: COLORS[s.column] },
    })),
    layout: {
      title: { text: "Seconds of each trial's UPDATE pass" },
      yaxis: { title: { text: "seconds (sum of the pass's statements)" }, rangemode: "tozero" },
      showlegend: false,
    },
  };
}

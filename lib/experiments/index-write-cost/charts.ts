/** The notebook's plotly figures, from the summaries. */
import type { PlotlyFigure, PlotlyTrace } from "../../display/plotly";
import { publishedFigures, type PublishedFigure } from "../../results/reference";
import { OPERATIONS, OPERATION_LABELS, type Operation } from "./workload/operations";
import type { ConditionSummary } from "./summarise";
import { HEAP_FILLFACTOR } from "./workload/engine";
import { groupBy } from "../../stats/summary";

const COLORS: Record<string, string> = {
  insert: "#4c78a8",
  update_nonindexed: "#f58518",
  update_one_field: "#54a24b",
  update_five_fields: "#e45756",
};

const sizeLabel = (rows: number) =>
  rows >= 1_000_000 ? `${rows / 1_000_000}M` : rows >= 1000 ? `${rows / 1000}k` : String(rows);

/** Per operation, our ratio over `x` and the seed's figures that `seedAt` keeps, drawn as [mode, name, style]. */
function ratioLines(
  mine: readonly ConditionSummary[],
  engine: string,
  x: "extraIndexes" | "rows",
  seedAt: (f: PublishedFigure) => boolean,
  [mode, name, style]: readonly [string, string, (op: Operation) => PlotlyTrace],
): PlotlyTrace[] {
  return OPERATIONS.flatMap((op) => {
    const points = mine.filter((s) => s.operation === op).sort((a, b) => a[x] - b[x]);
    // By indexes, an operation this run did not measure shows no seed marks either.
    if (!points.length && x === "extraIndexes") return [];
    const seed = publishedFigures("index_write_cost")
      .filter((f) => f.engine === engine && f.series === op && f.condition === "ratio_vs_0" && seedAt(f))
      .sort((a, b) => (a[x] ?? 0) - (b[x] ?? 0));
    const gap = (a?: number, b?: number) => (a !== undefined && b !== undefined ? a - b : 0);
    const ours: PlotlyTrace = {
      type: "scatter",
      mode: "lines+markers",
      name: OPERATION_LABELS[op],
      x: points.map((p) => p[x]),
      y: points.map((p) => p.ratio ?? null),
      line: { color: COLORS[op] },
      ...(x === "rows"
        ? {}
        : {
            error_y: {
              type: "data",
              symmetric: false,
              array: points.map((p) => gap(p.ratioCiHigh, p.ratio)),
              arrayminus: points.map((p) => gap(p.ratio, p.ratioCiLow)),
            },
          }),
    };
    return [
      ...(points.length ? [ours] : []),
      ...(seed.length
        ? [
            {
              type: "scatter",
              mode,
              name: `${name}: ${OPERATION_LABELS[op]}`,
              x: seed.map((f) => f[x]),
              y: seed.map((f) => f.value),
              ...style(op),
            },
          ]
        : []),
    ];
  });
}

/** Ratio vs extra indexes per operation (error bars: the exact order-statistic interval of the median ratio). */
export const ratioByIndexes = (
  summaries: readonly ConditionSummary[],
  engine: string,
  rows: number,
  fillfactor: number | null,
): PlotlyFigure => ({
  data: ratioLines(
    summaries.filter((s) => s.engine === engine && s.rows === rows && s.fillfactor === fillfactor),
    engine,
    "extraIndexes",
    (f) => f.rows === 1_000_000,
    ["markers", "seed, 1M", (op) => ({ marker: { symbol: "diamond-open", size: 11, color: COLORS[op] } })],
  ),
  layout: {
    title: {
      text: `${engine}: time ratio vs extra indexes (${sizeLabel(rows)} rows${fillfactor ? `, fillfactor ${fillfactor}` : ""})`,
    },
    xaxis: { title: { text: "extra secondary indexes" }, tickvals: [0, 1, 2, 3, 4, 5] },
    yaxis: {
      title: { text: "median of paired ratios t / t(0 extra indexes), with its order-statistic interval" },
      rangemode: "tozero",
    },
  },
});

/** Ratio with 5 extra indexes vs row count: does the small-N ratio predict the large one? */
export const ratioByRows = (
  summaries: readonly ConditionSummary[],
  engine: string,
  fillfactor: number | null,
): PlotlyFigure => ({
  data: ratioLines(
    summaries.filter((s) => s.engine === engine && s.extraIndexes === 5 && s.fillfactor === fillfactor),
    engine,
    "rows",
    (f) => f.extraIndexes === 5,
    [
      "lines+markers",
      "seed",
      (op) => ({ line: { color: COLORS[op], dash: "dot" }, marker: { symbol: "diamond-open" } }),
    ],
  ),
  layout: {
    title: { text: `${engine}: ratio with 5 extra indexes vs rows (dotted: the seed)` },
    xaxis: { title: { text: "rows" }, type: "log" },
    yaxis: { title: { text: "time ratio vs 0 extra indexes" }, rangemode: "tozero" },
  },
});

/** Every trial, switchable by engine and size as the seed's HTML was: dots trials, bar the median, whisker min–max. */
export function trialExplorer(
  summaries: readonly ConditionSummary[],
  metric: "seconds" | "ratio" = "seconds",
): PlotlyFigure {
  const groups = [...groupBy(summaries, (s) => `${s.engine}|${s.rows}|${s.fillfactor ?? "-"}`).values()];
  const data: PlotlyTrace[] = [];
  const traceGroup: number[] = [];
  const add = (gi: number, ...traces: PlotlyTrace[]) => {
    data.push(...traces);
    traceGroup.push(...traces.map(() => gi));
  };
  groups.forEach((mine, gi) => {
    for (const op of OPERATIONS) {
      const points = mine.filter((s) => s.operation === op).sort((a, b) => a.extraIndexes - b.extraIndexes);
      if (!points.length) continue;
      const x = points.map((p) => `+${p.extraIndexes} idx`);
      const visible = gi === 0;
      if (metric === "seconds")
        add(
          gi,
          {
            type: "scatter",
            mode: "markers",
            name: OPERATION_LABELS[op],
            legendgroup: op,
            x: points.flatMap((p, i) => p.seconds.map(() => x[i])),
            y: points.flatMap((p) => p.seconds),
            offsetgroup: op,
            marker: { color: COLORS[op], size: 6, opacity: 0.6 },
            visible,
            hovertemplate: "%{y:.3f} s<extra>trial</extra>",
          },
          {
            type: "bar",
            name: `${OPERATION_LABELS[op]} median`,
            legendgroup: op,
            showlegend: false,
            x,
            y: points.map((p) => p.medianSeconds),
            offsetgroup: op,
            marker: { color: COLORS[op], opacity: 0.35 },
            error_y: {
              type: "data",
              symmetric: false,
              array: points.map((p) => p.maxSeconds - p.medianSeconds),
              arrayminus: points.map((p) => p.medianSeconds - p.minSeconds),
            },
            visible,
          },
        );
      else
        add(gi, {
          type: "bar",
          name: OPERATION_LABELS[op],
          x,
          y: points.map((p) => p.ratio ?? null),
          marker: { color: COLORS[op] },
          visible,
        });
    }
  });
  const buttons = groups.map(([{ engine, rows, fillfactor: ff }], gi) => ({
    label: `${engine} · ${sizeLabel(rows)} rows${ff !== null && ff !== 100 ? ` · ff ${ff}` : ""}`,
    method: "update",
    args: [{ visible: traceGroup.map((t) => t === gi) }],
  }));
  return {
    data,
    layout: {
      // Left-aligned so the engine/size menu on the right never covers it.
      title: {
        text:
          metric === "seconds" ? "Every trial: seconds (bar = median, whisker = min–max)" : "Ratio vs 0 extra indexes",
        x: 0.02,
        xanchor: "left",
      },
      barmode: "group",
      // Trial dots over their own bar: plotly ignores a scatter's offsetgroup without it (known only with scatters).
      ...(metric === "seconds" ? { scattermode: "group" } : {}),
      updatemenus: [{ type: "dropdown", x: 1, xanchor: "right", y: 1.18, buttons }],
      yaxis: { title: { text: metric === "seconds" ? "seconds (timed batches only)" : "ratio" }, rangemode: "tozero" },
    },
  };
}

/** The non-indexed update's ratio and HOT share per fillfactor (PostgreSQL). */
export function fillfactorSweep(summaries: readonly ConditionSummary[], rows: number): PlotlyFigure {
  const points = summaries
    .filter(
      (s) =>
        HEAP_FILLFACTOR[s.engine] && s.rows === rows && s.operation === "update_nonindexed" && s.extraIndexes === 5,
    )
    .sort((a, b) => (b.fillfactor ?? 0) - (a.fillfactor ?? 0));
  return {
    data: [
      {
        type: "bar",
        name: "ratio vs 0 extra indexes",
        x: points.map((p) => `ff ${p.fillfactor}`),
        y: points.map((p) => p.ratio ?? null),
      },
      {
        type: "scatter",
        mode: "lines+markers",
        name: "HOT share",
        yaxis: "y2",
        x: points.map((p) => `ff ${p.fillfactor}`),
        y: points.map((p) => p.hotShare ?? null),
      },
    ],
    layout: {
      title: { text: `UPDATE counter (non-indexed) with 5 extra indexes, ${sizeLabel(rows)} rows: fillfactor sweep` },
      yaxis: { title: { text: "ratio" }, rangemode: "tozero" },
      yaxis2: { title: { text: "HOT share" }, overlaying: "y", side: "right", range: [0, 1] },
    },
  };
}

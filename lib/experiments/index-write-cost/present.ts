/** What the notebook shows, one call per section, and its plotly figures. */
import { flaggedCell } from "../condition-groups";
import { escapeHtml, noteHtml, show } from "../../display/output";
import {
  axis,
  COLOR,
  errorBars,
  intervalBars,
  plot,
  titledFigure,
  twoAxes,
  type PlotlyFigure,
  type PlotlyTrace,
} from "../../display/plotly";
import { rounded as r2, showTable, sortedBy, type Row } from "../../display/table";
import { publishedFigures } from "../../results/reference";
import { percent, shortCount } from "../../stats/format";
import { groupBy } from "../../stats/summary";
import { CLIENT_PATH } from "./claims";
import { estimateAndRange, intervalLabel, OUTLIER_RULE } from "../../stats/intervals";
import { OPERATION_LABELS, OPERATIONS } from "./workload/operations";
import { ENGINES } from "../../targets/engines";
import { HEAP_FILLFACTOR } from "./workload/engine";
import { matrixSizes, type ConditionSummary } from "./summarise";

/** Each engine that could not start here, and why. */
export function showUnavailable(unavailable: ReadonlyMap<string, string>): void {
  for (const [engine, reason] of unavailable)
    show().html(
      noteHtml(
        `<b>${escapeHtml(engine)} is not available on this machine</b>, ` +
          `so this run shows no ${escapeHtml(engine)} results (the run is not failed). ${escapeHtml(reason)}`,
        COLOR.red,
        "#fdf2f2",
      ),
    );
}

/** Engine → rows → operation → extra indexes → fillfactor (the order run is in trials.jsonl). */
export function readingOrder(summaries: readonly ConditionSummary[]): ConditionSummary[] {
  return sortedBy(
    summaries,
    [(s) => s.engine, ENGINES],
    (s) => s.rows,
    [(s) => s.operation, OPERATIONS],
    (s) => s.extraIndexes,
    (s) => s.fillfactor ?? 100,
  );
}

export function showSummaryTable(summaries: readonly ConditionSummary[]): void {
  // Every row has the same columns (danfo aligns by position).
  const swept = summaries.some((s) => s.fillfactor !== null && s.fillfactor !== 100);
  const rows: Row[] = readingOrder(summaries).map((s) => ({
    engine: s.engine,
    rows: s.rows,
    operation: OPERATION_LABELS[s.operation],
    "extra idx": s.extraIndexes,
    ...(swept ? { fillfactor: s.fillfactor ?? "" } : {}),
    n: s.trials,
    "median s": s.medianSeconds,
    "min–max s": `${s.minSeconds.toFixed(3)}–${s.maxSeconds.toFixed(3)}`,
    ratio: r2(s.ratio),
    interval: s.ratioInterval
      ? `${s.ratioInterval.low.toFixed(2)}–${s.ratioInterval.high.toFixed(2)} (${intervalLabel(s.ratioInterval)})`
      : "",
    "server-time ratio": estimateAndRange(s.serverRatioInterval),
    flagged: flaggedCell(s, "repeat", "checkpoint/autovacuum"),
  }));
  showTable(rows, {
    caption:
      "Medians and ratios. Ratio = this condition's seconds / the 0-extra-index condition's in the same repeat (they ran in the same repeat, " +
      "in a shuffled order), median over repeats, with the exact order-statistic interval of that median. Server-time ratio: the same, " +
      `in pg_stat_statements planning + execution time. Flagged: outliers (${OUTLIER_RULE}) and trials with a checkpoint or autovacuum in their timed window.`,
  });
}

export function showCharts(summaries: readonly ConditionSummary[]): void {
  const engines = [...new Set(summaries.map((s) => s.engine))];
  for (const engine of engines) {
    const mine = summaries.filter((s) => s.engine === engine);
    const ff = mine.some((s) => s.fillfactor === 100) ? 100 : mine[0].fillfactor;
    plot(ratioChart(summaries, engine, ff, Math.max(...matrixSizes(mine))));
    if (new Set(mine.map((s) => s.rows)).size > 1) plot(ratioChart(summaries, engine, ff));
  }
  plot(trialExplorer(summaries, "seconds"), 480);
  plot(trialExplorer(summaries, "ratio"), 420);
  const swept = summaries.filter((s) => HEAP_FILLFACTOR[s.engine]);
  if (new Set(swept.map((s) => s.fillfactor)).size > 1) plot(fillfactorSweep(swept, Math.max(...matrixSizes(swept))));
}

/** The seed's published medians and ratios beside ours for the same engine, operation and indexes. */
export function showSeedComparison(summaries: readonly ConditionSummary[]): void {
  const rows: Row[] = [];
  for (const f of publishedFigures("index_write_cost")) {
    const figure = { ratio_vs_0: "ratio", median_seconds: "median s" }[f.condition];
    const ran = summaries.some((s) => s.engine === f.engine);
    if (!ran || f.extraIndexes === undefined || f.rows === undefined || !figure) continue;
    const candidates = summaries.filter(
      (s) =>
        s.engine === f.engine &&
        s.operation === f.series &&
        s.extraIndexes === f.extraIndexes &&
        (s.fillfactor ?? 100) === 100,
    );
    const distance = (s: ConditionSummary) => Math.abs(Math.log(s.rows / (f.rows ?? 1)));
    const nearest = candidates.sort((a, b) => distance(a) - distance(b))[0];
    const ours = nearest ? (f.condition === "ratio_vs_0" ? nearest.ratio : nearest.medianSeconds) : undefined;
    rows.push({
      engine: f.engine,
      operation: OPERATION_LABELS[f.series as keyof typeof OPERATION_LABELS] ?? f.series,
      "extra idx": f.extraIndexes,
      figure,
      "seed rows": f.rows,
      "seed (Go client)": f.value,
      "our rows": nearest?.rows,
      "ours (Node client)": r2(ours),
      "ours / seed": ours !== undefined ? r2(ours / f.value) : undefined,
      "our client ÷ server": r2(nearest?.clientPerServer),
    });
  }
  showTable(
    sortedBy(
      rows,
      [(r) => r.engine, ENGINES],
      [(r) => r.operation, Object.values(OPERATION_LABELS)],
      (r) => r["extra idx"],
      (r) => r.figure,
    ),
    {
      caption:
        "The seed's figures beside ours (ours at the same row count where this run has it, else the nearest). Absolute " +
        `seconds differ by machine; ratios differ by client path too. ${CLIENT_PATH}. Our client ÷ server: time per row ` +
        "outside the server ÷ server time (pg_stat_statements), medians over trials; the larger it is, the nearer 1 a " +
        "wall-time ratio is pulled (no server time on MongoDB)",
    },
  );
}

/** The counters behind the ratios: HOT share, B-tree inserts and splits from the WAL, WAL per row, index size. */
export function showExplanation(summaries: readonly ConditionSummary[]): void {
  const rows: Row[] = readingOrder(summaries)
    .filter((s) => s.engine === "postgresql")
    .map((s) => ({
      rows: s.rows,
      operation: OPERATION_LABELS[s.operation],
      "extra idx": s.extraIndexes,
      fillfactor: s.fillfactor,
      "HOT share": percent(s.hotShare, 0, ""),
      "B-tree leaf inserts / row": r2(s.btreeInsertsPerRow),
      "B-tree splits / 1k rows": r2(s.btreeSplitsPer1000),
      "heap records / row": r2(s.heapRecordsPerRow),
      "WAL bytes / row": s.walBytesPerRow === undefined ? undefined : Math.round(s.walBytesPerRow),
      "index MiB": s.indexBytes === undefined ? undefined : r2(s.indexBytes / 2 ** 20),
      "server ms": s.serverMs === undefined ? undefined : Math.round(s.serverMs),
      ratio: r2(s.ratio),
    }));
  if (rows.length)
    showTable(rows, {
      caption:
        "PostgreSQL server counters per condition (medians over trials; deltas over the timed part). B-tree and heap figures are " +
        "counted in the WAL of the timed part (pg_walinspect), not modelled; blank where the server does not offer pg_walinspect.",
    });
}

const COLORS: Record<string, string> = {
  insert: COLOR.blue,
  update_nonindexed: COLOR.orange,
  update_one_field: COLOR.green,
  update_five_fields: COLOR.red,
};

/**
 * Our ratio per operation beside the seed's: over extra indexes at `rows` (error bars: the exact order-statistic
 * interval of the median ratio), or without `rows` over the sizes at 5 extra indexes (does the small-N ratio predict
 * the large one?).
 */
function ratioChart(
  summaries: readonly ConditionSummary[],
  engine: string,
  fillfactor: number | null,
  rows?: number,
): PlotlyFigure {
  const bySize = rows === undefined;
  const x = bySize ? "rows" : "extraIndexes";
  const mine = summaries.filter(
    (s) => s.engine === engine && s.fillfactor === fillfactor && (bySize ? s.extraIndexes === 5 : s.rows === rows),
  );
  const data = OPERATIONS.flatMap((op): PlotlyTrace[] => {
    const points = mine.filter((s) => s.operation === op).sort((a, b) => a[x] - b[x]);
    // By indexes, an operation this run did not measure shows no seed marks either.
    if (!points.length && !bySize) return [];
    const seed = publishedFigures("index_write_cost")
      .filter((f) => f.engine === engine && f.series === op && f.condition === "ratio_vs_0")
      .filter((f) => (bySize ? f.extraIndexes === 5 : f.rows === 1_000_000))
      .sort((a, b) => (a[x] ?? 0) - (b[x] ?? 0));
    const [label, color] = [OPERATION_LABELS[op], COLORS[op]];
    const ours = {
      type: "scatter",
      mode: "lines+markers",
      name: label,
      x: points.map((p) => p[x]),
      y: points.map((p) => p.ratio ?? null),
      line: { color },
      ...(bySize ? {} : intervalBars(points.map((p) => p.ratioInterval))),
    };
    const theirs = bySize
      ? {
          mode: "lines+markers",
          name: `seed: ${label}`,
          line: { color, dash: "dot" },
          marker: { symbol: "diamond-open" },
        }
      : { mode: "markers", name: `seed, 1M: ${label}`, marker: { symbol: "diamond-open", size: 11, color } };
    return [
      ...(points.length ? [ours] : []),
      ...(seed.length ? [{ type: "scatter", x: seed.map((f) => f[x]), y: seed.map((f) => f.value), ...theirs }] : []),
    ];
  });
  if (bySize)
    return titledFigure(
      `${engine}: ratio with 5 extra indexes vs rows (dotted: the seed)`,
      { xaxis: axis("rows", { type: "log" }), yaxis: axis("time ratio vs 0 extra indexes") },
      data,
    );
  const title = `${engine}: time ratio vs extra indexes (${shortCount(rows)} rows${fillfactor ? `, fillfactor ${fillfactor}` : ""})`;
  const yaxis = axis("median of paired ratios t / t(0 extra indexes), with its order-statistic interval");
  return titledFigure(title, { xaxis: axis("extra secondary indexes", { tickvals: [0, 1, 2, 3, 4, 5] }), yaxis }, data);
}

/** Every trial, switchable by engine and size as the seed's HTML was: dots trials, bar the median, whisker min–max. */
function trialExplorer(summaries: readonly ConditionSummary[], metric: "seconds" | "ratio" = "seconds"): PlotlyFigure {
  const groups = [...groupBy(summaries, (s) => `${s.engine}|${s.rows}|${s.fillfactor ?? "-"}`).values()];
  const traces = groups.flatMap((mine, gi) =>
    OPERATIONS.flatMap((op) => {
      const points = mine.filter((s) => s.operation === op).sort((a, b) => a.extraIndexes - b.extraIndexes);
      const x = points.map((p) => `+${p.extraIndexes} idx`);
      const [name, color] = [OPERATION_LABELS[op], COLORS[op]];
      const drawn: PlotlyTrace[] =
        metric === "ratio"
          ? [{ type: "bar", name, x, y: points.map((p) => p.ratio ?? null), marker: { color } }]
          : [
              {
                type: "scatter",
                mode: "markers",
                name,
                legendgroup: op,
                x: points.flatMap((p, i) => p.seconds.map(() => x[i])),
                y: points.flatMap((p) => p.seconds),
                offsetgroup: op,
                marker: { color, size: 6, opacity: 0.6 },
                hovertemplate: "%{y:.3f} s<extra>trial</extra>",
              },
              {
                type: "bar",
                name: `${name} median`,
                legendgroup: op,
                showlegend: false,
                x,
                y: points.map((p) => p.medianSeconds),
                offsetgroup: op,
                marker: { color, opacity: 0.35 },
                ...errorBars(
                  points.map((p) => p.maxSeconds - p.medianSeconds),
                  points.map((p) => p.medianSeconds - p.minSeconds),
                ),
              },
            ];
      return points.length ? drawn.map((trace) => ({ trace: { ...trace, visible: gi === 0 }, gi })) : [];
    }),
  );
  const buttons = groups.map(([{ engine, rows, fillfactor: ff }], gi) => ({
    label: `${engine} · ${shortCount(rows)} rows${ff !== null && ff !== 100 ? ` · ff ${ff}` : ""}`,
    method: "update",
    args: [{ visible: traces.map((t) => t.gi === gi) }],
  }));
  return {
    data: traces.map((t) => t.trace),
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
      yaxis: axis(metric === "seconds" ? "seconds (timed batches only)" : "ratio"),
    },
  };
}

/** The non-indexed update's ratio and HOT share per fillfactor, of the engines with one (`swept`). */
function fillfactorSweep(swept: readonly ConditionSummary[], rows: number): PlotlyFigure {
  const points = swept
    .filter((s) => s.rows === rows && s.operation === "update_nonindexed" && s.extraIndexes === 5)
    .sort((a, b) => (b.fillfactor ?? 0) - (a.fillfactor ?? 0));
  const x = points.map((p) => `ff ${p.fillfactor}`);
  return titledFigure(
    `UPDATE counter (non-indexed) with 5 extra indexes, ${shortCount(rows)} rows: fillfactor sweep`,
    twoAxes("ratio", "HOT share", { rangemode: "tozero" }, { range: [0, 1] }),
    [
      { type: "bar", name: "ratio vs 0 extra indexes", x, y: points.map((p) => p.ratio ?? null) },
      {
        type: "scatter",
        mode: "lines+markers",
        name: "HOT share",
        yaxis: "y2",
        x,
        y: points.map((p) => p.hotShare ?? null),
      },
    ],
  );
}

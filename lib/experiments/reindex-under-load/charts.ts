/** Notebook 04's charts: each set's timeline (TPS, REINDEX, blocked spans, lock waits); seed 003's sets beside ours. */
import { groupButtons, type PlotlyFigure, type PlotlyTrace } from "../../display/plotly";
import { publishedFigures } from "../../results/reference";
import { stepCoordinates } from "../../workloads/pgbench";
import type { ReindexMode } from "./params";
import type { ReindexSummary, RunSummary } from "./summarise";

type Shape = Record<string, unknown>;
type Runs = readonly RunSummary[];

const MODE_COLORS: Readonly<Record<ReindexMode, string>> = {
  baseline: "#4c78a8",
  reindex: "#e45756",
  concurrently: "#54a24b",
};

export const MODE_LABELS: Readonly<Record<ReindexMode, string>> = {
  baseline: "baseline (no REINDEX)",
  reindex: "REINDEX INDEX",
  concurrently: "REINDEX INDEX CONCURRENTLY",
};

/** The seed's three sets: TPS and the accounts UPDATE's -r latency, without and with REINDEX. */
export function seedSets() {
  const figures = publishedFigures("reindex_impact");
  const value = (series: string, set: string) => figures.find((f) => f.series === series && f.condition === set)?.value;
  const sets = [...new Set(figures.map((f) => f.condition).filter((c) => /^set\d+$/.test(c)))].sort();
  return sets.flatMap((c) => {
    const [baselineTps, reindexTps] = [value("tps_without_reindex", c), value("tps_with_reindex", c)];
    const baselineUpdateMs = value("update_accounts_latency_without_reindex", c);
    const reindexUpdateMs = value("update_accounts_latency_with_reindex", c);
    return baselineTps === undefined || reindexTps === undefined
      ? []
      : [{ set: Number(c.slice(3)), baselineTps, reindexTps, baselineUpdateMs, reindexUpdateMs }];
  });
}

function fade(hex: string, alpha: number): string {
  const n = parseInt(hex.slice(1), 16);
  return `rgba(${(n >> 16) & 255},${(n >> 8) & 255},${n & 255},${alpha})`;
}

/** x in seconds, y as a share of the plot's height. */
const onPlot = (type: string, [x0, x1]: number[], [y0, y1]: number[], style: Shape): Shape => ({
  type,
  xref: "x",
  yref: "paper",
  x0,
  x1,
  y0,
  y1,
  ...style,
});

/** The REINDEX as a light band over the TPS panel, its start and end as dashed lines; blocked intervals as strips. */
function shapesFor(runs: Runs): Shape[] {
  return runs.flatMap((r) => {
    const color = MODE_COLORS[r.mode];
    const { reindexStartS: start, reindexEndS: end } = r;
    const window =
      start === undefined || end === undefined
        ? []
        : [
            {
              ...onPlot("rect", [start, end], [0.3, 1], { fillcolor: fade(color, 0.1), line: { width: 0 } }),
              layer: "below",
            },
            ...[start, end].map((x) => onPlot("line", [x, x], [0.3, 1], { line: { color, width: 1.5, dash: "dash" } })),
          ];
    // One lane per mode at the top of the TPS panel.
    const lane = ["reindex", "concurrently", "baseline"].indexOf(r.mode) * 0.035;
    const seconds = (ms: number) => (ms - r.startMs) / 1000;
    const strip = { fillcolor: fade(color, 0.85), line: { width: 0 } };
    const blocked = r.intervals.map((i) =>
      onPlot("rect", [seconds(i.startMs), seconds(i.endMs)], [0.97 - lane, 1 - lane], strip),
    );
    return [...window, ...blocked];
  });
}

/** One figure for all sets: each set's traces (the first set's visible), its shapes, and buttons that switch sets. */
function perSetFigure(
  s: ReindexSummary,
  title: string,
  traces: (r: RunSummary) => PlotlyTrace[],
  shapes: typeof shapesFor,
) {
  const sets = [...new Set(s.runs.map((r) => r.set))].sort((a, b) => a - b);
  const runsIn = (set: number | undefined) => s.runs.filter((r) => r.set === set);
  const groups = sets.map((set) => runsIn(set).flatMap(traces));
  const layoutFor = (set: number) => ({ shapes: shapes(runsIn(set)) });
  return {
    data: groups.flatMap((g, i) => g.map((t) => ({ ...t, visible: i === 0 }))),
    layout: {
      title: { text: title, x: 0.02, xanchor: "left" },
      margin: { t: 90, r: 20, b: 50, l: 60 },
      shapes: shapes(runsIn(sets[0])),
      updatemenus: groupButtons(
        sets,
        groups.flatMap((g, i) => g.map(() => sets[i])),
        (set) => `set ${set}`,
        layoutFor,
      ),
    },
  };
}

const modeLine = (r: RunSummary, width: number | undefined, more: Record<string, unknown>): PlotlyTrace => ({
  type: "scatter",
  mode: "lines",
  name: MODE_LABELS[r.mode],
  ...more,
  line: { color: MODE_COLORS[r.mode], ...(width ? { width } : {}), shape: "hv" },
});

/** TPS per second per mode (top), sessions waiting on a lock (bottom). */
export function timeline(s: ReindexSummary): PlotlyFigure {
  const title = "TPS per second; dashed: REINDEX start/end; strips at the top: pgbench blocked on a lock";
  const f = perSetFigure(
    s,
    title,
    (r) => [
      modeLine(r, 2, {
        legendgroup: r.mode,
        ...stepCoordinates(r.series, (p) => p.tps),
        hovertemplate: "%{y:.0f} tps at %{x:.0f} s<extra>" + r.mode + "</extra>",
      }),
      modeLine(r, 1.5, {
        name: `${MODE_LABELS[r.mode]}: sessions waiting on a lock`,
        legendgroup: r.mode,
        showlegend: false,
        xaxis: "x",
        yaxis: "y2",
        x: r.perSample.map((p) => (p.t - r.startMs) / 1000),
        y: r.perSample.map((p) => p.lockWaiting),
        fill: "tozeroy",
        fillcolor: fade(MODE_COLORS[r.mode], 0.2),
        hovertemplate: "%{y} waiting at %{x:.1f} s<extra>" + r.mode + "</extra>",
      }),
    ],
    shapesFor,
  );
  const end = Math.max(s.durationSeconds, ...s.runs.map((r) => r.reindexEndS ?? 0)) + 1;
  return {
    data: f.data,
    layout: {
      ...f.layout,
      // Anchored to the lower panel, so the shared axis and its title sit at the bottom.
      xaxis: { title: { text: "seconds since the load started" }, anchor: "y2", range: [0, end] },
      yaxis: { title: { text: "transactions / s" }, domain: [0.3, 1], rangemode: "tozero" },
      yaxis2: { title: { text: "waiting" }, domain: [0, 0.22], rangemode: "tozero", dtick: 1 },
      legend: { orientation: "h", y: -0.15 },
    },
  };
}

/** The slowest transaction of each second (log scale) per mode and set: a blocked client shows as one very slow one. */
export function latencyTimeline(s: ReindexSummary): PlotlyFigure {
  const title = "Slowest transaction completed in each second (ms, log scale)";
  const slowest = (r: RunSummary) => stepCoordinates(r.series, (p) => (p.transactions ? p.latencyMaxMs : null));
  // REINDEX start and end as full-height dashed lines.
  const lines = (runs: Runs) => shapesFor(runs).flatMap((x) => (x.type === "line" ? [{ ...x, y0: 0, y1: 1 }] : []));
  const f = perSetFigure(s, title, (r) => [modeLine(r, undefined, slowest(r))], lines);
  return {
    data: f.data,
    layout: {
      ...f.layout,
      legend: { orientation: "h", y: -0.2 },
      xaxis: { title: { text: "seconds since the load started" }, range: [0, s.durationSeconds + 1] },
      yaxis: { title: { text: "ms" }, type: "log" },
    },
  };
}

/** One bar per set for each mode of the run. */
const barsByMode = (s: ReindexSummary, prefix: string, y: (r: RunSummary) => number | null) =>
  [...new Set(s.runs.map((r) => r.mode))].map((mode): PlotlyTrace => {
    const runs = s.runs.filter((r) => r.mode === mode).sort((a, b) => a.set - b.set);
    const x = runs.map((r) => `set ${r.set}`);
    return { type: "bar", name: prefix + MODE_LABELS[mode], x, y: runs.map(y), marker: { color: MODE_COLORS[mode] } };
  });

/** TPS of each set and mode beside the seed's three sets. */
export function tpsBySet(s: ReindexSummary): PlotlyFigure {
  const seed = seedSets();
  const seedMarkers = (["baseline", "reindex"] as const).map((mode): PlotlyTrace => ({
    type: "scatter",
    mode: "markers",
    name: mode === "baseline" ? "seed: baseline" : "seed: REINDEX",
    x: seed.map((x) => `set ${x.set}`),
    y: seed.map((x) => (mode === "baseline" ? x.baselineTps : x.reindexTps)),
    marker: { symbol: "diamond-open", size: 12, color: MODE_COLORS[mode] },
  }));
  return {
    data: [...barsByMode(s, "ours: ", (r) => r.tps), ...seedMarkers],
    layout: {
      title: { text: "TPS per set (bars: this run; diamonds: the seed, PostgreSQL 17.6 on an OCI instance)" },
      barmode: "group",
      yaxis: { title: { text: "tps (without initial connection time)" }, rangemode: "tozero" },
    },
  };
}

/** The accounts UPDATE's per-statement latency per set and mode, with the seed's set-1 values. */
export function updateLatencyBySet(s: ReindexSummary): PlotlyFigure {
  const seed = seedSets()[0];
  const lines = [
    { v: seed?.baselineUpdateMs, c: MODE_COLORS.baseline, label: "seed baseline" },
    { v: seed?.reindexUpdateMs, c: MODE_COLORS.reindex, label: "seed REINDEX (set 1)" },
  ].filter((x) => x.v !== undefined);
  const font = (color: string) => ({ size: 10, color });
  return {
    data: barsByMode(s, "", (r) => r.updateAccountsMs ?? null),
    layout: {
      title: { text: "UPDATE pgbench_accounts: average latency per statement (pgbench -r); dotted: the seed" },
      barmode: "group",
      yaxis: { title: { text: "ms" }, rangemode: "tozero" },
      shapes: lines.map(({ v, c }) => ({
        type: "line",
        xref: "paper",
        x0: 0,
        x1: 1,
        y0: v,
        y1: v,
        line: { color: c, dash: "dot", width: 1.5 },
      })),
      annotations: lines.map(({ v, c, label }) => ({
        xref: "paper",
        x: 1,
        y: v,
        text: `${label} ${v} ms`,
        showarrow: false,
        xanchor: "right",
        yanchor: "bottom",
        font: font(c),
      })),
    },
  };
}

/** What pgbench's sessions waited on, per mode (shares of sampled session states). */
export function waitShares(s: ReindexSummary): PlotlyFigure {
  const modes = [...new Set(s.runs.map((r) => r.mode))];
  const avg = modes.map((mode) => {
    const runs = s.runs.filter((r) => r.mode === mode);
    const acc: Record<string, number> = {};
    for (const r of runs) for (const [k, v] of Object.entries(r.waitShares)) acc[k] = (acc[k] ?? 0) + v / runs.length;
    return acc;
  });
  const data = [...new Set(avg.flatMap((a) => Object.keys(a)))].map((k): PlotlyTrace => ({
    type: "bar",
    name: k,
    x: modes.map((m) => MODE_LABELS[m]),
    y: avg.map((a) => a[k] ?? 0),
    hovertemplate: "%{y:.1%}<extra>" + k + "</extra>",
  }));
  return {
    data,
    layout: {
      title: { text: "What pgbench's sessions were doing when sampled (share of samples, whole run)" },
      barmode: "stack",
      yaxis: { title: { text: "share of session samples" }, tickformat: ".0%", range: [0, 1] },
    },
  };
}

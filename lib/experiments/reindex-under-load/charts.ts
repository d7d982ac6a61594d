/**
 * Notebook 04's charts: the timeline of each set (TPS of the modes overlaid, the REINDEX and the
 * blocked intervals as shapes, lock-waiting sessions underneath), and the per-set comparison with the seed.
 */
import { groupButtons, type PlotlyFigure, type PlotlyTrace } from "../../display/plotly";
import { stepCoordinates } from "../../workloads/pgbench";
import type { ReindexMode } from "./params";
import { seedSets, seedUpdateLatency } from "./seed";
import type { ReindexSummary, RunSummary } from "./summarise";

export const MODE_COLORS: Readonly<Record<ReindexMode, string>> = {
  baseline: "#4c78a8",
  reindex: "#e45756",
  concurrently: "#54a24b",
};

export const MODE_LABELS: Readonly<Record<ReindexMode, string>> = {
  baseline: "baseline (no REINDEX)",
  reindex: "REINDEX INDEX",
  concurrently: "REINDEX INDEX CONCURRENTLY",
};

type Shape = Record<string, unknown>;

function fade(hex: string, alpha: number): string {
  const n = parseInt(hex.slice(1), 16);
  return `rgba(${(n >> 16) & 255},${(n >> 8) & 255},${n & 255},${alpha})`;
}

const rect = (x0: number, x1: number, y0: number, y1: number, fillcolor: string): Shape => ({
  type: "rect",
  xref: "x",
  yref: "paper",
  x0,
  x1,
  y0,
  y1,
  fillcolor,
  line: { width: 0 },
});

/** The REINDEX as a light band over the TPS panel, its start and end as dashed lines; blocked intervals as strips. */
function shapesFor(runs: readonly RunSummary[]): Shape[] {
  return runs.flatMap((r) => {
    const color = MODE_COLORS[r.mode];
    const { reindexStartS: start, reindexEndS: end } = r;
    const window =
      start === undefined || end === undefined
        ? []
        : [
            { ...rect(start, end, 0.3, 1, fade(color, 0.1)), layer: "below" },
            ...[start, end].map((x) => ({
              type: "line",
              xref: "x",
              yref: "paper",
              x0: x,
              x1: x,
              y0: 0.3,
              y1: 1,
              line: { color, width: 1.5, dash: "dash" },
            })),
          ];
    // Blocked intervals (sampled lock waits): one lane per mode at the top of the TPS panel.
    const lane = r.mode === "reindex" ? 0 : r.mode === "concurrently" ? 1 : 2;
    const blocked = r.intervals.map((i) =>
      rect(
        (i.startMs - r.startMs) / 1000,
        (i.endMs - r.startMs) / 1000,
        0.97 - lane * 0.035,
        1 - lane * 0.035,
        fade(color, 0.85),
      ),
    );
    return [...window, ...blocked];
  });
}

/** REINDEX start and end as full-height dashed lines. */
const startEndLines = (runs: readonly RunSummary[]): Shape[] =>
  shapesFor(runs)
    .filter((x) => x.type === "line")
    .map((x) => ({ ...x, y0: 0, y1: 1 }));

/** Each set's traces (the first set's visible), its shapes, and the buttons that switch sets. */
function perSetFigure(
  s: ReindexSummary,
  traces: (r: RunSummary) => PlotlyTrace[],
  shapes: (runs: RunSummary[]) => Shape[],
) {
  const sets = [...new Set(s.runs.map((r) => r.set))].sort((a, b) => a - b);
  const runsIn = (set: number | undefined) => s.runs.filter((r) => r.set === set);
  const data: PlotlyTrace[] = [];
  const traceSet: number[] = [];
  for (const set of sets)
    for (const t of runsIn(set).flatMap(traces)) {
      data.push({ ...t, visible: set === sets[0] });
      traceSet.push(set);
    }
  const updatemenus = groupButtons(
    sets,
    traceSet,
    (set) => `set ${set}`,
    (set) => ({ shapes: shapes(runsIn(set)) }),
  );
  return { data, shapes: shapes(runsIn(sets[0])), updatemenus };
}

/** One figure for all sets, a menu to switch: TPS per second per mode (top), sessions waiting on a lock (bottom). */
export function timeline(s: ReindexSummary): PlotlyFigure {
  const { data, shapes, updatemenus } = perSetFigure(
    s,
    (r) => [
      {
        type: "scatter",
        mode: "lines",
        name: MODE_LABELS[r.mode],
        legendgroup: r.mode,
        ...stepCoordinates(r.series, (p) => p.tps),
        line: { color: MODE_COLORS[r.mode], width: 2, shape: "hv" },
        hovertemplate: "%{y:.0f} tps at %{x:.0f} s<extra>" + r.mode + "</extra>",
      },
      {
        type: "scatter",
        mode: "lines",
        name: `${MODE_LABELS[r.mode]}: sessions waiting on a lock`,
        legendgroup: r.mode,
        showlegend: false,
        xaxis: "x",
        yaxis: "y2",
        x: r.perSample.map((p) => (p.t - r.startMs) / 1000),
        y: r.perSample.map((p) => p.lockWaiting),
        line: { color: MODE_COLORS[r.mode], width: 1.5, shape: "hv" },
        fill: "tozeroy",
        fillcolor: fade(MODE_COLORS[r.mode], 0.2),
        hovertemplate: "%{y} waiting at %{x:.1f} s<extra>" + r.mode + "</extra>",
      },
    ],
    shapesFor,
  );
  return {
    data,
    layout: {
      title: {
        text: "TPS per second; dashed: REINDEX start/end; strips at the top: pgbench blocked on a lock",
        x: 0.02,
        xanchor: "left",
      },
      margin: { t: 90, r: 20, b: 50, l: 60 },
      shapes,
      // Anchored to the lower panel, so the shared axis and its title sit at the bottom.
      xaxis: {
        title: { text: "seconds since the load started" },
        anchor: "y2",
        range: [0, Math.max(s.durationSeconds, ...s.runs.map((r) => r.reindexEndS ?? 0)) + 1],
      },
      yaxis: { title: { text: "transactions / s" }, domain: [0.3, 1], rangemode: "tozero" },
      yaxis2: { title: { text: "waiting" }, domain: [0, 0.22], rangemode: "tozero", dtick: 1 },
      legend: { orientation: "h", y: -0.15 },
      updatemenus,
    },
  };
}

/** The slowest transaction of each second (log scale) per mode and set: a blocked client shows as one very slow one. */
export function latencyTimeline(s: ReindexSummary): PlotlyFigure {
  const { data, shapes, updatemenus } = perSetFigure(
    s,
    (r) => [
      {
        type: "scatter",
        mode: "lines",
        name: MODE_LABELS[r.mode],
        ...stepCoordinates(r.series, (p) => (p.transactions ? p.latencyMaxMs : null)),
        line: { color: MODE_COLORS[r.mode], shape: "hv" },
      },
    ],
    startEndLines,
  );
  return {
    data,
    layout: {
      title: { text: "Slowest transaction completed in each second (ms, log scale)", x: 0.02, xanchor: "left" },
      margin: { t: 90, r: 20, b: 50, l: 60 },
      shapes,
      legend: { orientation: "h", y: -0.2 },
      xaxis: { title: { text: "seconds since the load started" }, range: [0, s.durationSeconds + 1] },
      yaxis: { title: { text: "ms" }, type: "log" },
      updatemenus,
    },
  };
}

/** One bar per set for each mode of the run. */
const barsByMode = (s: ReindexSummary, name: (m: ReindexMode) => string, y: (r: RunSummary) => number | null) =>
  [...new Set(s.runs.map((r) => r.mode))].map((mode): PlotlyTrace => {
    const runs = s.runs.filter((r) => r.mode === mode).sort((a, b) => a.set - b.set);
    const x = runs.map((r) => `set ${r.set}`);
    return { type: "bar", name: name(mode), x, y: runs.map(y), marker: { color: MODE_COLORS[mode] } };
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
    data: [
      ...barsByMode(
        s,
        (m) => `ours: ${MODE_LABELS[m]}`,
        (r) => r.tps,
      ),
      ...seedMarkers,
    ],
    layout: {
      title: { text: "TPS per set (bars: this run; diamonds: the seed, PostgreSQL 17.6 on an OCI instance)" },
      barmode: "group",
      yaxis: { title: { text: "tps (without initial connection time)" }, rangemode: "tozero" },
    },
  };
}

/** The accounts UPDATE's per-statement latency per set and mode, with the seed's set-1 values. */
export function updateLatencyBySet(s: ReindexSummary): PlotlyFigure {
  const seed = seedUpdateLatency();
  const lines = [
    { v: seed.baselineMs, c: MODE_COLORS.baseline, label: "seed baseline" },
    { v: seed.reindexMs, c: MODE_COLORS.reindex, label: "seed REINDEX (set 1)" },
  ].filter((x) => x.v !== undefined);
  return {
    data: barsByMode(
      s,
      (m) => MODE_LABELS[m],
      (r) => r.updateAccountsMs ?? null,
    ),
    layout: {
      title: { text: "UPDATE pgbench_accounts: average latency per statement (pgbench -r); dotted: the seed" },
      barmode: "group",
      yaxis: { title: { text: "ms" }, rangemode: "tozero" },
      shapes: lines.map((x) => ({
        type: "line",
        xref: "paper",
        x0: 0,
        x1: 1,
        y0: x.v,
        y1: x.v,
        line: { color: x.c, dash: "dot", width: 1.5 },
      })),
      annotations: lines.map((x) => ({
        xref: "paper",
        x: 1,
        y: x.v,
        text: `${x.label} ${x.v} ms`,
        showarrow: false,
        xanchor: "right",
        yanchor: "bottom",
        font: { size: 10, color: x.c },
      })),
    },
  };
}

/** What pgbench's sessions waited on, per mode (shares of sampled session states). */
export function waitShares(s: ReindexSummary): PlotlyFigure {
  const modes = [...new Set(s.runs.map((r) => r.mode))];
  const avg = new Map<ReindexMode, Record<string, number>>();
  for (const mode of modes) {
    const runs = s.runs.filter((r) => r.mode === mode);
    const acc: Record<string, number> = {};
    for (const r of runs) for (const [k, v] of Object.entries(r.waitShares)) acc[k] = (acc[k] ?? 0) + v / runs.length;
    avg.set(mode, acc);
  }
  const keys = new Set([...avg.values()].flatMap((a) => Object.keys(a)));
  const data: PlotlyTrace[] = [...keys].map((k) => ({
    type: "bar",
    name: k,
    x: modes.map((m) => MODE_LABELS[m]),
    y: modes.map((m) => avg.get(m)?.[k] ?? 0),
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

/**
 * Notebook 02's charts (plotly figures), built from the summaries; the display module draws them.
 */
import type { PlotlyFigure, PlotlyTrace } from "../../display/plotly";
import { METHOD_LABELS, METHODS, type Method } from "./workload/plan";
import type { SeedFigures } from "./seed";
import { intervalLabel } from "../../stats/intervals";
import {
  headlinePair,
  ioWaitMs,
  isRegimePair,
  sizeSweep,
  type CreateIndexSummary,
  type MethodSummary,
} from "./summarise";

const COLORS: Readonly<Record<Method, string>> = { load_then_index: "#4c78a8", index_then_load: "#e45756" };
const PHASE_COLORS = { load: "#9ecae9", index: "#4c78a8", checkpoint: "#bab0ac" } as const;

export const rowsLabel = (rows: number) =>
  rows >= 1_000_000 ? `${rows / 1_000_000}M` : rows >= 1000 ? `${rows / 1000}k` : String(rows);

/** The headline: each method's phases stacked, the closing CHECKPOINT drawn apart (not in the seed's time). */
export function headlineBars(s: CreateIndexSummary): PlotlyFigure {
  const pair = headlinePair(s);
  const methods = [pair?.a, pair?.b].filter((m): m is MethodSummary => m !== undefined);
  const x = methods.map((m) => METHOD_LABELS[m.condition.method]);
  const seconds = (m: MethodSummary, phase: "load" | "index" | "checkpoint") => (m.phaseMs[phase] ?? 0) / 1000;
  const data: PlotlyTrace[] = [
    {
      type: "bar",
      name: "INSERT … SELECT",
      x,
      y: methods.map((m) => seconds(m, "load")),
      marker: { color: PHASE_COLORS.load },
    },
    {
      type: "bar",
      name: "CREATE INDEX",
      x,
      y: methods.map((m) => seconds(m, "index")),
      marker: { color: PHASE_COLORS.index },
      hovertemplate: "%{y:.3f} s (B: on the empty table, before the load)<extra></extra>",
    },
    {
      type: "bar",
      name: "closing CHECKPOINT (write-back left behind; not in the seed's time)",
      x,
      y: methods.map((m) => seconds(m, "checkpoint")),
      marker: { color: PHASE_COLORS.checkpoint, pattern: { shape: "/" } },
    },
    {
      type: "scatter",
      mode: "markers",
      name: "each trial (seed's measure)",
      x: methods.flatMap((m) => m.seconds.map(() => METHOD_LABELS[m.condition.method])),
      y: methods.flatMap((m) => m.seconds),
      marker: { color: "#222", size: 7, symbol: "line-ew-open" },
    },
  ];
  return {
    data,
    layout: {
      title: { text: `Headline: ${rowsLabel(pair?.rows ?? s.headline.rows)} rows, median phases` },
      barmode: "stack",
      yaxis: { title: { text: "seconds" }, rangemode: "tozero" },
    },
  };
}

/** Per-row cost vs table size: flat lines mean linear growth, rising lines worse than linear. */
export function sizeSweepPerRow(s: CreateIndexSummary): PlotlyFigure {
  const sweep = sizeSweep(s);
  const data: PlotlyTrace[] = METHODS.flatMap((method) => {
    const points = sweep
      .map((p) => (method === "load_then_index" ? p.a : p.b))
      .filter((m): m is MethodSummary => m !== undefined);
    const cpu = points.filter((m): m is MethodSummary & { backendCpuS: number } => m.backendCpuS !== undefined);
    return [
      {
        type: "scatter",
        mode: "lines+markers",
        name: METHOD_LABELS[method],
        x: points.map((m) => m.condition.rows),
        y: points.map((m) => (m.medianSeconds / m.condition.rows) * 1e6),
        line: { color: COLORS[method] },
        error_y: {
          type: "data",
          symmetric: false,
          array: points.map((m) => ((m.maxSeconds - m.medianSeconds) / m.condition.rows) * 1e6),
          arrayminus: points.map((m) => ((m.medianSeconds - m.minSeconds) / m.condition.rows) * 1e6),
        },
      },
      {
        type: "scatter",
        mode: "lines+markers",
        name: `${method === "load_then_index" ? "A" : "B"}: CPU (backend + parallel workers)`,
        x: cpu.map((m) => m.condition.rows),
        y: cpu.map((m) => (m.backendCpuS / m.condition.rows) * 1e6),
        line: { color: COLORS[method], dash: "dot" },
        marker: { symbol: "circle-open" },
      },
    ];
  });
  return {
    data,
    layout: {
      title: { text: "Time per row vs rows (flat = linear; whiskers = min–max; dotted = CPU per row)" },
      xaxis: { title: { text: "rows" }, type: "log" },
      yaxis: { title: { text: "µs per row (seed's measure)" }, rangemode: "tozero" },
    },
  };
}

/**
 * B/A vs rows: the median of the paired per-repeat ratios with its exact interval (or range) as
 * whiskers. The seed's 100M-row figure is drawn at its own size, labelled with it: a point at 100M
 * compares with ours only where our sweep reaches 100M.
 */
export function sizeSweepRatio(s: CreateIndexSummary, seed: SeedFigures): PlotlyFigure {
  const sweep = sizeSweep(s).filter((p) => p.timeRatio !== undefined);
  const ratio = (p: (typeof sweep)[number]) => p.timeRatio?.estimate ?? NaN;
  return {
    data: [
      {
        type: "scatter",
        mode: "lines+markers",
        name: "this run: B / A (median of paired ratios)",
        x: sweep.map((p) => p.rows),
        y: sweep.map(ratio),
        text: sweep.map((p) => (p.timeRatio ? intervalLabel(p.timeRatio) : "")),
        line: { color: "#54a24b" },
        error_y: {
          type: "data",
          symmetric: false,
          array: sweep.map((p) => (p.timeRatio?.high ?? NaN) - ratio(p)),
          arrayminus: sweep.map((p) => ratio(p) - (p.timeRatio?.low ?? NaN)),
        },
      },
      {
        type: "scatter",
        mode: "markers",
        name: `seed (${rowsLabel(seed.rows)} rows, mean of 2)`,
        x: [seed.rows],
        y: [seed.ratio],
        marker: { symbol: "diamond-open", size: 13, color: "#222" },
      },
      {
        type: "scatter",
        mode: "lines",
        name: "no difference",
        x: [Math.min(...sweep.map((p) => p.rows), seed.rows), seed.rows],
        y: [1, 1],
        line: { color: "#999", dash: "dot" },
      },
    ],
    layout: {
      title: {
        text: "How much slower is loading into an indexed table? (B / A per repeat; whiskers: interval or range over repeats)",
      },
      xaxis: { title: { text: "rows" }, type: "log" },
      yaxis: { title: { text: "B / A, paired per repeat" }, rangemode: "tozero" },
    },
  };
}

/** Random vs ascending codes: phases of each method, at the headline size. */
export function keyOrderBars(s: CreateIndexSummary): PlotlyFigure {
  const pairs = s.pairs.filter(
    (p) =>
      !isRegimePair(p) &&
      p.rows === s.headline.rows &&
      p.maintenanceWorkMemMB === s.headline.maintenanceWorkMemMB &&
      p.parallelWorkers === s.headline.parallelWorkers,
  );
  const methods = pairs.flatMap((p) => [p.a, p.b]).filter((m): m is MethodSummary => m !== undefined);
  const x = methods.map(
    (m) => `${m.condition.method === "load_then_index" ? "A" : "B"} · ${m.condition.keyOrder} codes`,
  );
  const phase = (name: "load" | "index") => ({
    type: "bar",
    name: name === "load" ? "INSERT … SELECT" : "CREATE INDEX",
    x,
    y: methods.map((m) => (m.phaseMs[name] ?? 0) / 1000),
    marker: { color: PHASE_COLORS[name] },
  });
  return {
    data: [
      phase("load"),
      phase("index"),
      {
        type: "scatter",
        mode: "markers+text",
        name: "leaf density (right axis)",
        x,
        y: methods.map((m) => m.index?.avgLeafDensity ?? null),
        text: methods.map((m) => (m.index ? `${m.index.avgLeafDensity.toFixed(0)} %` : "")),
        textposition: "top center",
        yaxis: "y2",
        marker: { color: "#222", symbol: "diamond", size: 9 },
      },
    ],
    layout: {
      title: {
        text: `Random vs ascending codes (${rowsLabel(s.headline.rows)} rows): right-edge appends vs random leaf splits`,
      },
      barmode: "stack",
      yaxis: { title: { text: "seconds" }, rangemode: "tozero" },
      yaxis2: {
        title: { text: "avg leaf density %" },
        overlaying: "y",
        side: "right",
        range: [0, 100],
        tickmode: "linear",
        dtick: 20,
        showgrid: false,
      },
    },
  };
}

/** CREATE INDEX time vs maintenance_work_mem, one line per worker setting; temp files written as bars. */
export function buildSweep(s: CreateIndexSummary): PlotlyFigure {
  const workers = [...new Set(s.builds.map((b) => b.parallelWorkers))].sort((x, y) => x - y);
  const palette = ["#4c78a8", "#f58518", "#54a24b", "#b279a2", "#9d755d"];
  const data: PlotlyTrace[] = [];
  workers.forEach((w, i) => {
    const points = s.builds.filter((b) => b.parallelWorkers === w);
    const x = points.map((b) => `${b.maintenanceWorkMemMB} MB`);
    data.push({
      type: "bar",
      name: `temp MB, max workers ${w}`,
      x,
      y: points.map((b) => b.tempBytes / 2 ** 20),
      yaxis: "y2",
      opacity: 0.35,
      marker: { color: palette[i % palette.length] },
      offsetgroup: String(w),
    });
    data.push({
      type: "scatter",
      mode: "lines+markers",
      name: `seconds, max workers ${w}`,
      x,
      y: points.map((b) => b.medianSeconds),
      text: points.map(
        (b) =>
          `${b.spilled ? "external sort" : "in memory"}, ${b.participants ? `${b.participants} participants` : "serial"}`,
      ),
      hovertemplate: "%{y:.2f} s · %{text}<extra></extra>",
      line: { color: palette[i % palette.length] },
      error_y: {
        type: "data",
        symmetric: false,
        array: points.map((b) => b.maxSeconds - b.medianSeconds),
        arrayminus: points.map((b) => b.medianSeconds - b.minSeconds),
      },
    });
  });
  const rows = s.builds[0]?.rows ?? s.headline.rows;
  return {
    data,
    layout: {
      title: { text: `CREATE INDEX on ${rowsLabel(rows)} loaded rows: sort memory and parallel workers` },
      xaxis: { title: { text: "maintenance_work_mem" }, type: "category" },
      yaxis: { title: { text: "seconds" }, rangemode: "tozero" },
      yaxis2: {
        title: { text: "temporary files written, MB" },
        overlaying: "y",
        side: "right",
        rangemode: "tozero",
        tickmode: "auto",
        showgrid: false,
      },
      barmode: "group",
    },
  };
}

/** Where the time went: elapsed vs backend CPU vs timed I/O wait, per method (headline). */
export function timeBudget(s: CreateIndexSummary): PlotlyFigure {
  const pair = headlinePair(s);
  const methods = [pair?.a, pair?.b].filter((m): m is MethodSummary => m !== undefined);
  const x = methods.map((m) => METHOD_LABELS[m.condition.method]);
  return {
    data: [
      {
        type: "bar",
        name: "elapsed (seed's measure)",
        x,
        y: methods.map((m) => m.medianSeconds),
        marker: { color: "#bab0ac" },
      },
      {
        type: "bar",
        name: "CPU, user + system: backend (log_statement_stats) + parallel workers (trace_sort)",
        x,
        y: methods.map((m) => m.backendCpuS ?? null),
        marker: { color: "#f58518" },
      },
      {
        type: "bar",
        name: "timed I/O wait: blk read+write, WAL write+sync",
        x,
        y: methods.map((m) => ioWaitMs(m.totals) / 1000),
        marker: { color: "#4c78a8" },
      },
    ],
    layout: {
      title: { text: "Where the time went (headline, medians): CPU, not disk" },
      barmode: "group",
      yaxis: { title: { text: "seconds" }, rangemode: "tozero" },
    },
  };
}

/** WAL records per row by record type, per method (the decoding trials). */
export function walComposition(s: CreateIndexSummary): PlotlyFigure {
  const types = new Map<string, number>();
  for (const w of s.walAnatomy) for (const t of w.types) types.set(t.type, (types.get(t.type) ?? 0) + t.count);
  // The small fry (a handful of records) would only crowd the legend.
  const shown = [...types.entries()]
    .sort((a, b) => b[1] - a[1])
    .slice(0, 7)
    .map(([t]) => t);
  const x = s.walAnatomy.map((w) => METHOD_LABELS[w.method]);
  const perRow = (w: (typeof s.walAnatomy)[number], type: string) =>
    w.types.filter((t) => t.type === type).reduce((a, t) => a + t.count, 0) / w.rows;
  const data: PlotlyTrace[] = shown.map((type) => ({
    type: "bar",
    name: type,
    x,
    y: s.walAnatomy.map((w) => perRow(w, type)),
  }));
  data.push({
    type: "bar",
    name: "other types",
    x,
    y: s.walAnatomy.map(
      (w) => w.types.filter((t) => !shown.includes(t.type)).reduce((a, t) => a + t.count, 0) / w.rows,
    ),
    marker: { color: "#ccc" },
  });
  return {
    data,
    layout: {
      title: { text: `WAL records per row by type (pg_walinspect, ${rowsLabel(s.walAnatomy[0]?.rows ?? 0)} rows)` },
      barmode: "stack",
      yaxis: { title: { text: "records per row" }, rangemode: "tozero" },
    },
  };
}

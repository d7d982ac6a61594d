/** What notebook 04 shows, one call per section: tables, and each set's timeline (TPS, the REINDEX, blocked spans, lock
 * waits) with seed 003's sets beside ours. */
import {
  axis,
  barTrace,
  COLOR,
  groupedFigure,
  plot,
  scatterTrace,
  titledFigure,
  type PlotlyFigure,
  type PlotlyTrace,
} from "../../display/plotly";
import { rounded, showTable, sortedBy, type Row } from "../../display/table";
import { publishedFigures } from "../../results/reference";
import { intervalLabel, OUTLIER_RULE, type Interval } from "../../stats/intervals";
import { percent } from "../../stats/format";
import { stepCoordinates } from "../../workloads/pgbench";
import { REINDEX_MODES, type ReindexMode, type ReindexUnderLoadParams } from "./params";
import { modeSummary, runsOf, type ReindexSummary, type RunSummary } from "./summarise";
import type { RunLengthCalibration, TemplateInfo } from "./workload/run-trials";

type Shape = Record<string, unknown>;
type Runs = readonly RunSummary[];

const MODES: Readonly<Record<ReindexMode, { readonly color: string; readonly label: string }>> = {
  baseline: { color: COLOR.blue, label: "baseline (no REINDEX)" },
  reindex: { color: COLOR.red, label: "REINDEX INDEX" },
  concurrently: { color: COLOR.green, label: "REINDEX INDEX CONCURRENTLY" },
};

const [r1, r3] = [1, 3].map((d) => (x: number | undefined) => rounded(x, d));
const intervalCell = (i: Interval, digits: number) =>
  `${i.estimate.toFixed(digits)} [${i.low.toFixed(digits)}–${i.high.toFixed(digits)}] ${intervalLabel(i)}`;
export const change = (x: number | undefined, digits = 1) =>
  x === undefined ? "" : `${x >= 1 ? "+" : "−"}${Math.abs((x - 1) * 100).toFixed(digits)} %`;
const pair = (a: number | undefined, b: number | undefined, digits: number, sep: string) =>
  a === undefined || b === undefined ? "" : `${a.toFixed(digits)}${sep}${b.toFixed(digits)}`;
const top = (shares: Readonly<Record<string, number>>, n: number) =>
  Object.entries(shares)
    .slice(0, n)
    .map(([k, v]) => `${k} ${percent(v)}`)
    .join(", ");

type Setup = { params: ReindexUnderLoadParams; template: TemplateInfo; calibration?: RunLengthCalibration };
const inOrder = (s: ReindexSummary) => sortedBy(s.runs, (r) => r.set, [(r) => r.mode, REINDEX_MODES]);

/** The template every run is copied from, and the calibration that set the run length (if one did). */
export function showSetup({ params: p, template: t, calibration: c }: Setup): void {
  const template = {
    "pgbench -i": `-s ${p.scale} -I ${p.initSteps}`,
    "accounts rows": t.accountsRows,
    "database GiB": rounded(t.databaseBytes / 2 ** 30),
    "accounts pkey MiB": r1((t.indexBytes.pgbench_accounts_pkey ?? 0) / 2 ** 20),
    "init s": r1(t.init.seconds),
    ...Object.fromEntries(Object.entries(t.init.steps).map(([k, v]) => [`${k} s`, v])),
  };
  showTable([template], { caption: "The template every run is copied from" });
  if (!c) return;
  const calibration = {
    "three keys rebuilt, s": r3(c.seconds),
    "accounts key, s": r3(c.accountsSeconds),
    "stall share asked": c.stallShare,
    "run length, s": c.durationSeconds,
    "REINDEX starts at, s": c.reindexStartSeconds,
  };
  const caption = "Calibration: a plain REINDEX on a fresh clone, no load; each run lasts rebuild ÷ stall share";
  showTable([calibration], { caption });
}

/** The per-run table: TPS, latency, the accounts UPDATE, REINDEX duration, blocked time. */
export function runRows(s: ReindexSummary): Row[] {
  return inOrder(s).map((r) => ({
    set: r.set,
    "order in set": r.position === undefined ? "" : r.position + 1,
    mode: MODES[r.mode].label,
    tps: r1(r.tps),
    "vs baseline": r.mode === "baseline" ? "" : change(r.tpsVsBaseline),
    "latency avg ms": r3(r.latencyAvgMs),
    "p50 ms": r3(r.p50Ms),
    "p95 ms": r3(r.p95Ms),
    "p99 ms": r3(r.p99Ms),
    "max ms": r1(r.maxMs),
    "UPDATE accounts ms": r3(r.updateAccountsMs),
    "UPDATE accounts server ms": r3(r.updateAccountsServerMs),
    "REINDEX s": r1(r.reindexSeconds),
    "accounts pkey s": r1(r.accountsReindexSeconds),
    "REINDEX at s": pair(r.reindexStartS, r.reindexEndS, 1, "–"),
    "blocked s": r1(r.blockedSeconds),
    "all clients blocked s": r1(r.allBlockedSeconds),
    "tps in window / outside": pair(r.tpsDuringReindex, r.tpsOutsideReindex, 0, " / "),
    "tx lost in window": percent(r.lostShare, 1, ""),
    "reads in window": r.readsInWindow,
    "longest read wait in window s": r3(r.longestReadWaitS),
    "read ms median outside / max in window": pair(r.readMedianOutsideMs, r.readMaxInWindowMs, 3, " / "),
    "WAL bytes / tx": r.walBytesPerTransaction === undefined ? undefined : Math.round(r.walBytesPerTransaction),
    flags: r.flags.join(", "),
  }));
}

export function showRunTable(s: ReindexSummary): void {
  showTable(runRows(s), {
    caption: `Every run (p50/p95/p99/max from pgbench's per-transaction log; UPDATE accounts = pgbench -r; blocked = sampled time with ≥1 pgbench session waiting on a lock; reads = the read probe's primary-key lookups beside the load, its longest wait = the longest time in the REINDEX window with no read completing). Flags: outlier = ${OUTLIER_RULE} (TPS, within the mode); a checkpoint or an autovacuum run between the counters read around the run. Each claim says whether its verdict changes without the flagged sets`,
  });
  const modes: Row[] = sortedBy(s.modes, [(m) => m.mode, REINDEX_MODES]).map((m) => ({
    mode: MODES[m.mode].label,
    sets: m.n,
    "median tps": r1(m.tps.median),
    "tps range": `${m.tps.min.toFixed(0)}–${m.tps.max.toFixed(0)}`,
    "tps / baseline (per set)": m.tpsRatio ? intervalCell(m.tpsRatio, 3) : "",
    "UPDATE accounts ms": r3(m.updateAccountsMs?.median),
    "UPDATE / baseline (per set)": m.updateRatio ? intervalCell(m.updateRatio, 2) : "",
    "REINDEX s": r1(m.reindexSeconds?.median),
    "blocked s": r1(m.blockedSeconds.median),
    "tx lost in window": percent(m.lostShare?.median, 1, ""),
  }));
  showTable(modes, {
    caption:
      "Per mode: medians over sets. Ratios to the baseline are formed per set (the runs of a set ran back to back), then their median over sets with the exact order-statistic interval, or the range when there are too few sets for one (the label says which)",
  });
}

export function showCharts(s: ReindexSummary): void {
  plot(timeline(s), 560);
  for (const figure of [latencyTimeline, tpsBySet, updateLatencyBySet, waitShares]) plot(figure(s));
}

export function showSeedComparison(s: ReindexSummary): void {
  const seed = seedSets();
  const upd = { baselineMs: seed[0]?.baselineUpdateMs, reindexMs: seed[0]?.reindexUpdateMs };
  const rows: Row[] = seed.map((x) => {
    const ours = (mode: string) => s.runs.find((r) => r.set === x.set && r.mode === mode);
    return {
      set: x.set,
      "seed baseline tps": r1(x.baselineTps),
      "seed REINDEX tps": r1(x.reindexTps),
      "seed change": change(x.reindexTps / x.baselineTps),
      "our baseline tps": r1(ours("baseline")?.tps),
      "our REINDEX tps": r1(ours("reindex")?.tps),
      "our change": change(ours("reindex")?.tpsVsBaseline),
      "our CONCURRENTLY tps": r1(ours("concurrently")?.tps),
      "our CONCURRENTLY change": change(ours("concurrently")?.tpsVsBaseline),
    };
  });
  showTable(rows, {
    caption:
      "The seed's three sets beside ours (absolute TPS depends on the machine; the change within a set is what compares)",
  });
  const [base, re] = (["baseline", "reindex"] as const).map((m) => modeSummary(s, m)?.updateAccountsMs?.median);
  const update = {
    "": "UPDATE pgbench_accounts, ms",
    "seed baseline": upd.baselineMs,
    "seed REINDEX (set 1; sets 1–3: 0.54–0.69)": upd.reindexMs,
    "seed ×": upd.baselineMs && upd.reindexMs ? r1(upd.reindexMs / upd.baselineMs) : undefined,
    "our baseline": r3(base),
    "our REINDEX": r3(re),
    "our ×": base && re ? r1(re / base) : undefined,
  };
  showTable([update], { caption: "Per-statement latency of the accounts UPDATE (pgbench -r)" });
}

/** The waits behind the numbers: pgbench's wait events, the locks, the REINDEX session's own waits. */
export function showWaits(s: ReindexSummary): void {
  const rows: Row[] = inOrder(s)
    .filter((r) => r.mode !== "baseline" || r.set === s.runs[0]?.set)
    .map((r) => ({
      set: r.set,
      mode: MODES[r.mode].label,
      "pgbench waits (top 4)": top(r.waitShares, 4),
      "lock waited for": r.topLock ?? "",
      "blocked by the REINDEX s": r1(r.blockedByReindexSeconds),
      "REINDEX session waits": top(r.reindexWaitShares, 3),
      "index build phases": r.phases
        .map((p) => `${p.phase} (${((p.endMs - p.startMs) / 1000).toFixed(1)} s)`)
        .join(" → "),
      "accounts HOT share": percent(r.accountsHotShare, 0, ""),
    }));
  showTable(rows, {
    caption: "Sampled waits (pg_stat_activity + pg_locks + pg_stat_progress_create_index, every few hundred ms)",
  });
}

/** Every statement's `-r` latency per mode (median over sets, the lower one for an even count), ms. */
export function showStatements(s: ReindexSummary): void {
  const modes = [...new Set(s.runs.map((r) => r.mode))];
  const commands = new Set(
    s.runs.flatMap((r) => r.statements.map((x) => x.command)).filter((c) => !c.startsWith("\\")),
  );
  const latency = (mode: ReindexMode, command: string) => {
    const v = runsOf(s, mode).flatMap((r) => r.statements.find((x) => x.command === command)?.latencyMs ?? []);
    return v.length ? r3(v.sort((a, b) => a - b)[Math.floor((v.length - 1) / 2)]) : undefined;
  };
  const rows: Row[] = [...commands].map((command) => ({
    statement: command.length > 60 ? `${command.slice(0, 60)}…` : command,
    ...Object.fromEntries(modes.map((mode) => [`${MODES[mode].label} ms`, latency(mode, command)])),
  }));
  showTable(rows, {
    caption: "pgbench -r: average latency of each statement, ms (median over sets; lower median for an even count)",
  });
}

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
function onPlot(type: string, [x0, x1]: number[], [y0, y1]: number[], style: Shape): Shape {
  return { type, xref: "x", yref: "paper", x0, x1, y0, y1, ...style };
}
const rect = (x: number[], y: number[], fillcolor: string) => onPlot("rect", x, y, { fillcolor, line: { width: 0 } });

/** The REINDEX as a light band over the TPS panel, its start and end as dashed lines; blocked intervals as strips. */
function shapesFor(runs: Runs): Shape[] {
  return runs.flatMap((r) => {
    const color = MODES[r.mode].color;
    const { reindexStartS: start, reindexEndS: end } = r;
    const window =
      start === undefined || end === undefined
        ? []
        : [
            { ...rect([start, end], [0.3, 1], fade(color, 0.1)), layer: "below" },
            ...[start, end].map((x) => onPlot("line", [x, x], [0.3, 1], { line: { color, width: 1.5, dash: "dash" } })),
          ];
    // One lane per mode at the top of the TPS panel.
    const lane = ["reindex", "concurrently", "baseline"].indexOf(r.mode) * 0.035;
    const seconds = (ms: number) => (ms - r.startMs) / 1000;
    const blocked = r.intervals.map((i) =>
      rect([seconds(i.startMs), seconds(i.endMs)], [0.97 - lane, 1 - lane], fade(color, 0.85)),
    );
    return [...window, ...blocked];
  });
}

/** One figure for all sets: each set's traces and shapes, the first set's shown, buttons that switch sets. */
function perSetFigure(
  s: ReindexSummary,
  title: string,
  traces: (r: RunSummary) => PlotlyTrace[],
  shapes: typeof shapesFor,
  layout: Shape,
): PlotlyFigure {
  const sets = [...new Set(s.runs.map((r) => r.set))].sort((a, b) => a - b);
  const groups = sets.map((set) => {
    const runs = s.runs.filter((r) => r.set === set);
    return { group: set, traces: runs.flatMap(traces), layout: { shapes: shapes(runs) } };
  });
  return groupedFigure(groups, title, (set) => `set ${set}`, layout);
}

const modeLine = (r: RunSummary, width: number | undefined, more: Record<string, unknown>): PlotlyTrace => ({
  type: "scatter",
  mode: "lines",
  name: MODES[r.mode].label,
  ...more,
  line: { color: MODES[r.mode].color, ...(width ? { width } : {}), shape: "hv" },
});

/** TPS per second per mode (top), sessions waiting on a lock (bottom). */
function timeline(s: ReindexSummary): PlotlyFigure {
  const title = "TPS per second; dashed: REINDEX start/end; strips at the top: pgbench blocked on a lock";
  const end = Math.max(s.durationSeconds, ...s.runs.map((r) => r.reindexEndS ?? 0)) + 1;
  return perSetFigure(
    s,
    title,
    (r) => [
      modeLine(r, 2, {
        legendgroup: r.mode,
        ...stepCoordinates(r.series, (p) => p.tps),
        hovertemplate: "%{y:.0f} tps at %{x:.0f} s<extra>" + r.mode + "</extra>",
      }),
      modeLine(r, 1.5, {
        name: `${MODES[r.mode].label}: sessions waiting on a lock`,
        legendgroup: r.mode,
        showlegend: false,
        xaxis: "x",
        yaxis: "y2",
        x: r.perSample.map((p) => (p.t - r.startMs) / 1000),
        y: r.perSample.map((p) => p.lockWaiting),
        fill: "tozeroy",
        fillcolor: fade(MODES[r.mode].color, 0.2),
        hovertemplate: "%{y} waiting at %{x:.1f} s<extra>" + r.mode + "</extra>",
      }),
    ],
    shapesFor,
    {
      // Anchored to the lower panel, so the shared axis and its title sit at the bottom.
      xaxis: axis("seconds since the load started", { anchor: "y2", range: [0, end] }),
      yaxis: axis("transactions / s", { domain: [0.3, 1], rangemode: "tozero" }),
      yaxis2: axis("waiting", { domain: [0, 0.22], rangemode: "tozero", dtick: 1 }),
      legend: { orientation: "h", y: -0.15 },
    },
  );
}

/** The slowest transaction of each second (log scale) per mode and set: a blocked client shows as one very slow one. */
function latencyTimeline(s: ReindexSummary): PlotlyFigure {
  const title = "Slowest transaction completed in each second (ms, log scale)";
  const slowest = (r: RunSummary) => stepCoordinates(r.series, (p) => (p.transactions ? p.latencyMaxMs : null));
  // REINDEX start and end as full-height dashed lines.
  const lines = (runs: Runs) => shapesFor(runs).flatMap((x) => (x.type === "line" ? [{ ...x, y0: 0, y1: 1 }] : []));
  return perSetFigure(s, title, (r) => [modeLine(r, undefined, slowest(r))], lines, {
    legend: { orientation: "h", y: -0.2 },
    xaxis: axis("seconds since the load started", { range: [0, s.durationSeconds + 1] }),
    yaxis: axis("ms", { type: "log" }),
  });
}

/** One bar per set for each mode of the run. */
const barsByMode = (s: ReindexSummary, prefix: string, y: (r: RunSummary) => number | null) =>
  [...new Set(s.runs.map((r) => r.mode))].map((mode) => {
    const runs = runsOf(s, mode);
    const x = runs.map((r) => `set ${r.set}`);
    return barTrace(prefix + MODES[mode].label, x, runs.map(y), { marker: { color: MODES[mode].color } });
  });

/** TPS of each set and mode beside the seed's three sets. */
function tpsBySet(s: ReindexSummary): PlotlyFigure {
  const seed = seedSets();
  const sets = seed.map((x) => `set ${x.set}`);
  const seedMarkers = (["baseline", "reindex"] as const).map((mode) => {
    const name = mode === "baseline" ? "seed: baseline" : "seed: REINDEX";
    const y = seed.map((x) => (mode === "baseline" ? x.baselineTps : x.reindexTps));
    const marker = { symbol: "diamond-open", size: 12, color: MODES[mode].color };
    return scatterTrace("markers", name, sets, y, { marker });
  });
  const title = "TPS per set (bars: this run; diamonds: the seed, PostgreSQL 17.6 on an OCI instance)";
  const layout = { barmode: "group", yaxis: axis("tps (without initial connection time)") };
  return titledFigure(title, layout, [...barsByMode(s, "ours: ", (r) => r.tps), ...seedMarkers]);
}

/** The accounts UPDATE's per-statement latency per set and mode, with the seed's set-1 values. */
function updateLatencyBySet(s: ReindexSummary): PlotlyFigure {
  const seed = seedSets()[0];
  const lines = [
    { v: seed?.baselineUpdateMs, c: MODES.baseline.color, label: "seed baseline" },
    { v: seed?.reindexUpdateMs, c: MODES.reindex.color, label: "seed REINDEX (set 1)" },
  ].filter((x) => x.v !== undefined);
  const title = "UPDATE pgbench_accounts: average latency per statement (pgbench -r); dotted: the seed";
  const data = barsByMode(s, "", (r) => r.updateAccountsMs ?? null);
  return titledFigure(
    title,
    {
      barmode: "group",
      yaxis: axis("ms"),
      shapes: lines.map(({ v, c, label }) => ({
        type: "line",
        xref: "paper",
        x0: 0,
        x1: 1,
        y0: v,
        y1: v,
        line: { color: c, dash: "dot", width: 1.5 },
        label: { text: `${label} ${v} ms`, textposition: "end", yanchor: "bottom", font: { size: 10, color: c } },
      })),
    },
    data,
  );
}

/** What pgbench's sessions waited on, per mode (shares of sampled session states). */
function waitShares(s: ReindexSummary): PlotlyFigure {
  const modes = [...new Set(s.runs.map((r) => r.mode))];
  const avg = modes.map((mode) => {
    const runs = runsOf(s, mode);
    const acc: Record<string, number> = {};
    for (const r of runs) for (const [k, v] of Object.entries(r.waitShares)) acc[k] = (acc[k] ?? 0) + v / runs.length;
    return acc;
  });
  const x = modes.map((m) => MODES[m].label);
  const data = [...new Set(avg.flatMap((a) => Object.keys(a)))].map((k) => {
    const y = avg.map((a) => a[k] ?? 0);
    return barTrace(k, x, y, { hovertemplate: "%{y:.1%}<extra>" + k + "</extra>" });
  });
  const title = "What pgbench's sessions were doing when sampled (share of samples, whole run)";
  const yaxis = axis("share of session samples", { tickformat: ".0%", range: [0, 1] });
  return titledFigure(title, { barmode: "stack", yaxis }, data);
}

/** Notebook 06's charts, built from the summary. */
import { axis, COLOR, titledFigure, type PlotlyFigure, type PlotlyTrace } from "../../display/plotly";
import { stepCoordinates } from "../../workloads/pgbench";
import type { Interval } from "../../stats/intervals";
import { judgeIndex } from "./claims";
import type { YourIndexesSummary } from "./summarise";

const VERDICT_COLORS: Record<string, string> = {
  costs: COLOR.red,
  "within margin": COLOR.green,
  "speeds up": COLOR.blue,
  inconclusive: "#bab0ac",
};

const bars = (rows: readonly { name: string; i: Interval }[], scale = 1): PlotlyTrace => ({
  type: "bar",
  orientation: "h",
  y: rows.map((r) => r.name),
  x: rows.map((r) => r.i.estimate * scale),
  error_x: {
    type: "data",
    symmetric: false,
    array: rows.map((r) => (r.i.high - r.i.estimate) * scale),
    arrayminus: rows.map((r) => (r.i.estimate - r.i.low) * scale),
  },
});
/** A chart of transactions per second against `x`. */
const tpsFigure = (title: string, x: string, data: readonly PlotlyTrace[]) =>
  titledFigure(title, { xaxis: axis(x, {}), yaxis: axis("transactions / s") }, data);

/** The judged indexes ranked by cost: median and interval of the paired per-round cost, the margin as a band. */
export function costRanking(s: YourIndexesSummary): PlotlyFigure {
  const ranked = s.indexes
    .flatMap((ix) => (ix.cost ? [{ name: ix.name, i: ix.cost, judged: judgeIndex(s, ix) }] : []))
    .sort((a, b) => a.i.estimate - b.i.estimate);
  const m = s.equivalenceMargin * 100;
  const band = {
    type: "rect",
    xref: "x",
    yref: "paper",
    x0: -m,
    x1: m,
    y0: 0,
    y1: 1,
    fillcolor: COLOR.green,
    opacity: 0.12,
    line: { width: 0 },
  };
  return titledFigure(
    "Write-throughput cost of each index (1 − TPS with ÷ TPS without, paired per round)",
    {
      xaxis: axis("cost, % of write throughput", { zeroline: true }),
      yaxis: { automargin: true },
      shapes: [band],
      annotations: [
        { x: m, y: 1, xref: "x", yref: "paper", text: `±${m} % equivalence`, showarrow: false, yanchor: "bottom" },
      ],
      showlegend: false,
    },
    [
      {
        ...bars(ranked, 100),
        marker: { color: ranked.map((r) => VERDICT_COLORS[r.judged.judgement]) },
        customdata: ranked.map((r) => r.judged.text),
        hovertemplate: "%{y}: %{customdata}<extra></extra>",
        name: "cost (median of paired rounds; bars: its interval)",
      },
    ],
  );
}

/** Each read script's latency without each index ÷ with it (paired per round), on a log axis. */
export function readSlowdowns(s: YourIndexesSummary): PlotlyFigure {
  const data: PlotlyTrace[] = s.readScripts.map((script) => {
    const rows = s.indexes.flatMap((ix) => {
      const r = ix.reads.find((x) => x.script === script);
      return r?.slowdown ? [{ name: ix.name, i: r.slowdown, line: ix.decision.text }] : [];
    });
    return {
      ...bars(rows),
      name: script,
      customdata: rows.map((r) => r.line),
      hovertemplate: `${script} without %{y}: %{x:.2f}× · %{customdata}<extra></extra>`,
    };
  });
  return titledFigure(
    "Each read script's latency without the index ÷ with it (paired per round)",
    {
      xaxis: axis("× slower without it (log)", { type: "log" }),
      yaxis: { automargin: true },
      barmode: "group",
      shapes: [{ type: "line", xref: "x", yref: "paper", x0: 1, x1: 1, y0: 0, y1: 1, line: { width: 1 } }],
    },
    data,
  );
}

export function tpsByRound(s: YourIndexesSummary): PlotlyFigure {
  const order = new Map(s.runs.map((r, i) => [r.key, i + 1]));
  const data: PlotlyTrace[] = s.variants.map((v) => {
    const runs = s.runs.filter((r) => r.variant === v.id);
    return {
      type: "scatter",
      mode: v.id === "baseline" ? "lines+markers" : "markers",
      name: v.id,
      x: runs.map((r) => order.get(r.key) ?? 0),
      y: runs.map((r) => r.tps),
      text: runs.map((r) => `round ${r.repeat}`),
      marker: { symbol: runs.map((r) => (r.disturbed || r.outlier ? "x" : "circle")), size: 8 },
    };
  });
  return tpsFigure("TPS of every run in the order run (crosses: flagged runs)", "run (in order)", data);
}

export function perSecond(s: YourIndexesSummary): PlotlyFigure {
  const data: PlotlyTrace[] = s.runs
    .filter((r) => r.repeat === 1)
    .map((r) => ({
      type: "scatter",
      mode: "lines",
      line: { shape: "hv" },
      name: r.variant,
      ...stepCoordinates(r.series, (p) => p.tps),
    }));
  return tpsFigure("TPS second by second, round 1 (pgbench's transaction log)", "second of the run", data);
}

/** Notebook 06's charts, built from the summary. */
import type { PlotlyFigure, PlotlyTrace } from "../../display/plotly";
import { stepCoordinates } from "../../workloads/pgbench";
import { judgeIndex } from "./claims";
import type { YourIndexesSummary } from "./summarise";

const VERDICT_COLORS: Record<string, string> = {
  costs: "#e45756",
  "within margin": "#54a24b",
  "speeds up": "#4c78a8",
  inconclusive: "#bab0ac",
};

/** The judged indexes ranked by cost: median and interval of the paired per-round cost, the margin as a band. */
export function costRanking(s: YourIndexesSummary): PlotlyFigure {
  const ranked = s.indexes.filter((ix) => ix.cost).sort((a, b) => (a.cost?.estimate ?? 0) - (b.cost?.estimate ?? 0));
  const pct = (x: number) => x * 100;
  const data: PlotlyTrace[] = [
    {
      type: "bar",
      orientation: "h",
      y: ranked.map((ix) => ix.name),
      x: ranked.map((ix) => pct(ix.cost?.estimate ?? 0)),
      error_x: {
        type: "data",
        symmetric: false,
        array: ranked.map((ix) => pct((ix.cost?.high ?? 0) - (ix.cost?.estimate ?? 0))),
        arrayminus: ranked.map((ix) => pct((ix.cost?.estimate ?? 0) - (ix.cost?.low ?? 0))),
      },
      marker: { color: ranked.map((ix) => VERDICT_COLORS[judgeIndex(s, ix).judgement]) },
      customdata: ranked.map((ix) => judgeIndex(s, ix).text),
      hovertemplate: "%{y}: %{customdata}<extra></extra>",
      name: "cost (median of paired rounds; bars: its interval)",
    },
  ];
  const m = pct(s.equivalenceMargin);
  return {
    data,
    layout: {
      title: { text: "Write-throughput cost of each index (1 − TPS with ÷ TPS without, paired per round)" },
      xaxis: { title: { text: "cost, % of write throughput" }, zeroline: true },
      yaxis: { automargin: true },
      shapes: [
        {
          type: "rect",
          xref: "x",
          yref: "paper",
          x0: -m,
          x1: m,
          y0: 0,
          y1: 1,
          fillcolor: "#54a24b",
          opacity: 0.12,
          line: { width: 0 },
        },
      ],
      annotations: [
        { x: m, y: 1, xref: "x", yref: "paper", text: `±${m} % equivalence`, showarrow: false, yanchor: "bottom" },
      ],
      showlegend: false,
    },
  };
}

/**
 * What each index's absence does to each read script: latency without ÷ with (paired per round),
 * median and interval, on a log axis; 1× is no effect.
 */
export function readSlowdowns(s: YourIndexesSummary): PlotlyFigure {
  const data: PlotlyTrace[] = s.readScripts.map((script) => {
    const rows = s.indexes.flatMap((ix) => {
      const r = ix.reads.find((x) => x.script === script);
      return r?.slowdown ? [{ name: ix.name, i: r.slowdown, line: ix.decision.text }] : [];
    });
    return {
      type: "bar",
      orientation: "h",
      name: script,
      y: rows.map((r) => r.name),
      x: rows.map((r) => r.i.estimate),
      error_x: {
        type: "data",
        symmetric: false,
        array: rows.map((r) => r.i.high - r.i.estimate),
        arrayminus: rows.map((r) => r.i.estimate - r.i.low),
      },
      customdata: rows.map((r) => r.line),
      hovertemplate: `${script} without %{y}: %{x:.2f}× · %{customdata}<extra></extra>`,
    };
  });
  return {
    data,
    layout: {
      title: { text: "Each read script's latency without the index ÷ with it (paired per round)" },
      xaxis: { title: { text: "× slower without it (log)" }, type: "log" },
      yaxis: { automargin: true },
      barmode: "group",
      shapes: [{ type: "line", xref: "x", yref: "paper", x0: 1, x1: 1, y0: 0, y1: 1, line: { width: 1 } }],
    },
  };
}

/** TPS of every run in the order run, one series per variant: the baseline's runs flank every other. */
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
  return {
    data,
    layout: {
      title: { text: "TPS of every run in the order run (crosses: flagged runs)" },
      xaxis: { title: { text: "run (in order)" } },
      yaxis: { title: { text: "transactions / s" }, rangemode: "tozero" },
    },
  };
}

/** Second by second TPS of the first round's runs. */
export function perSecond(s: YourIndexesSummary): PlotlyFigure {
  const first = s.runs.filter((r) => r.repeat === 1);
  const data: PlotlyTrace[] = first.map((r) => {
    const xy = stepCoordinates(r.series, (p) => p.tps);
    return { type: "scatter", mode: "lines", line: { shape: "hv" }, name: r.variant, x: xy.x, y: xy.y };
  });
  return {
    data,
    layout: {
      title: { text: "TPS second by second, round 1 (pgbench's transaction log)" },
      xaxis: { title: { text: "second of the run" } },
      yaxis: { title: { text: "transactions / s" }, rangemode: "tozero" },
    },
  };
}

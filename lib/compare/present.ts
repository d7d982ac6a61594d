/**
 * Notebook 00's view of a comparison: the same sections as `npm run compare` (runs, what differed,
 * per condition, verdicts) as tables, and two charts — the per-condition changes with their
 * intervals, sorted, and every trial of every run overlaid per condition.
 */
import { axis, PALETTE, plot, titledFigure, type PlotlyFigure, type PlotlyTrace } from "../display/plotly";
import { escapeHtml, show } from "../display/output";
import { tableHtml, type Row } from "../display/table";
import { compareRuns, isCompared, type Comparison, type PairComparison } from "./compare";
import { footnotes, formatMarkdown } from "./format";

// Six of the chart colours: the seventh run takes the first one again.
const COLORS = PALETTE.slice(0, 6);
const pctChange = (ratio: number) => (ratio - 1) * 100;

export function showRuns(c: Comparison): void {
  const rows: Row[] = c.runs.map((r) => ({
    "": r.label,
    run: r.id,
    profile: r.profile,
    target: r.target,
    commit: r.commit,
    started: r.startedAt,
    "trials ok": r.trialsOk,
    failed: r.trialsFailed,
    state: r.state,
  }));
  const warnings = c.warnings.map((w) => `<li>${escapeHtml(w)}</li>`).join("");
  show().html(
    tableHtml(rows, { caption: `Runs of ${c.notebook} · ${c.metric.describe}` }) +
      (warnings ? `<ul style="color:#b00020">${warnings}</ul>` : ""),
  );
}

/** What differed: shown first, because an unintended change of configuration is the usual cause. */
export function showConfigDiff(c: Comparison): void {
  const note = `${c.identicalFields} other recorded fields are the same in every run.`;
  if (!c.config.length) {
    show().html(
      `<p><b>What differed:</b> nothing — same configuration, host, commit and parameters. ${escapeHtml(note)}</p>`,
    );
    return;
  }
  const rows: Row[] = c.config.map((r) => ({
    section: r.section,
    field: r.field,
    ...Object.fromEntries(c.runs.map((run, i) => [run.label, r.values[i]])),
  }));
  show().html(tableHtml(rows, { caption: "What differed between the runs" }) + `<p>${escapeHtml(note)}</p>`);
}

function pairRows(pair: PairComparison): Row[] {
  return pair.rows.map((r) => ({
    condition: r.label,
    [`${pair.a.label} median`]: r.a?.median,
    [`${pair.a.label} interval`]: r.a ? `${r.a.low.toPrecision(3)}–${r.a.high.toPrecision(3)}` : "—",
    [`${pair.b.label} median`]: r.b?.median,
    [`${pair.b.label} interval`]: r.b ? `${r.b.low.toPrecision(3)}–${r.b.high.toPrecision(3)}` : "—",
    n: r.a && r.b ? `${r.a.n} / ${r.b.n}` : "",
    "change %": r.change
      ? pctChange(r.change.ratio)
      : r.only
        ? `only in ${r.only === "A" ? pair.a.label : pair.b.label}`
        : "",
    interval: r.change ? `${pctChange(r.change.ciLow).toFixed(1)} … ${pctChange(r.change.ciHigh).toFixed(1)}` : "",
    "vs noise": r.change
      ? r.change.distinguishable
        ? `${r.regression ? "REGRESSION " : ""}p=${r.change.test.p.toFixed(3)}`
        : "~"
      : "",
  }));
}

export function showConditions(c: Comparison): void {
  for (const pair of c.pairs) {
    const notes = footnotes(c, pair)
      .map((n) => `<li>${escapeHtml(n)}</li>`)
      .join("");
    show().html(
      tableHtml(pairRows(pair), { caption: `${pair.b.label} vs ${pair.a.label}, per condition (${c.metric.unit})` }) +
        `<ul>${notes}</ul>`,
    );
  }
}

export function showVerdicts(c: Comparison): void {
  for (const pair of c.pairs) {
    if (!pair.verdicts) {
      show().html(`<p><b>Claims' verdicts:</b> ${escapeHtml(pair.verdictsNote)}</p>`);
      continue;
    }
    const rows: Row[] = pair.verdicts.map((v) => ({
      claim: `${v.id}. ${v.claim}`,
      [pair.a.label]: v.a ?? "—",
      [pair.b.label]: v.b ?? "—",
      changed: v.changed ? "changed" : "",
      [`why (${pair.a.label})`]: v.changed ? (v.whyA ?? "") : "",
      [`why (${pair.b.label})`]: v.changed ? (v.whyB ?? "") : "",
    }));
    show().html(
      tableHtml(rows, { caption: `Claims' verdicts, ${pair.a.label} → ${pair.b.label}` }) +
        (pair.verdictsNote ? `<p>${escapeHtml(pair.verdictsNote)}</p>` : ""),
    );
  }
}

/**
 * Per-condition change (%) with its interval (from the medians' exact intervals), sorted; distinguishable changes
 * filled, "~" hollow.
 */
export function changeChart(c: Comparison): PlotlyFigure {
  const data: PlotlyTrace[] = c.pairs.map((pair, i) => {
    const rows = pair.rows.filter(isCompared).sort((x, y) => x.change.ratio - y.change.ratio);
    return {
      type: "scatter",
      mode: "markers",
      name: `${pair.b.label} vs ${pair.a.label}`,
      y: rows.map((r) => r.label),
      x: rows.map((r) => pctChange(r.change.ratio)),
      error_x: {
        type: "data",
        symmetric: false,
        array: rows.map((r) => pctChange(r.change.ciHigh) - pctChange(r.change.ratio)),
        arrayminus: rows.map((r) => pctChange(r.change.ratio) - pctChange(r.change.ciLow)),
      },
      marker: {
        size: 10,
        color: COLORS[(i + 1) % COLORS.length],
        symbol: rows.map((r) => (r.change.distinguishable ? "circle" : "circle-open")),
      },
      text: rows.map((r) =>
        r.change.distinguishable ? `p=${r.change.test.p.toFixed(3)}` : "~ not distinguishable from noise",
      ),
      hovertemplate: "%{y}: %{x:.1f} %<br>%{text}<extra></extra>",
    };
  });
  const count = Math.max(...c.pairs.map((p) => p.common));
  const title = `Change against ${c.runs[0].label}, per condition (filled: distinguishable from noise, α = ${c.alpha})`;
  const better = c.metric.higherIsBetter ? "higher" : "lower";
  return titledFigure(
    title,
    {
      xaxis: axis(`change of the median ${c.metric.name}, % (${better} is better)`, { zeroline: true }),
      yaxis: { automargin: true, type: "category" },
      shapes: [{ type: "line", x0: 0, x1: 0, yref: "paper", y0: 0, y1: 1, line: { color: "#888", dash: "dot" } }],
      height: Math.max(320, 60 + 28 * count),
    },
    data,
  );
}

/** Every trial of every run, per condition, side by side. */
export function trialsChart(c: Comparison): PlotlyFigure {
  // One line per condition field: the category labels stay narrow enough not to overlap.
  const tick = (label: string) => label.replace(/ /g, "<br>");
  const perRun: { label: string; x: string[]; y: number[] }[] = c.runs.map((r) => ({
    label: `${r.label}: ${r.id}`,
    x: [],
    y: [],
  }));
  c.pairs.forEach((pair, i) => {
    for (const r of pair.rows) {
      const add = (run: { x: string[]; y: number[] }, values: readonly number[]) => {
        for (const v of values) {
          run.x.push(tick(r.label));
          run.y.push(v);
        }
      };
      if (i === 0 && r.a) add(perRun[0], r.a.values);
      if (r.b) add(perRun[i + 1], r.b.values);
    }
  });
  const data: PlotlyTrace[] = perRun.map((run, i) => ({
    type: "box",
    name: run.label,
    x: run.x,
    y: run.y,
    boxpoints: "all",
    jitter: 0.4,
    pointpos: 0,
    marker: { color: COLORS[i % COLORS.length], size: 6 },
    line: { width: 1 },
    fillcolor: "rgba(0,0,0,0)",
  }));
  return titledFigure(
    `Every trial, per condition (${c.metric.name})`,
    {
      boxmode: "group",
      xaxis: { automargin: true, type: "category", tickangle: 0, tickfont: { size: 10 } },
      yaxis: axis(`${c.metric.name} (${c.metric.unit})`),
      legend: { orientation: "h", y: -0.3 },
    },
    data,
  );
}

export function showCharts(c: Comparison): void {
  const fig = changeChart(c);
  plot(fig, Number(fig.layout?.height ?? 420));
  plot(trialsChart(c), 480);
}

/** The Markdown of `npm run compare -- --format md`, folded, for a pull-request comment. */
export function showMarkdown(c: Comparison): void {
  show().html(
    "<details><summary>Markdown for a pull-request comment</summary>" +
      `<pre>${escapeHtml(formatMarkdown(c))}</pre></details>`,
  );
}

/** Everything, in the order of `npm run compare`: runs, what differed, per condition, charts, verdicts. */
export function showComparison(c: Comparison): void {
  showRuns(c);
  showConfigDiff(c);
  showConditions(c);
  showCharts(c);
  showVerdicts(c);
}

/**
 * `lab.compare(a, b, …)` in a notebook cell: compares the runs with the default options, shows the
 * comparison and returns it. Here, not in compare.ts, which the command line loads without danfo.js.
 */
export function compare(...refs: string[]): Comparison {
  const c = compareRuns(refs);
  showComparison(c);
  return c;
}

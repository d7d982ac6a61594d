/**
 * Interactive plotly charts that render offline: plotly.js is inlined once per notebook (and so
 * once per exported report), each chart is a div plus a small script.
 */
import fs from "node:fs";
import path from "node:path";
import { randomBytes } from "node:crypto";
import { show } from "./output";

export interface PlotlyTrace {
  readonly [key: string]: unknown;
}
export interface PlotlyFigure {
  readonly data: readonly PlotlyTrace[];
  readonly layout?: Readonly<Record<string, unknown>>;
}

/**
 * A row of buttons above a chart that shows one group of traces at a time (a set, a round);
 * `layoutFor` swaps layout parts with the group (its shapes, say). No buttons for one group.
 * `traceGroup[i]` is the group of `data[i]`.
 */
export function groupButtons<G>(
  groups: readonly G[],
  traceGroup: readonly G[],
  label: (group: G) => string,
  layoutFor?: (group: G) => Record<string, unknown>,
): Record<string, unknown>[] {
  if (groups.length <= 1) return [];
  const buttons = groups.map((g) => {
    const visible = { visible: traceGroup.map((t) => t === g) };
    return { label: label(g), method: "update", args: layoutFor ? [visible, layoutFor(g)] : [visible] };
  });
  return [{ type: "buttons", direction: "right", x: 1, xanchor: "right", y: 1.16, yanchor: "bottom", buttons }];
}

let loaded = false;

function plotlySource(): string {
  const file = path.resolve(__dirname, "..", "..", "assets", "plotly.min.js");
  if (!fs.existsSync(file)) throw new Error(`${file} is missing: run \`npm run build\` first`);
  return fs.readFileSync(file, "utf8");
}

/**
 * The script that defines window.Plotly. `define`, `module` and `exports` are shadowed so that the
 * UMD bundle registers a global even on pages with require.js (classic Notebook), where it would
 * otherwise register an anonymous AMD module and stay invisible to the charts.
 */
export function plotlyLoaderHtml(): string {
  const code = plotlySource().replace(/<\/script/gi, "<\\/script");
  return `<script type="text/javascript">(function(){var define=undefined,module=undefined,exports=undefined;${code}\n}).call(window);</script>`;
}

/** Inlines plotly.js into the notebook's output (once per kernel session). */
export function setupCharts(): void {
  show().html(`${plotlyLoaderHtml()}<div style="color:#888;font-size:11px">plotly.js inlined for offline charts</div>`);
  loaded = true;
}

/** The HTML of one chart; it waits for window.Plotly in case the loader's output is still parsing. */
export function chartHtml(figure: PlotlyFigure, height = 420): string {
  const id = `dblab-chart-${randomBytes(6).toString("hex")}`;
  const layout = { height, margin: { t: 50, r: 20, b: 50, l: 60 }, ...figure.layout };
  const spec = JSON.stringify({ data: figure.data, layout, config: { responsive: true, displaylogo: false } }).replace(
    /<\/script/gi,
    "<\\/script",
  );
  return (
    `<div id="${id}" class="dblab-chart" style="width:100%;min-height:${height}px"></div>` +
    `<script type="text/javascript">(function(){var spec=${spec};var tries=0;function draw(){` +
    `if(window.Plotly){window.Plotly.newPlot("${id}",spec.data,spec.layout,spec.config);}` +
    `else if(tries++<200){setTimeout(draw,50);}else{document.getElementById("${id}").textContent=` +
    `"plotly.js is not loaded: run the notebook's setupCharts() cell";}}draw();})();</script>`
  );
}

export function plot(figure: PlotlyFigure, height?: number): void {
  if (!loaded) setupCharts();
  show().html(chartHtml(figure, height));
}

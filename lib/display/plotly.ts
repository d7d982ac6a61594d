/**
 * Interactive plotly charts that render offline: plotly.js is inlined once per notebook (and so
 * once per exported report), each chart is a div plus a small script. The charts use scatter, bar
 * and box traces only, all in plotly's partial cartesian bundle (scripts/build-assets.ts): a chart
 * with another trace type needs a bigger bundle there.
 *
 * Each chart is one output with two MIME types: plotly's own `application/vnd.plotly.v1+json` (the
 * figure: data, layout, config), which JupyterLab (with plotly's extension) and VS Code draw
 * natively, also in a notebook that is not trusted, and `text/html` (the div and script), which
 * classic Notebook and the exported report draw. A front end shows one type per output, so a
 * chart is never drawn twice: nbconvert's HTML exporter picks `text/html` (plotly's type is not in
 * its display_data_priority), classic Notebook skips a type it has no renderer for.
 */
import fs from "node:fs";
import path from "node:path";
import { randomBytes } from "node:crypto";
import { show, showBundle, type MimeBundle } from "./output";

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

/** Files scripts/build-assets.ts writes into build/assets: the bundle (gzip, base64) and its name. */
export const PLOTLY_ASSET = "plotly.min.js.gz.b64";
export const PLOTLY_INFO = "plotly.json";

function assetPath(name: string): string {
  const file = path.resolve(__dirname, "..", "..", "assets", name);
  if (!fs.existsSync(file)) throw new Error(`${file} is missing: run \`npm run build\` first`);
  return file;
}

/** Which plotly.js bundle the charts carry, e.g. `{ bundle: "cartesian", version: "4.1.1" }`. */
export function plotlyBundle(): { readonly bundle: string; readonly version: string } {
  return JSON.parse(fs.readFileSync(assetPath(PLOTLY_INFO), "utf8")) as { bundle: string; version: string };
}

/**
 * The script that defines window.Plotly, once per page. The bundle travels gzipped and in base64
 * (666 KB instead of 1.5 MB for plotly's cartesian bundle) and the page unpacks it with the
 * browser's own DecompressionStream (Chrome 80, Firefox 113, Safari 16.4), so a report stays
 * offline and small. `define`, `module` and `exports` are shadowed so that the UMD bundle
 * registers a global even on pages with require.js (classic Notebook), where it would otherwise
 * register an anonymous AMD module and stay invisible to the charts.
 */
export function plotlyLoaderHtml(): string {
  const packed = fs.readFileSync(assetPath(PLOTLY_ASSET), "utf8");
  const { bundle, version } = plotlyBundle();
  return (
    `<script type="text/javascript" data-dblab-plotly="${bundle} ${version}">(function(){` +
    `if(window.Plotly||window.dblabPlotlyLoading)return;` +
    `if(typeof DecompressionStream==="undefined"){window.dblabPlotlyError="this browser cannot unpack the charts' ` +
    `plotly.js (it needs DecompressionStream: Chrome 80, Firefox 113, Safari 16.4 or later)";return;}` +
    `window.dblabPlotlyLoading=true;var b=atob("${packed}");var a=new Uint8Array(b.length);` +
    `for(var i=0;i<b.length;i++)a[i]=b.charCodeAt(i);` +
    `new Response(new Blob([a]).stream().pipeThrough(new DecompressionStream("gzip"))).text().then(function(code){` +
    `new Function("define","module","exports",code).call(window);})` +
    `.catch(function(e){window.dblabPlotlyError="plotly.js could not be unpacked: "+e;})` +
    `.then(function(){window.dblabPlotlyLoading=false;});})();</script>`
  );
}

/** Inlines plotly.js into the notebook's output (once per kernel session). */
export function setupCharts(): void {
  show().html(
    `${plotlyLoaderHtml()}<div style="color:#888;font-size:11px">plotly.js (${plotlyBundle().bundle} bundle) inlined for offline charts</div>`,
  );
  loaded = true;
}

/** plotly's MIME type for a figure (what plotly.py sends, and JupyterLab and VS Code draw). */
export const PLOTLY_MIME = "application/vnd.plotly.v1+json";

/** A figure as drawn: its data, its layout with the lab's height and margins, and its config. */
export interface PlotlySpec {
  readonly data: readonly PlotlyTrace[];
  readonly layout: Readonly<Record<string, unknown>>;
  readonly config: Readonly<Record<string, unknown>>;
}

export function chartSpec(figure: PlotlyFigure, height = 420): PlotlySpec {
  const layout = { height, margin: { t: 50, r: 20, b: 50, l: 60 }, ...figure.layout };
  return { data: figure.data, layout, config: { responsive: true, displaylogo: false } };
}

/** The HTML of one chart; it waits for window.Plotly in case the loader's output is still parsing. */
export function chartHtml(figure: PlotlyFigure, height = 420): string {
  const id = `dblab-chart-${randomBytes(6).toString("hex")}`;
  const spec = JSON.stringify(chartSpec(figure, height)).replace(/<\/script/gi, "<\\/script");
  return (
    `<div id="${id}" class="dblab-chart" style="width:100%;min-height:${height}px"></div>` +
    `<script type="text/javascript">(function(){var spec=${spec};var tries=0;function draw(){` +
    `if(window.Plotly){window.Plotly.newPlot("${id}",spec.data,spec.layout,spec.config);}` +
    `else if(!window.dblabPlotlyError&&tries++<200){setTimeout(draw,50);}else{document.getElementById("${id}").textContent=` +
    `window.dblabPlotlyError||"plotly.js is not loaded: run the notebook's setupCharts() cell";}}draw();})();</script>`
  );
}

/** One chart's output: plotly's JSON for the front ends that draw it, the offline HTML for the rest. */
export function chartBundle(figure: PlotlyFigure, height?: number): MimeBundle {
  // JSON round trip: the figure as stored in the .ipynb (undefined dropped), whatever the caller built.
  const spec = JSON.parse(JSON.stringify(chartSpec(figure, height))) as PlotlySpec;
  return { [PLOTLY_MIME]: spec, "text/html": chartHtml(figure, height) };
}

/**
 * Draws a plotly figure in the notebook, e.g. a cut of one's own:
 *
 *   lab.plot({ data: [{ type: "box", x: df["fillfactor"].values, y: df["seconds"].values }],
 *              layout: { title: { text: "UPDATE seconds by fillfactor" } } });
 *
 * The traces must be scatter, bar or box (the offline bundle's); height in pixels, 420 by default.
 */
export function plot(figure: PlotlyFigure, height?: number): void {
  if (!loaded) setupCharts();
  showBundle(chartBundle(figure, height));
}

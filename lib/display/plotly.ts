/**
 * Offline plotly charts (the cartesian bundle, inlined once per notebook: scatter, bar, box). Each is
 * one output with plotly's MIME type (JupyterLab, VS Code) and `text/html` (classic Notebook, the
 * report); a front end shows one of them.
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

/** The charts' colours (vega's category colours), by name and in the order a chart takes them for its series. */
export const COLOR = {
  blue: "#4c78a8",
  orange: "#f58518",
  green: "#54a24b",
  red: "#e45756",
  teal: "#72b7b2",
  purple: "#b279a2",
  brown: "#9d755d",
} as const;
export const PALETTE: readonly string[] = Object.values(COLOR);

/** An axis titled `text`, from zero unless `more` says otherwise. */
export const axis = (text: string, more: object = { rangemode: "tozero" }) => ({ title: { text }, ...more });

/** A figure whose layout starts with its title. */
export const titledFigure = (title: string, layout: object, data: readonly PlotlyTrace[]): PlotlyFigure => ({
  data,
  layout: { title: { text: title }, ...layout },
});

/** A left and a right y axis (`yaxis2`, drawn over the first), for traces with `yaxis: "y2"`. */
export const twoAxes = (left: string, right: string, leftExtra: object = {}, rightExtra: object = {}) => ({
  yaxis: { title: { text: left }, ...leftExtra },
  yaxis2: { title: { text: right }, overlaying: "y", side: "right", ...rightExtra },
});

type Values = readonly (number | string | null)[];

/** A scatter trace drawn as `mode` ("lines", "markers", "lines+markers"); `more` (styles, hover) after its data. */
export const scatterTrace = (mode: string, name: string, x: Values, y: Values, more: object = {}): PlotlyTrace => ({
  type: "scatter",
  mode,
  name,
  x,
  y,
  ...more,
});

/** A bar trace; `more` (styles, hover) after its data. */
export const barTrace = (name: string, x: Values, y: Values, more: object = {}): PlotlyTrace => ({
  type: "bar",
  name,
  x,
  y,
  ...more,
});

/** Asymmetric error bars: `plus` above each point, `minus` below it. */
export const errorBars = (plus: readonly number[], minus: readonly number[]) => ({
  error_y: { type: "data", symmetric: false, array: plus, arrayminus: minus },
});

/** Error bars from each point's estimate to its interval's high and low ends; none where it has no interval. */
export const intervalBars = (
  intervals: readonly ({ readonly estimate: number; readonly low: number; readonly high: number } | undefined)[],
) =>
  errorBars(
    intervals.map((i) => (i ? i.high - i.estimate : 0)),
    intervals.map((i) => (i ? i.estimate - i.low : 0)),
  );

/** Buttons showing one group of traces at a time (`traceGroup[i]` is `data[i]`'s); `layoutFor` swaps layout parts. */
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

/** A group of traces (a round, a set) and what of the layout is its own (its shapes). */
export interface TraceGroup<G> {
  readonly group: G;
  readonly traces: readonly PlotlyTrace[];
  readonly layout?: Record<string, unknown>;
}

/** One figure of several groups, the first shown, buttons (above the title's line) switching to another. */
export function groupedFigure<G>(
  groups: readonly TraceGroup<G>[],
  title: string,
  label: (group: G) => string,
  layout: Record<string, unknown>,
): PlotlyFigure {
  const own = groups[0]?.layout && ((g: G) => groups.find((x) => x.group === g)?.layout ?? {});
  return {
    data: groups.flatMap((g, i) => g.traces.map((t) => ({ ...t, visible: i === 0 }))),
    layout: {
      title: { text: title, x: 0.02, xanchor: "left" },
      margin: { t: 90, r: 20, b: 50, l: 60 },
      ...groups[0]?.layout,
      updatemenus: groupButtons(
        groups.map((g) => g.group),
        groups.flatMap((g) => g.traces.map(() => g.group)),
        label,
        own,
      ),
      ...layout,
    },
  };
}

let loaded = false;

export const PLOTLY_ASSET = "plotly.min.js.gz.b64";
export const PLOTLY_INFO = "plotly.json";

function assetPath(name: string): string {
  const file = path.resolve(__dirname, "..", "..", "assets", name);
  if (!fs.existsSync(file)) throw new Error(`${file} is missing: run \`npm run build\` first`);
  return file;
}

export function plotlyBundle(): { readonly bundle: string; readonly version: string } {
  return JSON.parse(fs.readFileSync(assetPath(PLOTLY_INFO), "utf8")) as { bundle: string; version: string };
}

/**
 * The script that defines window.Plotly, once per page, from the gzipped bundle (DecompressionStream);
 * `define`/`module`/`exports` are shadowed so it registers a global under require.js.
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

/** Once per kernel session. */
export function setupCharts(): void {
  show().html(
    `${plotlyLoaderHtml()}<div style="color:#888;font-size:11px">plotly.js (${plotlyBundle().bundle} bundle) inlined for offline charts</div>`,
  );
  loaded = true;
}

export const PLOTLY_MIME = "application/vnd.plotly.v1+json";

export interface PlotlySpec {
  readonly data: readonly PlotlyTrace[];
  readonly layout: Readonly<Record<string, unknown>>;
  readonly config: Readonly<Record<string, unknown>>;
}

export function chartSpec(figure: PlotlyFigure, height = 420): PlotlySpec {
  const layout = { height, margin: { t: 50, r: 20, b: 50, l: 60 }, ...figure.layout };
  return { data: figure.data, layout, config: { responsive: true, displaylogo: false } };
}

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

export function chartBundle(figure: PlotlyFigure, height?: number): MimeBundle {
  const spec = JSON.parse(JSON.stringify(chartSpec(figure, height))) as PlotlySpec;
  return { [PLOTLY_MIME]: spec, "text/html": chartHtml(figure, height) };
}

/**
 * Draws a plotly figure in the notebook, e.g.
 *   lab.plot({ data: [{ type: "box", x: df["fillfactor"].values, y: df["seconds"].values }] });
 * Traces must be scatter, bar or box; height in pixels, 420 by default.
 */
export function plot(figure: PlotlyFigure, height?: number): void {
  if (!loaded) setupCharts();
  showBundle(chartBundle(figure, height));
}

/** Draws a figure whose layout starts with its title. */
export function chart(title: string, layout: object, data: readonly PlotlyTrace[], height?: number): void {
  plot(titledFigure(title, layout, data), height);
}

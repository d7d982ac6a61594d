/**
 * Opens an HTML report in headless Chromium and checks that its plotly charts draw offline.
 */
import fs from "node:fs";
import path from "node:path";
import { pathToFileURL } from "node:url";
import { chromium } from "playwright-core";
import { CHROMIUM_ARGS, CHROMIUM_PATH } from "../../scripts/report-pdf";

export { CHROMIUM_ARGS, CHROMIUM_PATH };

/** The bit of the DOM used inside page callbacks (tsconfig has no "dom" lib). */
interface MiniDocument {
  querySelectorAll(selector: string): ArrayLike<{ querySelector(selector: string): unknown }>;
}
declare const document: MiniDocument;

export interface ReportCheck {
  /** Plotly charts on the page (`.js-plotly-plot`). */
  readonly charts: number;
  /** Of those, the ones that drew (have an `svg.main-svg`). */
  readonly svgCharts: number;
  /** console.error messages, page errors and failed requests. */
  readonly consoleErrors: string[];
  /** PNG of the full page, beside the report. */
  readonly screenshot: string;
}

export async function checkReportRenders(
  htmlPath: string,
  { timeoutMs = 60_000, expectCharts = 1 }: { timeoutMs?: number; expectCharts?: number } = {},
): Promise<ReportCheck> {
  if (!fs.existsSync(CHROMIUM_PATH)) {
    throw new Error(`SKIP: Chromium not found at ${CHROMIUM_PATH} (apt-get install chromium, or set DBLAB_CHROMIUM)`);
  }
  const file = path.resolve(htmlPath);
  if (!fs.existsSync(file)) throw new Error(`report not found: ${file}`);
  const browser = await chromium.launch({ executablePath: CHROMIUM_PATH, args: CHROMIUM_ARGS, timeout: timeoutMs });
  const consoleErrors: string[] = [];
  try {
    const page = await browser.newPage({ viewport: { width: 1200, height: 900 } });
    page.on("console", (msg) => {
      if (msg.type() === "error") consoleErrors.push(`console: ${msg.text()}`);
    });
    page.on("pageerror", (err) => consoleErrors.push(`pageerror: ${err.message}`));
    page.on("requestfailed", (req) => consoleErrors.push(`requestfailed: ${req.url()} (${req.failure()?.errorText})`));
    await page.goto(pathToFileURL(file).href, { waitUntil: "load", timeout: timeoutMs });
    // Wait until every chart container has drawn its SVG (or give up and report what drew).
    if (expectCharts > 0) {
      await page
        .waitForFunction(
          (n) => {
            const plots = Array.from(document.querySelectorAll(".js-plotly-plot"));
            return plots.length >= n && plots.every((p) => p.querySelector("svg.main-svg"));
          },
          expectCharts,
          { timeout: timeoutMs },
        )
        .catch(() => undefined);
    }
    const { charts, svgCharts } = await page.evaluate(() => {
      const plots = Array.from(document.querySelectorAll(".js-plotly-plot"));
      return { charts: plots.length, svgCharts: plots.filter((p) => p.querySelector("svg.main-svg")).length };
    });
    const screenshot = file.replace(/\.html?$/i, "") + ".png";
    await page.screenshot({ path: screenshot, fullPage: true });
    return { charts, svgCharts, consoleErrors, screenshot };
  } finally {
    await browser.close();
  }
}

/** plotly's MIME type (lib/display/plotly.ts), and the figures an executed notebook carries under it. */
export interface NotebookFigure {
  /** The code cell's index in the notebook. */
  readonly cell: number;
  readonly figure: { readonly data: unknown[]; readonly layout?: object; readonly config?: object };
  /** The other MIME types of the same output. */
  readonly alongside: string[];
}

export function notebookFigures(ipynbPath: string, mime = "application/vnd.plotly.v1+json"): NotebookFigure[] {
  const nb = JSON.parse(fs.readFileSync(ipynbPath, "utf8")) as {
    cells: { outputs?: { output_type: string; data?: Record<string, unknown> }[] }[];
  };
  return nb.cells.flatMap((c, cell) =>
    (c.outputs ?? []).flatMap((o) => {
      const figure = o.data?.[mime];
      if (o.output_type !== "display_data" || figure === undefined) return [];
      return [
        {
          cell,
          figure: figure as NotebookFigure["figure"],
          alongside: Object.keys(o.data ?? {}).filter((k) => k !== mime),
        },
      ];
    }),
  );
}

/**
 * plotly.js 4.1.1's validate reports every object in an updatemenus button's `args` as "got reset
 * during defaults" (it compares the copy by identity): also for its own documented
 * `args: [{ visible: [true, false] }]` on a two-trace figure, tried alone. Such a message says nothing.
 */
const VALIDATE_FALSE_POSITIVE =
  /^In layout, key updatemenus\[\d+\]\.buttons\[\d+\]\.args\[\d+\] \(set to '\[object Object\]'\) got reset to '\[object Object\]' during defaults\.$/;

/**
 * Each figure checked against plotly's schema by `Plotly.validate(data, layout)` of the full
 * plotly.js-dist (what JupyterLab's and VS Code's renderers are built from), in headless Chromium
 * (plotly.js needs a DOM). One list of messages per figure, empty when it is valid.
 */
export async function validateFigures(
  figures: readonly NotebookFigure["figure"][],
  { timeoutMs = 60_000 }: { timeoutMs?: number } = {},
): Promise<string[][]> {
  if (!fs.existsSync(CHROMIUM_PATH)) {
    throw new Error(`SKIP: Chromium not found at ${CHROMIUM_PATH} (apt-get install chromium, or set DBLAB_CHROMIUM)`);
  }
  const browser = await chromium.launch({ executablePath: CHROMIUM_PATH, args: CHROMIUM_ARGS, timeout: timeoutMs });
  try {
    const page = await browser.newPage();
    await page.setContent("<!doctype html><html><body></body></html>");
    await page.addScriptTag({ path: require.resolve("plotly.js-dist/plotly.js") });
    const messages = await page.evaluate((figs) => {
      interface PlotlyValidation {
        validate(data: unknown[], layout: object): { msg: string }[] | undefined;
      }
      const plotly = (globalThis as unknown as { Plotly: PlotlyValidation }).Plotly;
      return figs.map((f) => (plotly.validate(f.data, f.layout ?? {}) ?? []).map((e) => e.msg));
    }, figures);
    return messages.map((list) => list.filter((m) => !VALIDATE_FALSE_POSITIVE.test(m)));
  } finally {
    await browser.close();
  }
}

/**
 * An executed notebook's charts as a newcomer's front ends see them: every plotly figure valid by
 * plotly's schema and sent with its offline HTML beside it, and the report drawing exactly one
 * chart per figure (nbconvert draws one MIME type per output, never both).
 */
export async function assertNotebookFigures(
  ipynbPath: string,
  report: ReportCheck,
  equal: (actual: unknown, expected: unknown, message: string) => void,
): Promise<number> {
  const figures = notebookFigures(ipynbPath);
  equal(figures.length > 0, true, `${ipynbPath} carries application/vnd.plotly.v1+json outputs`);
  for (const f of figures)
    equal(f.alongside, ["text/html"], `cell ${f.cell}: the figure's output also carries its HTML`);
  const messages = await validateFigures(figures.map((f) => f.figure));
  const invalid = figures.flatMap((f, i) => (messages[i].length ? [`cell ${f.cell}: ${messages[i].join("; ")}`] : []));
  equal(invalid, [], "every figure validates against plotly's schema");
  equal(report.charts, figures.length, "the report draws one chart per figure, none twice");
  return figures.length;
}

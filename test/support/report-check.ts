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

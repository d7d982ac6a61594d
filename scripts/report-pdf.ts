/**
 * A PDF of an HTML report through headless Chromium's print (playwright-core's page.pdf), once every
 * plotly chart has drawn its SVG: plotly draws from a script after load, so printing at "load" would
 * give empty boxes. Charts keep the width they had on screen (a 1100 px viewport) and the page is
 * scaled to A4 instead, so axis labels stay where plotly put them; no chart is split across pages.
 */
import fs from "node:fs";
import path from "node:path";
import { pathToFileURL } from "node:url";

export const CHROMIUM_PATH = process.env.DBLAB_CHROMIUM ?? "/usr/bin/chromium";

/** The network is closed: keep Chromium from phoning home (else it floods refused connections). */
export const CHROMIUM_ARGS = [
  "--headless",
  "--no-sandbox",
  "--disable-gpu",
  "--disable-quic",
  "--no-first-run",
  "--disable-background-networking",
  "--disable-component-update",
  "--disable-sync",
];

export interface PdfResult {
  readonly pdf: string;
  readonly charts: number;
  readonly drawn: number;
}

const VIEWPORT_WIDTH = 1100;
// A4 is 210 mm = 794 CSS px; minus 2 × 10 mm margins ≈ 718 px: 1100 × 0.65 = 715 px fits.
const SCALE = 0.65;

export async function reportToPdf(
  htmlPath: string,
  pdfPath = htmlPath.replace(/\.html?$/i, "") + ".pdf",
  timeoutMs = 120_000,
): Promise<PdfResult> {
  const file = path.resolve(htmlPath);
  if (!fs.existsSync(file)) throw new Error(`report not found: ${file}`);
  if (!fs.existsSync(CHROMIUM_PATH)) {
    throw new Error(
      `Chromium not found at ${CHROMIUM_PATH}: apt-get install chromium (or set DBLAB_CHROMIUM to a Chromium/Chrome binary)`,
    );
  }
  let chromium: typeof import("playwright-core").chromium;
  try {
    ({ chromium } = await import("playwright-core"));
  } catch {
    throw new Error("playwright-core is not installed: run `npm ci` (it drives Chromium for the PDF)");
  }
  const browser = await chromium.launch({ executablePath: CHROMIUM_PATH, args: CHROMIUM_ARGS, timeout: timeoutMs });
  try {
    const page = await browser.newPage({ viewport: { width: VIEWPORT_WIDTH, height: 1000 } });
    await page.goto(pathToFileURL(file).href, { waitUntil: "load", timeout: timeoutMs });
    // Page-side code as strings: the project's tsconfig has no DOM lib.
    const countScript = `(() => { const p = Array.from(document.querySelectorAll(".js-plotly-plot, .dblab-chart"));
      return { charts: p.length, drawn: p.filter((e) => e.querySelector("svg.main-svg")).length }; })()`;
    await page
      .waitForFunction(`(() => { const c = ${countScript}; return c.drawn === c.charts; })()`, undefined, {
        timeout: timeoutMs,
      })
      .catch(() => undefined);
    const { charts, drawn } = await page.evaluate<{ charts: number; drawn: number }>(countScript);
    if (drawn < charts)
      throw new Error(`${charts - drawn} of ${charts} charts did not draw within ${timeoutMs / 1000} s in ${file}`);
    await page.addStyleTag({
      content:
        ".dblab-chart, .js-plotly-plot, .jp-OutputArea-output, table { break-inside: avoid; page-break-inside: avoid; }",
    });
    await page.pdf({
      path: pdfPath,
      format: "A4",
      printBackground: true,
      scale: SCALE,
      margin: { top: "10mm", bottom: "10mm", left: "10mm", right: "10mm" },
    });
    return { pdf: pdfPath, charts, drawn };
  } finally {
    await browser.close();
  }
}

/**
 * `npm run export -- <report.html> --pdf`: bad input is refused before Chromium starts; a report
 * with a plotly chart prints to a PDF only once the chart drew.
 */
import { test } from "node:test";
import assert from "node:assert/strict";
import { spawnSync } from "node:child_process";
import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import { chartHtml, plotlyLoaderHtml } from "../../lib/display/plotly";
import { CHROMIUM_PATH } from "../../scripts/report-pdf";

const EXPORT = path.resolve(__dirname, "..", "..", "scripts", "export.js");

function runExport(args: readonly string[]) {
  return spawnSync(process.execPath, [EXPORT, ...args], { encoding: "utf8" });
}

test("export refuses bad arguments with exit 2 and names the problem", () => {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), "dblab-export-"));
  try {
    const html = path.join(dir, "r.html");
    fs.writeFileSync(html, "<html></html>");
    const cases: [string[], RegExp][] = [
      [[], /say which format: --pdf/],
      [["--pdf"], /no report given/],
      [[path.join(dir, "missing.html"), "--pdf"], /not an HTML report/],
      [[html, "--pdf", "--frobnicate"], /unknown argument "--frobnicate"/],
      [[html, html, "--pdf", "--out", path.join(dir, "x.pdf")], /--out takes one report/],
    ];
    for (const [args, message] of cases) {
      const r = runExport(args);
      assert.equal(r.status, 2, `${args.join(" ")}: ${r.stderr}`);
      assert.match(r.stderr, message);
    }
  } finally {
    fs.rmSync(dir, { recursive: true, force: true });
  }
});

test("export prints a report to PDF once its chart drew", { timeout: 120_000 }, (t) => {
  if (!fs.existsSync(CHROMIUM_PATH)) return t.skip(`Chromium not found at ${CHROMIUM_PATH}`);
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), "dblab-export-"));
  try {
    const html = path.join(dir, "report.html");
    const chart = chartHtml({ data: [{ type: "bar", x: ["a", "b"], y: [1, 2] }], layout: { title: { text: "t" } } });
    fs.writeFileSync(
      html,
      `<!DOCTYPE html><html><head><meta charset="utf-8"></head><body>${plotlyLoaderHtml()}${chart}</body></html>`,
    );
    const out = path.join(dir, "out.pdf");
    const r = runExport([html, "--pdf", "--out", out]);
    assert.equal(r.status, 0, r.stderr);
    assert.match(r.stdout, /1 of 1 charts drawn/);
    assert.equal(fs.readFileSync(out).subarray(0, 5).toString("latin1"), "%PDF-");
  } finally {
    fs.rmSync(dir, { recursive: true, force: true });
  }
});

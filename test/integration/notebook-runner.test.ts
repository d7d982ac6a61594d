// test-tier: shared — Jupyter kernels and headless Chromium on fixture notebooks, own output folder
/**
 * Runs fixture notebooks through the executor `npm run reproduce` uses (real Jupyter + tslab
 * kernel), then opens the HTML report in headless Chromium. Skips, with the reason, when
 * Jupyter/nbclient or Chromium is missing.
 */
import { after, test } from "node:test";
import assert from "node:assert/strict";
import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import {
  describeFailure,
  executeNotebook,
  jupyterUnavailableReason,
  type ExecuteResult,
} from "../../lib/jupyter/execute";
import { projectRoot } from "../../lib/jupyter/kernel-spec";
import { checkReportRenders } from "../support/report-check";

const root = projectRoot();
const fixtures = path.join(root, "test", "fixtures");
const outDir = fs.mkdtempSync(path.join(os.tmpdir(), "dblab-runner-test-"));
// Reports inline plotly.js (~10 MB each): removed afterwards unless DBLAB_KEEP_TEST_OUTPUT=1.
after(() => {
  if (process.env.DBLAB_KEEP_TEST_OUTPUT) console.log(`test output kept in ${outDir}`);
  else fs.rmSync(outDir, { recursive: true, force: true });
});

interface StreamOutput {
  output_type: string;
  name?: string;
  text?: string | string[];
}

function stdoutOf(ipynb: string): string {
  const nb = JSON.parse(fs.readFileSync(ipynb, "utf8")) as { cells: { outputs?: StreamOutput[] }[] };
  return nb.cells
    .flatMap((c) => c.outputs ?? [])
    .filter((o) => o.output_type === "stream" && o.name === "stdout")
    .map((o) => (Array.isArray(o.text) ? o.text.join("") : (o.text ?? "")))
    .join("");
}

let fixtureRun: ExecuteResult | undefined;

test("runner fixture: executes with injected parameters and writes an HTML report", { timeout: 300_000 }, async (t) => {
  const missing = jupyterUnavailableReason();
  if (missing) {
    t.skip(`Jupyter not available: ${missing}`);
    return;
  }
  const started = Date.now();
  const result = await executeNotebook({
    notebook: path.join(fixtures, "runner-fixture.ipynb"),
    outputIpynb: path.join(outDir, "runner-fixture.ipynb"),
    outputHtml: path.join(outDir, "runner-fixture.html"),
    profile: "smoke",
    overrides: { label: "from-test", rowCounts: [1000, 2000] },
    cellTimeoutSec: 120,
  });
  t.diagnostic(
    `kernel start ${result.kernelStartMs} ms; notebook ${result.durationMs} ms (wall ${Date.now() - started} ms)`,
  );
  assert.equal(result.status, "ok", result.message ?? (result.failure && describeFailure(result.failure)));
  assert.equal(result.cellsDone, result.cellCount);
  assert.equal(result.cellCount, 5, "4 code cells + the injected-parameters cell");
  const printed = stdoutOf(result.outputIpynb);
  assert.match(printed, /^profile=smoke$/m);
  assert.match(printed, /^overrides=\{"label":"from-test","rowCounts":\[1000,2000\]\}$/m);
  assert.ok(result.outputHtml && fs.existsSync(result.outputHtml), "HTML report written");
  fixtureRun = result;
});

test("runner fixture: the HTML report draws its plotly chart offline", { timeout: 120_000 }, async (t) => {
  if (!fixtureRun?.outputHtml) {
    const missing = jupyterUnavailableReason();
    if (missing) {
      t.skip(`Jupyter not available (no report to check): ${missing}`);
      return;
    }
    assert.fail("the fixture run produced no report (see the previous test)");
  }
  let check;
  try {
    check = await checkReportRenders(fixtureRun.outputHtml);
  } catch (e) {
    const message = (e as Error).message;
    if (message.startsWith("SKIP:")) {
      t.skip(message.slice(5).trim());
      return;
    }
    throw e;
  }
  t.diagnostic(`charts ${check.charts}, with SVG ${check.svgCharts}; screenshot ${check.screenshot}`);
  assert.equal(check.charts, 1);
  assert.equal(check.svgCharts, 1);
  assert.deepEqual(check.consoleErrors, []);
  assert.ok(fs.statSync(check.screenshot).size > 0);
});

test(
  "failing fixture: the error names the cell, and the executed notebook is saved",
  { timeout: 300_000 },
  async (t) => {
    const missing = jupyterUnavailableReason();
    if (missing) {
      t.skip(`Jupyter not available: ${missing}`);
      return;
    }
    const result = await executeNotebook({
      notebook: path.join(fixtures, "failing-fixture.ipynb"),
      outputIpynb: path.join(outDir, "failing-fixture.ipynb"),
      outputHtml: path.join(outDir, "failing-fixture.html"),
      profile: "smoke",
      cellTimeoutSec: 120,
    });
    assert.equal(result.status, "failed");
    assert.ok(result.failure, result.message);
    const f = result.failure;
    // Cell 4 of the executed notebook: markdown, parameters, injected-parameters, print, throw.
    assert.equal(f.cell, 4);
    assert.equal(f.codeIndex, 3);
    assert.equal(f.sourceHead, 'const failingStep = "boom";');
    assert.equal(f.ename, "Error");
    assert.equal(f.evalue, "fixture failure: boom");
    assert.match(
      describeFailure(f),
      /cell 4 \(code cell 4 of 5: `const failingStep = "boom";`\): Error: fixture failure: boom/,
    );
    // Saved anyway, with the output before the failure and the error in the report.
    assert.match(stdoutOf(result.outputIpynb), /before the failure/);
    assert.doesNotMatch(stdoutOf(result.outputIpynb), /never reached/);
    assert.ok(result.outputHtml && fs.existsSync(result.outputHtml));
    assert.match(fs.readFileSync(result.outputHtml, "utf8"), /fixture failure: boom/);
  },
);

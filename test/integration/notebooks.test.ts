// test-tier: shared — embedded servers, kernels and Chromium of its own
/**
 * The real notebooks, executed headless on the `smoke` profile through the same executor as
 * `npm run reproduce`, each report then opened in headless Chromium: every plotly chart must be
 * drawn (an SVG per chart) with no console errors, every chart's `application/vnd.plotly.v1+json`
 * figure in the executed .ipynb must validate against plotly's schema, and the run's results must be on disk.
 */
import { after, test } from "node:test";
import assert from "node:assert/strict";
import fs from "node:fs";
import zlib from "node:zlib";
import os from "node:os";
import path from "node:path";
import { describeFailure, executeNotebook, jupyterUnavailableReason } from "../../lib/jupyter/execute";
import { projectRoot } from "../../lib/jupyter/kernel-spec";
import { EXPERIMENTS } from "../../lib/experiments/registry";
import { assertNotebookFigures, checkReportRenders } from "../support/report-check";

const root = projectRoot();
const outDir = fs.mkdtempSync(path.join(os.tmpdir(), "dblab-notebooks-test-"));
const resultsDir = path.join(outDir, "results");
after(() => {
  if (!process.env.DBLAB_KEEP_TEST_OUTPUT) fs.rmSync(outDir, { recursive: true, force: true });
});

// Notebooks that need parameters (00 needs runs to compare) are run by their own tests
// (test/integration/compare.test.ts runs 00 on two runs it makes).
for (const entry of EXPERIMENTS.filter((n) => !n.requires)) {
  test(
    `notebook ${entry.id} runs headless on smoke (embedded target) and its report renders`,
    { timeout: 900_000 },
    async (t) => {
      const missing = jupyterUnavailableReason();
      if (missing) return t.skip(`Jupyter not available: ${missing}`);
      const name = path.basename(entry.file, ".ipynb");
      const html = path.join(outDir, `${name}.html`);
      const result = await executeNotebook({
        notebook: path.join(root, entry.file),
        outputIpynb: path.join(outDir, `${name}.ipynb`),
        outputHtml: html,
        profile: "smoke",
        env: { DBLAB_TARGET: "embedded", DBLAB_RESULTS_DIR: resultsDir, DBLAB_RUN_ID: `test-${entry.id}` },
      });
      assert.equal(result.status, "ok", result.message ?? (result.failure && describeFailure(result.failure)));
      const runs = fs.readdirSync(resultsDir).filter((d) => d.startsWith(`test-${entry.id}_`));
      assert.ok(runs.length >= 1, `a results folder for ${entry.id}`);
      const trials = path.join(resultsDir, runs[0], "trials.jsonl");
      assert.ok(fs.existsSync(trials) && fs.statSync(trials).size > 0, "trials recorded");
      // No credentials in anything the run wrote: URIs with a password, or password= parameters.
      // The run's folder whole: pgbench's raw output under raw/ too, read through its gzip.
      const written = [
        path.join(outDir, `${name}.ipynb`),
        html,
        ...fs
          .readdirSync(path.join(resultsDir, runs[0]), { recursive: true, encoding: "utf8" })
          .map((f) => path.join(resultsDir, runs[0], f))
          .filter((f) => fs.statSync(f).isFile()),
      ];
      for (const file of written) {
        const bytes = fs.readFileSync(file);
        const text = (file.endsWith(".gz") ? zlib.gunzipSync(bytes) : bytes).toString("utf8");
        assert.doesNotMatch(text, /[a-z]+:\/\/[^\s:\/@"']+:(?!\*\*\*@)[^\s@\/"']+@/i, `credentials in ${file}`);
        assert.doesNotMatch(text, /password=(?!\*\*\*)[^&\s"']+/i, `password parameter in ${file}`);
      }

      let check;
      try {
        check = await checkReportRenders(html);
      } catch (e) {
        if (e instanceof Error && e.message.startsWith("SKIP:")) return t.skip(e.message);
        throw e;
      }
      assert.ok(check.charts >= 1, "the report has charts");
      assert.equal(check.svgCharts, check.charts, "every chart drew an SVG");
      assert.deepEqual(check.consoleErrors, []);
      // JupyterLab and VS Code draw plotly's own MIME type: each figure is there and valid.
      await assertNotebookFigures(path.join(outDir, `${name}.ipynb`), check, assert.deepEqual);
      // The last cell, "your own cut", shows a groupby of lab.frame(run) with its aggregated columns.
      const cells = (
        JSON.parse(fs.readFileSync(path.join(outDir, `${name}.ipynb`), "utf8")) as {
          cells: { outputs?: unknown[] }[];
        }
      ).cells;
      assert.match(JSON.stringify(cells.at(-1)?.outputs ?? []), /_median<\/th>/, "your own cut shows its groupby");
      // plotly's partial cartesian bundle, once per file, keeps a report small (≤ 1.5 MB even on the
      // default profile; the full bundle alone is 4.8 MB).
      for (const file of [html, path.join(outDir, `${name}.ipynb`)]) {
        const text = fs.readFileSync(file, "utf8");
        assert.equal(text.match(/data-dblab-plotly=\\?"cartesian /g)?.length, 1, `one cartesian bundle in ${file}`);
        const bytes = fs.statSync(file).size;
        assert.ok(bytes <= 1_500_000, `${file} is ${bytes} bytes`);
      }
    },
  );
}

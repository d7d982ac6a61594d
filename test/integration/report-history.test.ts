// test-tier: shared — two reproduce runs of 01 (Jupyter, embedded) into its own folders
/**
 * Two `npm run reproduce` runs of one notebook, one after the other: each keeps its reports in
 * reports/<run-id>/, the latest is also at reports/<notebook>.html, and reports/index.html lists
 * both runs with links to their reports, their verdict counts and the compare command between
 * them. The report itself opens with one verdict line per claim recorded in summary.json.
 */
import { after, test } from "node:test";
import assert from "node:assert/strict";
import { spawnSync } from "node:child_process";
import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import { jupyterUnavailableReason } from "../../lib/jupyter/execute";
import { projectRoot } from "../../lib/jupyter/kernel-spec";
import type { TurnaroundRecord } from "../../scripts/reproduce";

const REPRODUCE = path.join(projectRoot(), "build", "scripts", "reproduce.js");
const box = fs.mkdtempSync(path.join(os.tmpdir(), "dblab-history-test-"));
after(() => fs.rmSync(box, { recursive: true, force: true }));
const reports = path.join(box, "reports");
const results = path.join(box, "results");
const NOTEBOOK = "01-index-write-cost";

function reproduce(): TurnaroundRecord {
  const out = spawnSync(
    process.execPath,
    [
      REPRODUCE,
      "--profile",
      "smoke",
      "--only",
      "01",
      "--set",
      "rowCounts=[600]",
      "--set",
      'engines=["postgresql"]',
      "--reports-dir",
      reports,
    ],
    {
      env: { ...process.env, DBLAB_TARGET: "embedded", DBLAB_RESULTS_DIR: results },
      encoding: "utf8",
      timeout: 600_000,
    },
  );
  assert.equal(out.status, 0, `${out.stdout}\n${out.stderr}`);
  return JSON.parse(fs.readFileSync(path.join(reports, "run.json"), "utf8")) as TurnaroundRecord;
}

test("two runs leave both runs' reports and an index listing both", { timeout: 1_200_000 }, (t) => {
  const missing = jupyterUnavailableReason();
  if (missing) return t.skip(`Jupyter not available: ${missing}`);
  const first = reproduce();
  const second = reproduce();
  assert.notEqual(first.runId, second.runId);
  for (const run of [first, second]) {
    for (const f of [`${NOTEBOOK}.html`, `${NOTEBOOK}.ipynb`, "run.json"]) {
      assert.ok(fs.existsSync(path.join(reports, run.runId, f)), `${run.runId}/${f} kept`);
    }
  }
  // The latest run's report is also where the README and `npm run export` examples point.
  assert.deepEqual(
    fs.readFileSync(path.join(reports, `${NOTEBOOK}.html`)),
    fs.readFileSync(path.join(reports, second.runId, `${NOTEBOOK}.html`)),
  );

  const stored = fs.readdirSync(results).sort();
  const [storedFirst, storedSecond] = [first, second].map((r) => stored.find((d) => d.startsWith(`${r.runId}_`)));
  assert.ok(storedFirst && storedSecond, `both runs' results: ${stored.join(", ")}`);

  const index = fs.readFileSync(path.join(reports, "index.html"), "utf8");
  for (const run of [first, second]) {
    assert.match(index, new RegExp(`id="run-${run.runId}"`), `${run.runId} listed`);
    assert.ok(index.includes(`href="${run.runId}/${NOTEBOOK}.html"`), `link to ${run.runId}'s report`);
  }
  // Newest first, each with its profile, commit and verdict counts; the newer one offers the compare command.
  assert.ok(index.indexOf(`id="run-${second.runId}"`) < index.indexOf(`id="run-${first.runId}"`), "newest first");
  assert.match(index, /profile smoke · target embedded · commit/);
  assert.match(index, /<td class="verdicts">\d+ (held|did not hold|inconclusive|not tested at this scale)/);
  assert.ok(index.includes(`npm run compare -- ${storedFirst} ${storedSecond}`), "compare command between the two");

  // The report opens with the answer: one verdict line per claim in summary.json, each linking to its row.
  const summary = JSON.parse(fs.readFileSync(path.join(results, storedSecond, "summary.json"), "utf8")) as {
    claims: { id: string; verdict: string }[];
  };
  const html = fs.readFileSync(path.join(reports, second.runId, `${NOTEBOOK}.html`), "utf8");
  const lines = html.match(/<li class="dblab-verdict-line"[^>]*>/g) ?? [];
  assert.equal(lines.length, summary.claims.length, "one verdict line per claim");
  for (const c of summary.claims) {
    assert.ok(
      lines.some((l) => l.includes(`data-verdict="${c.verdict}"`)),
      `${c.id}: ${c.verdict} in the summary`,
    );
  }
  assert.ok(html.indexOf('id="dblab-run"') < html.indexOf("dblab-verdict-line"), "the summary follows the run header");
  assert.ok(html.indexOf("dblab-verdict-line") < html.indexOf("Medians and ratios"), "before the first table");
});

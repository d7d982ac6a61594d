// test-tier: shared — two smoke runs of 01 (embedded), then reproduce of 00 (Jupyter, Chromium), own folders
/**
 * lib/compare on real runs made here: notebook 01's run function (compiled, as a notebook calls
 * it) on the embedded PostgreSQL, `smoke` size, twice with shared_buffers changed between the runs
 * (parameter cacheGiB). The setting must show in the diff; a run compared with itself must show
 * every change as "~"; a run in progress must be refused; notebook 00 must export through
 * `npm run reproduce -- --only 00 --set runs=[…]` and its charts draw.
 */
import { after, before, test } from "node:test";
import assert from "node:assert/strict";
import { spawnSync } from "node:child_process";
import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import { compareRuns } from "../../lib/compare/compare";
import { compare } from "../../lib/compare/present";
import { formatMarkdown, formatText } from "../../lib/compare/format";
import { experiment } from "../../lib/experiments/index-write-cost";
import { summarise } from "../../lib/experiments/index-write-cost/summarise";
import { jupyterUnavailableReason } from "../../lib/jupyter/execute";
import { projectRoot } from "../../lib/jupyter/kernel-spec";
import { CompareInputError, readRun } from "../../lib/results/stored-runs";
import { assertNotebookFigures, checkReportRenders } from "../support/report-check";

const box = fs.mkdtempSync(path.join(os.tmpdir(), "dblab-compare-test-"));
const results = path.join(box, "results");
const savedResultsDir = process.env.DBLAB_RESULTS_DIR;
let runA = "";
let runB = "";

/** The smallest matrix that still has conditions to compare: 1,000 rows, 2 operations × 2 index counts, 2 repeats. */
const small = (cacheGiB: number) =>
  experiment.params("smoke", {
    target: "embedded",
    engines: ["postgresql"],
    rowCounts: [1000],
    batchSize: 500,
    operations: ["insert", "update_one_field"],
    extraIndexes: [0, 5],
    cacheGiB,
  });

async function smokeRun(cacheGiB: number): Promise<string> {
  const run = await experiment.run(small(cacheGiB), { profile: "smoke" });
  const summaries = summarise(run.trials);
  experiment.save(run, summaries, experiment.claims(summaries, run));
  return run.runId;
}

before(async () => {
  process.env.DBLAB_RESULTS_DIR = results;
  runA = await smokeRun(1);
  runB = await smokeRun(2);
});

after(() => {
  if (savedResultsDir === undefined) delete process.env.DBLAB_RESULTS_DIR;
  else process.env.DBLAB_RESULTS_DIR = savedResultsDir;
  fs.rmSync(box, { recursive: true, force: true });
});

test("two smoke runs with shared_buffers changed: the setting is in the diff, as the server reports it", () => {
  const c = compareRuns([runA, runB]);
  const diff = new Map(c.config.map((r) => [r.field, r.values]));
  assert.deepEqual(diff.get("postgresql setting shared_buffers (asked)"), ["1GB", "2GB"]);
  assert.deepEqual(
    diff.get("postgresql setting shared_buffers"),
    ["131072 8kB", "262144 8kB"],
    "pg_settings' own value",
  );
  assert.deepEqual(diff.get("cacheGiB"), ["1", "2"]);
  assert.ok(!diff.has("postgresql setting port"), "ports differ per instance and are no configuration");
  assert.ok(!diff.has("postgresql version") && !diff.has("commit"), "what did not change is not listed");
  assert.equal(c.pairs[0].common, 4);
  assert.ok(
    c.runs.every((r) => r.state === "finished"),
    "finishedAt recorded by the session",
  );
  assert.ok(c.pairs[0].verdicts && c.pairs[0].verdicts.length > 0, "verdicts read from summary.json");
  const text = formatText(c);
  assert.match(text, /What differed[\s\S]*shared_buffers[\s\S]*per condition/, "the diff comes first");
  assert.match(formatMarkdown(c), /\| server \| postgresql setting shared_buffers \| 131072 8kB \| 262144 8kB \|/);
});

test("a run compared with itself: every change is ~ and no configuration differs", () => {
  // lab.compare(a, b) as a notebook cell calls it (outside a kernel its tables go nowhere).
  assert.equal(compare(runA, runA).pairs[0].distinguishable, 0);
  const c = compareRuns([runA, runA], { regressionThreshold: 0 });
  assert.equal(c.config.length, 0);
  for (const r of c.pairs[0].rows) {
    assert.equal(r.change?.distinguishable, false, r.label);
    assert.equal(r.regression, false);
  }
  const rows = formatText(c)
    .split("\n")
    .filter((l) => /operation=/.test(l));
  assert.equal(rows.length, 4);
  for (const l of rows) assert.match(l, /~ \(p=1\.000\)$/);
});

test("a run in progress is refused; interrupted, it is listed as stopped", async () => {
  const controller = new AbortController();
  const running = experiment.run(
    experiment.params("smoke", { ...small(1), rowCounts: [20_000], repeats: 3, maxRepeats: 3 }),
    {
      signal: controller.signal,
    },
  );
  const seen = () => fs.readdirSync(results).filter((d) => ![runA, runB].includes(d));
  // Wait for its metadata (written once the server is up), then ask while trials are running.
  let id = "";
  for (let i = 0; i < 600 && !id; i++) {
    await new Promise((r) => setTimeout(r, 50));
    id = seen().find((d) => fs.existsSync(path.join(results, d, "metadata.json"))) ?? "";
  }
  assert.ok(id, "the run wrote its metadata");
  assert.throws(
    () => compareRuns([runA, id]),
    (e: unknown) => e instanceof CompareInputError && /still in progress .*process \d+ is alive/.test(e.message),
  );
  controller.abort();
  await assert.rejects(running);
  const stopped = readRun(path.join(results, id));
  assert.equal(stopped.state, "stopped");
  assert.equal(stopped.metadata?.outcome, "interrupted");
});

test(
  "notebook 00 exports through npm run reproduce -- --only 00 --set runs=[…]; its charts draw",
  { timeout: 300_000 },
  async (t) => {
    const script = path.join(projectRoot(), "build", "scripts", "reproduce.js");
    const reproduce = (args: string[]) =>
      spawnSync(process.execPath, [script, ...args], {
        env: { ...process.env, DBLAB_RESULTS_DIR: results },
        encoding: "utf8",
        timeout: 280_000,
      });
    const refused = reproduce(["--only", "00"]);
    assert.equal(refused.status, 2, refused.stderr);
    assert.match(refused.stderr, /00 .* needs --set runs=/);
    const missing = jupyterUnavailableReason();
    if (missing) return t.skip(`Jupyter not available: ${missing}`);
    const reports = path.join(box, "reports");
    const out = reproduce([
      "--profile",
      "smoke",
      "--only",
      "00",
      "--set",
      `runs=["${runA}","latest of notebook 01"]`,
      "--reports-dir",
      reports,
    ]);
    assert.equal(out.status, 0, `${out.stdout}\n${out.stderr}`);
    const html = path.join(reports, "00-compare-runs.html");
    assert.match(fs.readFileSync(html, "utf8"), /shared_buffers/);
    let check;
    try {
      check = await checkReportRenders(html);
    } catch (e) {
      if (e instanceof Error && e.message.startsWith("SKIP:")) return t.skip(e.message);
      throw e;
    }
    assert.equal(check.charts, 2);
    assert.equal(check.svgCharts, 2, "both charts drew");
    assert.deepEqual(check.consoleErrors, []);
    await assertNotebookFigures(path.join(reports, "00-compare-runs.ipynb"), check, assert.deepEqual);
  },
);

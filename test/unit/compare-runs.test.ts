/**
 * lib/compare on hand-made run directories (server-free): bad input is refused before anything is
 * computed, the regression gate fires only on a distinguishable change beyond the threshold, and
 * `npm run runs` lists broken directories instead of crashing. Real runs: test/integration/compare.test.ts.
 */
import { after, test } from "node:test";
import assert from "node:assert/strict";
import { spawnSync } from "node:child_process";
import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import { compareRuns, defaultMetric } from "../../lib/compare/compare";
import { formatJson, formatMarkdown, formatText } from "../../lib/compare/format";
import { CompareInputError, findVerdicts, listRuns, readRun, resolveRun } from "../../lib/results/stored-runs";
import { parseArgs, plan } from "../../scripts/reproduce";
import { EXPERIMENTS } from "../../lib/experiments/registry";

interface FakeRun {
  readonly id: string;
  readonly notebook?: string;
  /** seconds per condition key → values */
  readonly values: Record<string, number[]>;
  readonly finished?: boolean;
  readonly ownerPid?: number;
  readonly settings?: Record<string, string>;
  readonly claims?: unknown;
}

function writeRun(root: string, r: FakeRun): string {
  const dir = path.join(root, r.id);
  fs.mkdirSync(dir, { recursive: true });
  const notebook = r.notebook ?? "01-index-write-cost";
  const params = { rows: 1000, repeats: 5 };
  fs.writeFileSync(path.join(dir, "params.json"), JSON.stringify(params));
  const metadata = {
    runId: r.id,
    notebook,
    profile: "smoke",
    startedAt: `2026-11-30T10:00:0${r.id.slice(-1)}.000Z`,
    host: { cpuModel: "Test CPU", cpus: 2, memoryGiB: 24, platform: "linux-x64", kernel: "6", node: "v20" },
    gitCommit: "abc123",
    servers: [
      {
        engine: "postgresql",
        kind: "embedded",
        version: "17.6",
        source: "embedded",
        settings: r.settings ?? {},
        address: "127.0.0.1:1",
      },
    ],
    params,
    serverSettings: { postgresql: { ...(r.settings ?? {}), port: String(40000 + r.id.length) } },
    owner: { pid: r.ownerPid ?? 999_999_999, host: os.hostname() },
    ...(r.finished === false ? {} : { finishedAt: "2026-11-30T10:01:00.000Z", outcome: "finished" }),
  };
  fs.writeFileSync(path.join(dir, "metadata.json"), JSON.stringify(metadata));
  const lines = Object.entries(r.values).flatMap(([op, values]) =>
    values.map((seconds, i) =>
      JSON.stringify({
        key: `${op}/r${i}`,
        condition: { operation: op, rows: 1000 },
        repeat: i + 1,
        status: "ok",
        seconds,
        startedAt: "",
        finishedAt: "",
      }),
    ),
  );
  fs.writeFileSync(path.join(dir, "trials.jsonl"), `${lines.join("\n")}\n`);
  if (r.claims !== undefined) fs.writeFileSync(path.join(dir, "summary.json"), JSON.stringify(r.claims));
  return dir;
}

const base = { insert: [1.0, 1.02, 0.99, 1.01, 0.98], update: [2.0, 2.1, 1.9, 2.05, 1.95] };
const slower = { insert: [1.2, 1.22, 1.19, 1.21, 1.18], update: [2.0, 2.12, 1.88, 2.04, 1.97] };

/** The fixtures' results folders, removed when the file's tests end (run bare, the OS temp folder kept them). */
const roots: string[] = [];
after(() => {
  for (const r of roots) fs.rmSync(r, { recursive: true, force: true });
});

function tempRoot(): string {
  const root = fs.mkdtempSync(path.join(os.tmpdir(), "dblab-compare-unit-"));
  roots.push(root);
  return root;
}

function fixture(): string {
  const root = tempRoot();
  const claims = (v: string) => ({
    summaries: [],
    claims: [{ id: "a", claim: "inserts cost", seed: "", ours: "", verdict: v, why: `because ${v}` }],
  });
  writeRun(root, { id: "20261130T100001_01-index-write-cost_aaa1", values: base, claims: claims("held") });
  writeRun(root, {
    id: "20261130T100002_01-index-write-cost_bbb2",
    values: slower,
    settings: { synchronous_commit: "on" },
    claims: claims("did not hold"),
  });
  writeRun(root, { id: "20261130T100003_03-over-indexing_ccc3", notebook: "03-over-indexing", values: base });
  writeRun(root, {
    id: "20261130T100004_01-index-write-cost_ddd4",
    values: base,
    finished: false,
    ownerPid: process.pid,
  });
  writeRun(root, { id: "20261130T100005_01-index-write-cost_eee5", values: { delete: [1, 2, 3] } });
  fs.mkdirSync(path.join(root, "20261130T100006_01-index-write-cost_fff6"));
  fs.writeFileSync(path.join(root, "20261130T100006_01-index-write-cost_fff6", "params.json"), "{}");
  return root;
}

test("a run compared with itself: every change is ~ and nothing differs", () => {
  const root = fixture();
  const c = compareRuns(["20261130T100001", "20261130T100001"], { root, regressionThreshold: 0 });
  assert.equal(c.config.length, 0);
  assert.equal(c.pairs[0].common, 2);
  for (const r of c.pairs[0].rows) {
    assert.equal(r.change!.distinguishable, false);
    assert.equal(r.change!.test.p, 1);
    assert.equal(r.regression, false);
  }
  assert.match(formatText(c), /nothing: same configuration/);
  assert.equal((formatText(c).match(/~ \(p=1\.000\)/g) ?? []).length, 2);
});

test("20 % slower insert flagged, unchanged update not; the setting in the diff; verdicts side by side", () => {
  const root = fixture();
  const c = compareRuns(["20261130T100001", "20261130T100002"], { root, regressionThreshold: 0.05 });
  const byOp = new Map(c.pairs[0].rows.map((r) => [String(r.condition.operation), r]));
  assert.equal(byOp.get("insert")!.change!.distinguishable, true);
  assert.equal(byOp.get("insert")!.regression, true);
  assert.equal(byOp.get("update")!.change!.distinguishable, false);
  assert.equal(c.pairs[0].regressions, 1);
  const fields = c.config.map((r) => `${r.field}: ${r.values.join(" → ")}`);
  assert.ok(fields.includes("postgresql setting synchronous_commit: — → on"), fields.join("\n"));
  assert.ok(!fields.some((f) => f.includes("port")), "per-instance settings (port) are not configuration");
  assert.deepEqual(c.pairs[0].verdicts, [
    {
      id: "a",
      claim: "inserts cost",
      a: "held",
      b: "did not hold",
      whyA: "because held",
      whyB: "because did not hold",
      changed: true,
    },
  ]);
  assert.equal(
    compareRuns(["20261130T100001", "20261130T100002"], { root, regressionThreshold: 0.5 }).pairs[0].regressions,
    0,
    "20 % < 50 %",
  );
  const md = formatMarkdown(c);
  assert.match(md, /\| extraIndexes|\| operation=insert \|/);
  assert.match(md, /REGRESSION/);
  assert.equal((JSON.parse(formatJson(c)) as { regressions: number }).regressions, 1);
});

test("bad input is refused with a clear message before anything is computed", () => {
  const root = fixture();
  const refused = (refs: string[], pattern: RegExp) =>
    assert.throws(
      () => compareRuns(refs, { root }),
      (e: unknown) => e instanceof CompareInputError && pattern.test(e.message),
    );
  refused(["nope", "20261130T100001"], /no run "nope"/);
  refused(["20261130T10000", "20261130T100001"], /names 6 runs/);
  refused(["20261130T100001", "20261130T100003"], /different notebooks[\s\S]*03-over-indexing/);
  refused(["20261130T100001", "20261130T100004"], /still in progress .*process \d+ is alive/);
  refused(["20261130T100001", "20261130T100005"], /no condition in common/);
  refused(["20261130T100001", "20261130T100006"], /cannot be compared: no metadata\.json/);
  refused(["20261130T100001"], /at least two runs/);
  refused(["latest of notebook 07", "20261130T100001"], /no finished run of notebook 07/);
  // "latest of notebook 01" skips the run in progress.
  assert.equal(resolveRun("latest of notebook 01", root).id, "20261130T100005_01-index-write-cost_eee5");
});

test("listing: newest first, half-written and removed directories described, verdicts found wherever kept", () => {
  const root = fixture();
  const runs = listRuns(root);
  assert.equal(runs.length, 6);
  // Half-written runs (no startedAt) sort by the stamp in their id, among the others.
  fs.mkdirSync(path.join(root, "20261130T095900_01-index-write-cost_old0"));
  assert.deepEqual(
    listRuns(root).map((r) => r.id.slice(-4)),
    ["fff6", "eee5", "ddd4", "ccc3", "bbb2", "aaa1", "old0"],
  );
  assert.equal(runs.find((r) => r.id.endsWith("fff6"))!.state, "half-written");
  assert.equal(runs.find((r) => r.id.endsWith("ddd4"))!.state, "in progress");
  assert.equal(readRun(path.join(root, "gone_01-index-write-cost_0000")).state, "removed");
  fs.appendFileSync(path.join(root, "20261130T100001_01-index-write-cost_aaa1", "trials.jsonl"), '{"key":"torn');
  const torn = readRun(path.join(root, "20261130T100001_01-index-write-cost_aaa1"));
  assert.equal(torn.trials.length, 10);
  assert.match(torn.problems.join(), /torn/);
  assert.equal(findVerdicts({ summaries: [] }), undefined);
  assert.deepEqual(findVerdicts({ report: { claims: [{ id: "x", verdict: "held" }] } }), [
    { id: "x", claim: "x", verdict: "held", why: "" },
  ]);
});

test("npm run compare / npm run runs: exit 2 on bad input, 1 on a regression, 0 otherwise; runs never crash", () => {
  const root = fixture();
  const cli = (script: string, args: string[]) =>
    spawnSync(process.execPath, [path.resolve(__dirname, "..", "..", "scripts", script), ...args], {
      env: { ...process.env, DBLAB_RESULTS_DIR: root },
      encoding: "utf8",
    });
  const unknown = cli("compare.js", ["nope", "20261130T100001"]);
  assert.equal(unknown.status, 2, unknown.stderr);
  assert.match(unknown.stderr, /compare: no run "nope"/);
  const gate = cli("compare.js", ["--fail-on-regression", "5%", "20261130T100001", "20261130T100002"]);
  assert.equal(gate.status, 1, gate.stderr);
  assert.match(gate.stderr, /1 regression/);
  assert.equal(cli("compare.js", ["--fail-on-regression", "50%", "20261130T100001", "20261130T100002"]).status, 0);
  const json = cli("compare.js", ["--format", "json", "20261130T100001", "20261130T100002"]);
  assert.equal((JSON.parse(json.stdout) as { pairs: { common: number }[] }).pairs[0].common, 2);
  const runs = cli("runs.js", ["--notebook", "01"]);
  assert.equal(runs.status, 0, runs.stderr);
  assert.match(runs.stdout, /fff6 .*half-written/);
  assert.doesNotMatch(runs.stdout, /03-over-indexing/);
});

test("npm run reproduce plans every experiment by default; 00 only when asked or when runs are given", () => {
  const root = path.resolve(__dirname, "..", "..", "..");
  // The experiments, from the registry (a new notebook joins without editing this test), in id order.
  const experiments = EXPERIMENTS.filter((e) => !e.requires).map((e) => e.id);
  assert.deepEqual(experiments.slice(0, 6), ["01", "02", "03", "04", "05", "06"]);
  assert.deepEqual(
    plan(parseArgs([]), root).map((p) => p.entry.id),
    experiments,
  );
  assert.throws(() => plan(parseArgs(["--only", "00"]), root), /00 .* needs --set runs=/);
  const fixtures = fixture();
  const saved = process.env.DBLAB_RESULTS_DIR;
  process.env.DBLAB_RESULTS_DIR = fixtures;
  try {
    const ids = plan(parseArgs(["--set", 'runs=["20261130T100001","20261130T100002"]']), root).map((p) => p.entry.id);
    assert.deepEqual(ids, [...experiments, "00"]);
    assert.throws(
      () => plan(parseArgs(["--only", "00", "--set", 'runs=["20261130T100001","20261130T100003"]']), root),
      /different notebooks/,
    );
  } finally {
    if (saved === undefined) delete process.env.DBLAB_RESULTS_DIR;
    else process.env.DBLAB_RESULTS_DIR = saved;
  }
});

test("notebooks 03/04 are judged by pgbench TPS: a drop is the regression, a rise is not", () => {
  const root = tempRoot();
  const tpsRun = (id: string, tps: number[]) => {
    const dir = writeRun(root, { id, notebook: "03-over-indexing", values: {} });
    const lines = tps.map((v, i) =>
      JSON.stringify({
        key: `idx7/r${i}`,
        condition: { level: 7 },
        repeat: i + 1,
        status: "ok",
        seconds: 60,
        pgbench: { summary: { tps: v } },
        startedAt: "",
        finishedAt: "",
      }),
    );
    fs.writeFileSync(path.join(dir, "trials.jsonl"), `${lines.join("\n")}\n`);
  };
  tpsRun("20261130T100001_03-over-indexing_aaa1", [1000, 1010, 990, 1005, 995]);
  tpsRun("20261130T100002_03-over-indexing_bbb2", [800, 810, 790, 805, 795]);
  const down = compareRuns(["20261130T100001", "20261130T100002"], { root, regressionThreshold: 0.05 });
  assert.equal(down.metric.name, "tps");
  assert.equal(down.pairs[0].regressions, 1, "20 % fewer transactions per second");
  const up = compareRuns(["20261130T100002", "20261130T100001"], { root, regressionThreshold: 0.05 });
  assert.equal(up.pairs[0].rows[0].change?.distinguishable, true);
  assert.equal(up.pairs[0].regressions, 0, "more TPS is better");
  assert.equal(
    compareRuns(["20261130T100001", "20261130T100002"], { root, metric: "seconds" }).pairs[0].distinguishable,
    0,
  );
});

test("conditions present in only one run are listed as such, not compared", () => {
  const root = fixture();
  writeRun(root, {
    id: "20261130T100007_01-index-write-cost_ggg7",
    values: { insert: base.insert, delete: [3, 3.1, 2.9] },
  });
  const c = compareRuns(["20261130T100001", "20261130T100007"], { root });
  const only = c.pairs[0].rows.filter((r) => r.only).map((r) => `${r.label} only in ${r.only}`);
  assert.deepEqual(only, ["operation=update only in A", "operation=delete only in B"]);
  assert.equal(c.pairs[0].common, 1);
  assert.match(formatText(c), /operation=update\s+only in A[\s\S]*operation=delete\s+only in B/);
});

test("the default metric is read off the trials: TPS when every finished trial is a pgbench run, else seconds", () => {
  const pg = { key: "a", condition: {}, repeat: 1, status: "ok", seconds: 30, pgbench: { summary: { tps: 900 } } };
  const timed = { key: "b", condition: {}, repeat: 1, status: "ok", seconds: 1.2 };
  const failed = { key: "c", condition: {}, repeat: 1, status: "failed" };
  const m = (trials: readonly object[]) => defaultMetric(trials as Parameters<typeof defaultMetric>[0]).name;
  assert.equal(m([pg, pg, failed]), "tps");
  assert.equal(m([pg, timed]), "seconds");
  assert.equal(m([timed]), "seconds");
  assert.equal(m([]), "seconds");
});

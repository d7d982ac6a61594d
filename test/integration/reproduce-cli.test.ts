// test-tier: shared — reproduce of 01 (Jupyter, embedded) into its own folders
/**
 * `npm run reproduce` as a user runs it (the built script, real Jupyter, embedded PostgreSQL):
 * bad arguments are refused before a kernel starts, and a run writes its reports and run.json
 * (what `npm run bench` quotes as turnaround) where --reports-dir says.
 */
import { after, test } from "node:test";
import assert from "node:assert/strict";
import { spawnSync } from "node:child_process";
import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import { jupyterUnavailableReason } from "../../lib/jupyter/execute";
import { projectRoot } from "../../lib/jupyter/kernel-spec";
import { EXPERIMENTS } from "../../lib/experiments/registry";
import type { TurnaroundRecord } from "../../scripts/reproduce";

const REPRODUCE = path.join(projectRoot(), "build", "scripts", "reproduce.js");
const box = fs.mkdtempSync(path.join(os.tmpdir(), "dblab-reproduce-test-"));
after(() => fs.rmSync(box, { recursive: true, force: true }));

function reproduce(args: string[]): { status: number | null; stdout: string; stderr: string } {
  const out = spawnSync(process.execPath, [REPRODUCE, ...args], {
    env: { ...process.env, DBLAB_TARGET: "embedded", DBLAB_RESULTS_DIR: path.join(box, "results") },
    encoding: "utf8",
    timeout: 600_000,
  });
  return { status: out.status, stdout: out.stdout, stderr: out.stderr };
}

test("reproduce refuses bad arguments with exit 2 and names the problem", () => {
  const cases: [string[], RegExp][] = [
    [["--profile", "huge"], /profile/i],
    [["--only", "09"], /09/],
    [["--set", "rowCounts=[0]", "--only", "01"], /rowCounts/],
    [["--set", "noSuchKey=1"], /unknown parameter "noSuchKey"/],
    [["--set", '__proto__={"rowCounts":[1]}'], /unknown parameter "__proto__"/],
    [["--reports-dir"], /--reports-dir needs a value/],
  ];
  for (const [args, message] of cases) {
    const out = reproduce(args);
    assert.equal(out.status, 2, `${args.join(" ")}: ${out.stderr}`);
    assert.match(out.stderr, message, args.join(" "));
  }
});

test("reproduce --profile full --eta-only prints each notebook's ETA and starts nothing", () => {
  const reports = path.join(box, "eta-reports");
  const out = reproduce(["--profile", "full", "--eta-only", "--reports-dir", reports]);
  assert.equal(out.status, 0, `${out.stdout}\n${out.stderr}`);
  const lines = out.stdout.split("\n").filter((l) => l.startsWith("ETA "));
  assert.deepEqual(
    lines.map((l) => l.slice(4, 6)),
    EXPERIMENTS.filter((e) => e.estimate).map((e) => e.id),
    "one line per modelled notebook (00 is not)",
  );
  for (const line of lines)
    assert.match(line, /: about \d+ (s|min|h)\b.* here.*; resumable with npm run reproduce -- --resume <run-id>$/);
  // Lower bounds only (a loaded machine only adds; an upper bound on an estimate would assert a timing):
  // 03's five 5-minute rounds of five levels are 2 h 5 min, 06's full profile 5 rounds of 13 one-minute runs.
  const line = (id: string) => lines.find((l) => l.startsWith(`ETA ${id}-`)) ?? `no ETA line for ${id}`;
  const minutes = (text: string): number => {
    const m = /: about (?:(\d+) h)? ?(?:(\d+) min)?/.exec(text);
    return m ? Number(m[1] ?? 0) * 60 + Number(m[2] ?? 0) : NaN;
  };
  assert.ok(minutes(line("03")) >= 120, line("03"));
  assert.ok(minutes(line("06")) >= 60, line("06"));
  assert.match(line("06"), /; 65 trials/);
  assert.ok(!fs.existsSync(reports), "no run started: no reports folder");
});

test("reproduce writes reports and run.json into --reports-dir", { timeout: 600_000 }, (t) => {
  const missing = jupyterUnavailableReason();
  if (missing) return t.skip(`Jupyter not available: ${missing}`);
  const reports = path.join(box, "reports");
  const out = reproduce([
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
  ]);
  assert.equal(out.status, 0, `${out.stdout}\n${out.stderr}`);
  for (const f of ["01-index-write-cost.html", "01-index-write-cost.ipynb", "index.html", "run.json"]) {
    assert.ok(fs.existsSync(path.join(reports, f)), `${f} written`);
  }
  const run = JSON.parse(fs.readFileSync(path.join(reports, "run.json"), "utf8")) as TurnaroundRecord;
  assert.equal(run.profile, "smoke");
  assert.deepEqual(run.overrides, { rowCounts: [600], engines: ["postgresql"] });
  assert.equal(run.notebooks.length, 1);
  const [nb] = run.notebooks;
  assert.equal(nb.status, "ok");
  assert.ok(
    nb.seconds !== null && nb.seconds > 0 && nb.seconds <= run.totalSeconds,
    `notebook ${nb.seconds} s within the run's ${run.totalSeconds} s`,
  );
  assert.ok(
    nb.kernelStartSeconds !== null && nb.kernelStartSeconds > 0 && nb.kernelStartSeconds < nb.seconds,
    "kernel start recorded",
  );
});

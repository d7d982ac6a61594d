// test-tier: shared — reproduce of 01 (Jupyter, embedded) signalled and resumed, its own folders
/**
 * Headless resume as a user meets it: `npm run reproduce` of 01 (smoke, embedded) sent SIGTERM once
 * a trial is on disk says what it kept and the command that resumes; that command refuses a --set
 * that changes a parameter (exit 2, nothing run), and then continues the run to its end, printing
 * what it skipped and what it ran, without finishing any trial twice.
 */
import { after, test } from "node:test";
import assert from "node:assert/strict";
import { spawn, spawnSync } from "node:child_process";
import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import { jupyterUnavailableReason } from "../../lib/jupyter/execute";
import { projectRoot } from "../../lib/jupyter/kernel-spec";

const REPRODUCE = path.join(projectRoot(), "build", "scripts", "reproduce.js");
const box = fs.mkdtempSync(path.join(os.tmpdir(), "dblab-resume-test-"));
after(() => fs.rmSync(box, { recursive: true, force: true }));
const results = path.join(box, "results");
const env = { ...process.env, DBLAB_TARGET: "embedded", DBLAB_RESULTS_DIR: results, DBLAB_PULL: "never" };
const SMOKE = ["--profile", "smoke", "--only", "01", "--set", "rowCounts=[10000]", "--set", 'engines=["postgresql"]'];

interface Trial {
  readonly key: string;
  readonly status: string;
}

function trialsOf(dir: string): Trial[] {
  const file = path.join(dir, "trials.jsonl");
  if (!fs.existsSync(file)) return [];
  return fs
    .readFileSync(file, "utf8")
    .split("\n")
    .filter((l) => l.trim())
    .flatMap((l) => {
      try {
        return [JSON.parse(l) as Trial];
      } catch {
        return []; // a line being written as we read
      }
    });
}

function runDirs(): string[] {
  return fs.existsSync(results) ? fs.readdirSync(results).map((d) => path.join(results, d)) : [];
}

test(
  "SIGTERM mid-run, then `reproduce --resume <id>`: refused with a changed --set, then finished, no trial twice",
  {
    timeout: 600_000,
  },
  async (t) => {
    const missing = jupyterUnavailableReason();
    if (missing) return t.skip(`Jupyter not available: ${missing}`);
    const reports = path.join(box, "reports");
    const child = spawn(process.execPath, [REPRODUCE, ...SMOKE, "--reports-dir", reports], { env });
    let output = "";
    child.stdout.on("data", (d: Buffer) => (output += d.toString()));
    child.stderr.on("data", (d: Buffer) => (output += d.toString()));
    const exited = new Promise<number | null>((resolve) => child.on("close", (code) => resolve(code)));
    // Once a trial is on disk, as a user would press Ctrl-C or a CI job would be cancelled.
    const deadline = Date.now() + 300_000;
    let ended = false;
    void exited.then(() => (ended = true));
    while (!ended && Date.now() < deadline && !runDirs().some((d) => trialsOf(d).some((x) => x.status === "ok"))) {
      await new Promise((r) => setTimeout(r, 100));
    }
    assert.ok(!ended, `the run ended before a trial was on disk:\n${output}`);
    child.kill("SIGTERM");
    const code = await exited;
    assert.equal(code, 128 + os.constants.signals.SIGTERM, output);
    const [dir] = runDirs();
    const runId = path.basename(dir);
    const kept = trialsOf(dir).filter((x) => x.status === "ok");
    assert.ok(kept.length >= 1, "a finished trial was kept");
    assert.ok(
      output.includes(`resume with: npm run reproduce -- --resume ${runId}`),
      `the stopped run gives the command that resumes it:\n${output}`,
    );
    assert.match(output, new RegExp(`${kept.length} finished trial\\(s\\) kept`));
    assert.doesNotMatch(output, /UncaughtException|unhandledRejection|Unhandled promise rejection/i);

    const lines = trialsOf(dir).length;
    const refused = spawnSync(process.execPath, [REPRODUCE, "--resume", runId, "--set", "rowCounts=[2000]"], {
      env,
      encoding: "utf8",
    });
    assert.equal(refused.status, 2, refused.stderr);
    assert.match(refused.stderr, /--set changes the parameters of run .*rowCounts: recorded \[10000\], given \[2000\]/);
    assert.equal(trialsOf(dir).length, lines, "a refused resume ran nothing");

    const resumed = spawnSync(process.execPath, [REPRODUCE, "--resume", "last", "--reports-dir", reports], {
      env,
      encoding: "utf8",
      timeout: 600_000,
    });
    assert.equal(resumed.status, 0, `${resumed.stdout}\n${resumed.stderr}`);
    assert.match(resumed.stdout, new RegExp(`Resuming ${runId} `));
    assert.match(resumed.stdout, new RegExp(`skipped ${kept.length} finished trial\\(s\\)`));
    assert.match(resumed.stdout, /ran \d+ trial\(s\) \(\d+ ok, 0 failed\)/);
    assert.doesNotMatch(resumed.stdout, /ran again/);
    assert.deepEqual(
      runDirs().map((d) => path.basename(d)),
      [runId],
      "the resume wrote into the same run",
    );
    const ok = trialsOf(dir).filter((x) => x.status === "ok");
    const keys = ok.map((x) => x.key);
    assert.equal(new Set(keys).size, keys.length, `no trial finished twice: ${keys.join(" ")}`);
    for (const k of kept) assert.ok(keys.includes(k.key), `${k.key} kept`);
    const metadata = JSON.parse(fs.readFileSync(path.join(dir, "metadata.json"), "utf8")) as { outcome?: string };
    assert.equal(metadata.outcome, "finished");
    const summary = JSON.parse(fs.readFileSync(path.join(reports, "run.json"), "utf8")) as {
      notebooks: { status: string }[];
    };
    assert.equal(summary.notebooks[0].status, "ok");
  },
);

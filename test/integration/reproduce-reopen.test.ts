// test-tier: shared — 07 at smoke (embedded) in-process, then `reproduce --reopen` of it (Jupyter), its own folders
/**
 * Reopening as a user meets it: a finished run of 07 shown again by `npm run reproduce -- --reopen <id>` gives a
 * new report that says the run was opened, not measured, with the run's claims table, in its own reports folder;
 * the run's files are left byte for byte and no run folder is added. Every refusal comes before a kernel starts.
 */
import { after, test } from "node:test";
import assert from "node:assert/strict";
import { spawnSync } from "node:child_process";
import { createHash } from "node:crypto";
import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import { jupyterUnavailableReason } from "../../lib/jupyter/execute";
import { projectRoot } from "../../lib/jupyter/kernel-spec";
import { experiment } from "../../lib/experiments/fillfactor-hot";
import { EXTRAS_FILE } from "../../lib/experiments/define";

const REPRODUCE = path.join(projectRoot(), "build", "scripts", "reproduce.js");
const box = fs.mkdtempSync(path.join(os.tmpdir(), "dblab-reopen-test-"));
after(() => fs.rmSync(box, { recursive: true, force: true }));
const results = path.join(box, "results");
const env = { ...process.env, DBLAB_RESULTS_DIR: results, DBLAB_PULL: "never" };

/** Every file of a run folder with its digest: what "left as it was" is checked against. */
const digests = (dir: string): Record<string, string> =>
  Object.fromEntries(
    fs
      .readdirSync(dir, { recursive: true, encoding: "utf8" })
      .filter((f) => fs.statSync(path.join(dir, f)).isFile())
      .sort()
      .map((f) => [
        f,
        createHash("sha256")
          .update(fs.readFileSync(path.join(dir, f)))
          .digest("hex"),
      ]),
  );

const reproduce = (...args: string[]) => spawnSync(process.execPath, [REPRODUCE, ...args], { env, encoding: "utf8" });

test(
  "reproduce --reopen shows a finished run again in a new report, leaves its files, refuses what it cannot show",
  {
    timeout: 600_000,
  },
  async (t) => {
    const missing = jupyterUnavailableReason();
    if (missing) return t.skip(`Jupyter not available: ${missing}`);
    const saved = process.env.DBLAB_RESULTS_DIR;
    process.env.DBLAB_RESULTS_DIR = results;
    let runId: string;
    let directory: string;
    try {
      const run = await experiment.run(experiment.params("smoke", { target: "embedded" }), { profile: "smoke" });
      ({ runId, directory } = run);
    } finally {
      if (saved === undefined) delete process.env.DBLAB_RESULTS_DIR;
      else process.env.DBLAB_RESULTS_DIR = saved;
    }
    const before = digests(directory);
    const reports = path.join(box, "reports");

    const shown = reproduce("--reopen", runId.slice(0, 30), "--reports-dir", reports);
    assert.equal(shown.status, 0, shown.stdout + shown.stderr);
    assert.match(shown.stdout, new RegExp(`Reopen 07-fillfactor-hot: run ${runId}, measured .* no server starts`));
    const html = fs.readFileSync(path.join(reports, "07-fillfactor-hot.html"), "utf8");
    assert.match(html, new RegExp(`Opened, not measured now: run ${runId}, measured `));
    assert.equal(html.match(/class="dblab-claim"/g)?.length, 6, "the run's six claims, judged again");
    assert.deepEqual(digests(directory), before, "the run's files are left byte for byte");
    assert.deepEqual(fs.readdirSync(results), [path.basename(directory)], "no run folder added");

    // Refused before a kernel starts (exit 2), each with its reason.
    const refusals: [string[], RegExp][] = [
      [["--reopen", runId, "--set", "rows=100"], /leave out --set and --profile/],
      [["--reopen", runId, "--only", "08"], /--only 08 with --reopen: run .* is of notebook 07/],
      [["--reopen", runId, "--resume", runId], /give one of them/],
      [["--reopen", "no-such-run"], /--reopen: no run "no-such-run"/],
    ];
    for (const [args, why] of refusals) {
      const r = reproduce(...args);
      assert.equal(r.status, 2, `${args.join(" ")}: ${r.stdout}${r.stderr}`);
      assert.match(r.stderr, why, args.join(" "));
    }
    // A run stored before runs kept what their workload returns.
    fs.rmSync(path.join(directory, EXTRAS_FILE));
    const old = reproduce("--reopen", runId);
    assert.equal(old.status, 2, old.stdout + old.stderr);
    assert.match(old.stderr, /cannot reopen run .*: it has no extras.json \(stored before runs kept one\)/);
  },
);

// test-tier: shared — embedded runs in child processes with their own state folders; kills only their pids
/**
 * Damage done for real: a runner killed with SIGKILL mid-trial, a database server killed mid-trial.
 * Afterwards nothing of the run may remain, no finished trial may be lost, and a resume completes.
 */
import { test } from "node:test";
import assert from "node:assert/strict";
import { spawn, spawnSync, type ChildProcess } from "node:child_process";
import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import { runDirectory, trialLines } from "../support/run-files";
import { isProcessAlive } from "../../lib/runtime/resource-registry";
import { portInUse } from "../../lib/targets/ports";

const FIXTURE = path.join(__dirname, "..", "fixtures", "run-index-write-cost.js");
const CLEAN = path.join(__dirname, "..", "..", "scripts", "clean.js");

interface Sandbox {
  readonly results: string;
  readonly state: string;
  readonly env: NodeJS.ProcessEnv;
}

function sandbox(): Sandbox {
  const base = fs.mkdtempSync(path.join(os.tmpdir(), "dblab-faults-"));
  const results = path.join(base, "results");
  const state = path.join(base, "state");
  return {
    results,
    state,
    env: { ...process.env, DBLAB_STATE_DIR: state, DBLAB_RESULTS_DIR: results, DBLAB_TARGET: "embedded" },
  };
}

function startRun(
  box: Sandbox,
  params: object,
  resumeId?: string,
): { child: ChildProcess; output: () => string; exited: Promise<number> } {
  const child = spawn(
    process.execPath,
    [FIXTURE, box.results, JSON.stringify(params), ...(resumeId ? [resumeId] : [])],
    {
      env: box.env,
      stdio: ["ignore", "pipe", "pipe"],
    },
  );
  let out = "";
  child.stdout.on("data", (d) => (out += String(d)));
  child.stderr.on("data", (d) => (out += String(d)));
  const exited = new Promise<number>((resolve) =>
    child.once("exit", (code, signal) => resolve(code ?? (signal ? -1 : 0))),
  );
  return { child, output: () => out, exited };
}

interface ServerRecord {
  readonly pid: number;
  readonly directory: string;
  readonly port: number;
}

function serverRecords(box: Sandbox): ServerRecord[] {
  const dir = path.join(box.state, "resources");
  if (!fs.existsSync(dir)) return [];
  return fs
    .readdirSync(dir)
    .filter((f) => f.endsWith(".json"))
    .map(
      (f) =>
        JSON.parse(fs.readFileSync(path.join(dir, f), "utf8")) as {
          resource: { pid: number; directory: string; description: string };
        },
    )
    .filter((r) => /embedded PostgreSQL pid \d+ port/.test(r.resource.description))
    .map((r) => ({
      pid: r.resource.pid,
      directory: r.resource.directory,
      port: Number(/port (\d+)/.exec(r.resource.description)![1]),
    }));
}

async function waitFor(what: string, condition: () => boolean, timeoutMs = 90_000): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  while (!condition()) {
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}`);
    await new Promise((r) => setTimeout(r, 100));
  }
}

// Long enough that a kill lands mid-run: ~24 trials of 20k rows.
const PARAMS = { engines: ["postgresql"], rowCounts: [20_000], repeats: 2, batchSize: 1000 };

test("kill -9 of the runner mid-trial: `npm run clean` leaves no server, directory, port or record", async () => {
  const box = sandbox();
  const run = startRun(box, PARAMS);
  try {
    await waitFor("the first finished trial", () => trialLines(box.results).length >= 1);
    const [server] = serverRecords(box);
    assert.ok(server, "the running server is recorded");
    run.child.kill("SIGKILL");
    await run.exited;
    assert.ok(isProcessAlive(server.pid), "the orphaned server outlives its runner (that is what the reaper is for)");

    const clean = spawnSync(process.execPath, [CLEAN], { env: box.env, encoding: "utf8" });
    assert.equal(clean.status, 0, clean.stderr);
    assert.match(clean.stdout, /removed embedded PostgreSQL pid \d+/);
    await waitFor("the server to exit", () => !isProcessAlive(server.pid), 10_000);
    assert.equal(fs.existsSync(server.directory), false, "data directory removed");
    assert.equal(await portInUse(server.port), false, "nothing listens on the server's port");
    assert.deepEqual(serverRecords(box), [], "no records left");
    assert.ok(
      trialLines(box.results).every((t) => t.status === "ok"),
      "finished trials are intact",
    );
  } finally {
    run.child.kill("SIGKILL");
    spawnSync(process.execPath, [CLEAN, "--quiet"], { env: box.env });
  }
});

test("database killed mid-trial: earlier trials intact, the failure recorded, cleanup complete, resume completes", async () => {
  const box = sandbox();
  const run = startRun(box, PARAMS);
  let runId = "";
  try {
    await waitFor("two finished trials", () => trialLines(box.results).length >= 2);
    const [server] = serverRecords(box);
    runId = path.basename(runDirectory(box.results)!);
    process.kill(server.pid, "SIGKILL");
    const code = await run.exited;
    assert.equal(code, 3, `the run stops with an error: ${run.output()}`);
    assert.match(run.output(), /FAILED Trial .* failed/);

    const lines = trialLines(box.results);
    const failed = lines.filter((t) => t.status === "failed");
    assert.equal(failed.length, 1, "exactly the interrupted trial is recorded as failed");
    assert.ok(String(failed[0].error).length > 0, "with its error");
    assert.ok(lines.filter((t) => t.status === "ok").length >= 2, "earlier trials intact");
    assert.equal(lines.at(-1)!.status, "failed", "the failure is the last record");

    assert.deepEqual(serverRecords(box), [], "the run removed its own records");
    assert.equal(fs.existsSync(server.directory), false, "and its data directory");

    const resumed = startRun(box, PARAMS, runId);
    assert.equal(await resumed.exited, 0, resumed.output());
    const after = trialLines(box.results);
    const ok = new Set(after.filter((t) => t.status === "ok").map((t) => t.key));
    assert.equal(ok.size, 24, "every planned trial finished once the run was resumed");
    assert.match(resumed.output(), new RegExp(`DONE ${runId}`));
  } finally {
    run.child.kill("SIGKILL");
    spawnSync(process.execPath, [CLEAN, "--quiet"], { env: box.env });
  }
});

test("SIGTERM to the runner: it stops its servers itself before exiting", async () => {
  const box = sandbox();
  const run = startRun(box, PARAMS);
  try {
    await waitFor("the first finished trial", () => trialLines(box.results).length >= 1);
    const [server] = serverRecords(box);
    run.child.kill("SIGTERM");
    assert.equal(await run.exited, 143);
    assert.equal(isProcessAlive(server.pid), false);
    assert.equal(fs.existsSync(server.directory), false);
    assert.deepEqual(serverRecords(box), []);
  } finally {
    run.child.kill("SIGKILL");
    spawnSync(process.execPath, [CLEAN, "--quiet"], { env: box.env });
  }
});

test("an interrupt inside a notebook kernel (SIGINT, process stays up) stops the workload and its servers", async () => {
  const box = sandbox();
  // DBLAB_IN_KERNEL: SIGINT does not end the process, as in a tslab kernel; the run must stop itself.
  const run = startRunWithEnv(box, PARAMS, { DBLAB_IN_KERNEL: "1" });
  try {
    await waitFor("the first finished trial", () => trialLines(box.results).length >= 1);
    const [server] = serverRecords(box);
    const before = trialLines(box.results).length;
    run.child.kill("SIGINT");
    assert.equal(await run.exited, 3, run.output());
    assert.match(run.output(), /interrupted: \d+ of \d+ trials kept in .*resumeId/);
    assert.equal(isProcessAlive(server.pid), false, "server stopped");
    assert.equal(fs.existsSync(server.directory), false);
    assert.ok(trialLines(box.results).length <= before + 1, "no trial started after the interrupt");
    assert.deepEqual(serverRecords(box), []);
  } finally {
    run.child.kill("SIGKILL");
    spawnSync(process.execPath, [CLEAN, "--quiet"], { env: box.env });
  }
});

function startRunWithEnv(box: Sandbox, params: object, env: NodeJS.ProcessEnv): ReturnType<typeof startRun> {
  return startRun({ ...box, env: { ...box.env, ...env } }, params);
}

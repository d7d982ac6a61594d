// test-tier: shared — an embedded run in a child with its own state folder; SIGSTOPs only its own server
/**
 * A frozen server (SIGSTOP of all its processes) during a trial of notebook 01's experiment
 * (measured without the watchdog: 4 min 22 s frozen, no message, then recorded "ok" with 261.99 s).
 * With the watchdog's bound set small by DBLAB_STALL_SECONDS, the run must end with a clear error naming the server and
 * the trial, record that trial as failed, and leave no server process, directory or record behind.
 */
import { test } from "node:test";
import assert from "node:assert/strict";
import { spawn, spawnSync } from "node:child_process";
import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import { trialLines } from "../support/run-files";
import { processTree } from "../../lib/runtime/reaper";
import { isProcessAlive } from "../../lib/runtime/resource-registry";

const FIXTURE = path.join(__dirname, "..", "fixtures", "run-index-write-cost.js");
const CLEAN = path.join(__dirname, "..", "..", "scripts", "clean.js");
const BOUND_SECONDS = 3;

function signalAll(pids: readonly number[], sig: NodeJS.Signals): void {
  for (const pid of pids) {
    try {
      process.kill(pid, sig);
    } catch {
      // gone
    }
  }
}

function serverRecord(state: string): { pid: number; directory: string } | undefined {
  const dir = path.join(state, "resources");
  if (!fs.existsSync(dir)) return undefined;
  for (const name of fs.readdirSync(dir)) {
    const r = JSON.parse(fs.readFileSync(path.join(dir, name), "utf8")) as {
      resource: { pid?: number; directory?: string; description: string };
    };
    if (/embedded PostgreSQL pid \d+ port/.test(r.resource.description) && r.resource.pid && r.resource.directory) {
      return { pid: r.resource.pid, directory: r.resource.directory };
    }
  }
  return undefined;
}

async function waitFor(what: string, condition: () => boolean, timeoutMs = 120_000): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  while (!condition()) {
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}`);
    await new Promise((r) => setTimeout(r, 50));
  }
}

test("a frozen server (SIGSTOP) ends the trial with a clear error within the watchdog's bound and leaves nothing behind", async () => {
  const base = fs.mkdtempSync(path.join(os.tmpdir(), "dblab-stall-"));
  const results = path.join(base, "results");
  const state = path.join(base, "state");
  const env = {
    ...process.env,
    DBLAB_STATE_DIR: state,
    DBLAB_RESULTS_DIR: results,
    DBLAB_TARGET: "embedded",
    DBLAB_STALL_SECONDS: String(BOUND_SECONDS),
  };
  // Many small trials: one is always running when the server is frozen.
  const params = { engines: ["postgresql"], rowCounts: [20_000], repeats: 2, batchSize: 1000 };
  const child = spawn(process.execPath, [FIXTURE, results, JSON.stringify(params)], {
    env,
    stdio: ["ignore", "pipe", "pipe"],
  });
  let out = "";
  child.stdout.on("data", (d: Buffer) => (out += String(d)));
  child.stderr.on("data", (d: Buffer) => (out += String(d)));
  let exitCode: number | null | undefined;
  child.once("exit", (code) => (exitCode = code));
  let frozen: number[] = [];
  try {
    await waitFor("the first finished trial", () => trialLines(results).length >= 1);
    const server = serverRecord(state);
    assert.ok(server, "the running server is recorded");
    frozen = processTree(server.pid);
    signalAll(frozen, "SIGSTOP");
    const finishedBefore = trialLines(results).length;

    // Bounded: the run ends by itself (a run that hangs fails this wait, not a timing check).
    await waitFor("the run to end after the stall", () => exitCode !== undefined, 90_000);
    assert.equal(exitCode, 3, out);
    assert.match(
      out,
      /FAILED Trial \S+ failed: The PostgreSQL \S+ server \(embedded, 127\.0\.0\.1:\d+\) stalled: no progress and no answer to a liveness probe/,
    );
    assert.match(out, /while trial postgresql\/20000\/\S+; the server was stopped/);

    const after = trialLines(results);
    const failed = after.filter((t) => t.status === "failed");
    assert.equal(failed.length, 1, "the stalled trial is recorded as failed, not as a result");
    assert.match(String(failed[0].error), /stalled/);
    assert.ok(after.filter((t) => t.status === "ok").length >= finishedBefore - 1, "earlier trials intact");

    for (const pid of frozen) assert.equal(isProcessAlive(pid), false, `server process ${pid} is gone`);
    assert.equal(fs.existsSync(server.directory), false, "the data directory is removed");
    const records = path.join(state, "resources");
    assert.deepEqual(fs.existsSync(records) ? fs.readdirSync(records) : [], [], "no records left");
  } finally {
    signalAll(frozen, "SIGCONT"); // so that a failed test does not leave frozen processes to the cleanup
    child.kill("SIGKILL");
    spawnSync(process.execPath, [CLEAN, "--quiet"], { env });
    fs.rmSync(base, { recursive: true, force: true });
  }
});

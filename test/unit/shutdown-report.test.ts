/**
 * A SIGTERM to a process with a run going: the shutdown hooks stop its servers and abort the run,
 * and the process exits only after the run has ended and its caller has said what it kept. Without
 * the wait, a script SIGTERMed mid-load exited as soon as its servers were stopped and printed
 * nothing (seen on a loaded machine). A child process, no servers: the run ends 300 ms after the abort.
 */
import { test } from "node:test";
import assert from "node:assert/strict";
import { spawn } from "node:child_process";
import fs from "node:fs";
import os from "node:os";
import path from "node:path";

const runtime = path.resolve(__dirname, "..", "..", "lib", "runtime");

function runChild(endAfterMs: number): Promise<{ code: number | null; out: string }> {
  const script = `
    const { installShutdownHooks } = require(${JSON.stringify(path.join(runtime, "shutdown.js"))});
    const interrupt = require(${JSON.stringify(path.join(runtime, "interrupt.js"))});
    installShutdownHooks();
    const signal = interrupt.interruptSignal();
    const run = async () => {
      try {
        await new Promise((_, reject) =>
          signal.addEventListener("abort", () => setTimeout(() => reject(signal.reason), ${endAfterMs})),
        );
      } finally {
        interrupt.endInterruptible(signal);
      }
    };
    // As a script does: its own exit code for a failed run.
    run().catch((e) => {
      console.log("caught: " + e.message);
      process.exit(3);
    });
    console.log("ready");
    setInterval(() => undefined, 1000);
  `;
  const state = fs.mkdtempSync(path.join(os.tmpdir(), "dblab-shutdown-report-"));
  return new Promise((resolve) => {
    const child = spawn(process.execPath, ["-e", script], {
      env: { ...process.env, DBLAB_STATE_DIR: state },
      stdio: ["ignore", "pipe", "inherit"],
    });
    let out = "";
    child.stdout.setEncoding("utf8").on("data", (d: string) => {
      out += d;
      if (d.includes("ready")) child.kill("SIGTERM");
    });
    child.once("exit", (code) => {
      fs.rmSync(state, { recursive: true, force: true });
      resolve({ code, out });
    });
  });
}

test("SIGTERM: the aborted run's caller reports before the process exits, and the exit says SIGTERM (143), not the caller's 3", async () => {
  const { code, out } = await runChild(300);
  assert.equal(code, 143);
  assert.match(out, /caught: interrupted \(SIGTERM\): the process is ending/);
});

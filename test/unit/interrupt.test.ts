/**
 * The Stop button's SIGINT in a tslab kernel. tslab evaluates each cell with
 * `vm.runInThisContext(code, { breakOnSigint: true })`; a SIGINT listener added during that
 * evaluation used to leave Node's re-raise handler installed, so the next SIGINT killed the kernel.
 * These tests reproduce that setting in a child process (no Jupyter needed).
 */
import { test } from "node:test";
import assert from "node:assert/strict";
import { spawn } from "node:child_process";
import path from "node:path";

const interruptModule = path.resolve(__dirname, "..", "..", "lib", "runtime", "interrupt.js");

/** A kernel-like child: tslab's listener, then `body` run inside a breakOnSigint vm evaluation. */
function kernelLike(body: string): Promise<{ code: number | null; signal: NodeJS.Signals | null; out: string }> {
  const script = `
    const vm = require("node:vm");
    const interrupt = require(${JSON.stringify(interruptModule)});
    process.on("SIGINT", () => console.log("tslab interrupt"));
    globalThis.interrupt = interrupt;
    vm.runInThisContext(${JSON.stringify(body)}, { breakOnSigint: true });
    setTimeout(() => { console.log("alive"); process.exit(0); }, 1500);
  `;
  return new Promise((resolve) => {
    const child = spawn(process.execPath, ["-e", script], {
      env: { ...process.env, DBLAB_IN_KERNEL: "1" },
      stdio: ["ignore", "pipe", "inherit"],
    });
    let out = "";
    child.stdout.setEncoding("utf8").on("data", (d: string) => (out += d));
    child.once("close", (code, signal) => resolve({ code, signal, out }));
  });
}

test("a SIGINT during a run started inside a cell aborts the run and leaves the process alive", async () => {
  const r = await kernelLike(`
    const signal = interrupt.interruptSignal();
    signal.addEventListener("abort", () => console.log("run aborted: " + signal.reason.name));
    setTimeout(() => process.kill(process.pid, "SIGINT"), 300);
  `);
  assert.equal(r.signal, null, `the process was killed by ${r.signal}: ${r.out}`);
  assert.match(r.out, /run aborted: InterruptedError/);
  assert.doesNotMatch(r.out, /tslab interrupt/, "the first Stop goes to the run, not to tslab");
  assert.match(r.out, /alive/);
});

test("a SIGINT with no run active reaches tslab's own handler (an ordinary cell is interrupted)", async () => {
  const r = await kernelLike(`
    const signal = interrupt.interruptSignal();
    interrupt.endInterruptible(signal);
    setTimeout(() => process.kill(process.pid, "SIGINT"), 300);
  `);
  assert.equal(r.signal, null, `the process was killed by ${r.signal}`);
  assert.match(r.out, /tslab interrupt/);
  assert.match(r.out, /alive/);
});

test("a second SIGINT while the run is stopping goes to tslab (stop waiting)", async () => {
  const r = await kernelLike(`
    const signal = interrupt.interruptSignal();
    setTimeout(() => process.kill(process.pid, "SIGINT"), 300);
    setTimeout(() => process.kill(process.pid, "SIGINT"), 600);
  `);
  assert.equal(r.signal, null);
  assert.equal(r.out.match(/tslab interrupt/g)?.length, 1);
  assert.match(r.out, /alive/);
});

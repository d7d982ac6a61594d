import { test } from "node:test";
import assert from "node:assert/strict";
import { spawnSync } from "node:child_process";
import path from "node:path";

const DEBUG_MODULE = path.resolve(__dirname, "..", "..", "lib", "runtime", "debug.js");

/** stderr of a fresh node that swallows one error through ignored(), with `env` added. */
function stderrWith(env: Record<string, string>): string {
  const script = `require(${JSON.stringify(DEBUG_MODULE)}).ignored("close the probe client")(new Error("boom"));`;
  const clean = { ...process.env };
  delete clean.DEBUG;
  delete clean.DBLAB_DEBUG;
  const out = spawnSync(process.execPath, ["-e", script], { env: { ...clean, ...env }, encoding: "utf8" });
  assert.equal(out.status, 0, out.stderr);
  return out.stderr;
}

test("a swallowed error is quiet by default", () => {
  assert.equal(stderrWith({}), "");
  assert.equal(stderrWith({ DBLAB_DEBUG: "0" }), "");
});

test("DBLAB_DEBUG=1 prints what was being done, why it failed and where", () => {
  const err = stderrWith({ DBLAB_DEBUG: "1" });
  assert.match(err, /dblab:ignored close the probe client failed: Error: boom/);
  assert.match(err, /at /, "the stack says where it was thrown");
});

test("DBLAB_DEBUG takes a namespace pattern; DEBUG still works and adds to it", () => {
  assert.equal(stderrWith({ DBLAB_DEBUG: "dblab:targets*" }), "", "another namespace stays quiet");
  assert.match(stderrWith({ DBLAB_DEBUG: "dblab:ignored" }), /close the probe client failed/);
  assert.match(stderrWith({ DEBUG: "dblab:*" }), /close the probe client failed/);
});

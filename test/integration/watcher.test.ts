// test-tier: fast — an embedded PostgreSQL owned by a child it kills, its own state folder
/**
 * The kernel watcher (runtime/watcher.ts): an owner process starts an embedded PostgreSQL and is
 * then killed with SIGKILL (no exit handler runs, as when Jupyter kills a kernel that does not stop
 * in time). Its watcher must stop the server and remove its record. The 60 s bound is a
 * correctness bound (the watcher takes well under a second here), not a timing assertion.
 */
import { after, test } from "node:test";
import assert from "node:assert/strict";
import { spawn } from "node:child_process";
import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import { isProcessAlive } from "../../lib/runtime/resource-registry";

const stateDir = fs.mkdtempSync(path.join(os.tmpdir(), "dblab-watcher-test-"));
after(() => fs.rmSync(stateDir, { recursive: true, force: true }));

const libDir = path.resolve(__dirname, "..", "..", "lib");

test("a SIGKILLed owner's embedded PostgreSQL is stopped by its watcher", { timeout: 180_000 }, async () => {
  const script = `
    const { EmbeddedPostgresTarget } = require(${JSON.stringify(path.join(libDir, "targets", "embedded", "embedded-postgres.js"))});
    const { watcherPid } = require(${JSON.stringify(path.join(libDir, "runtime", "watcher.js"))});
    new EmbeddedPostgresTarget().start({ engine: "postgresql", name: "watcher-test" }).then((s) => {
      console.log(JSON.stringify({ server: s.pid, watcher: watcherPid() }));
      setInterval(() => undefined, 1000);
    });
  `;
  const owner = spawn(process.execPath, ["-e", script], {
    env: { ...process.env, DBLAB_STATE_DIR: stateDir, DBLAB_WATCHER: "1" },
    stdio: ["ignore", "pipe", "inherit"],
  });
  const started = await new Promise<{ server: number; watcher: number }>((resolve, reject) => {
    let out = "";
    owner.stdout.setEncoding("utf8").on("data", (d: string) => {
      out += d;
      const line = out.split("\n").find((l) => l.startsWith("{"));
      if (line) resolve(JSON.parse(line) as { server: number; watcher: number });
    });
    owner.once("exit", (code) => reject(new Error(`the owner exited (${code}) before starting the server: ${out}`)));
  });
  assert.ok(started.watcher > 0, "the owner started a watcher");
  assert.ok(isProcessAlive(started.server), "the server runs");
  owner.kill("SIGKILL");
  const deadline = Date.now() + 60_000;
  while (isProcessAlive(started.server) && Date.now() < deadline) await new Promise((r) => setTimeout(r, 100));
  assert.ok(!isProcessAlive(started.server), "the watcher stopped the server after its owner was killed");
  const records = () => fs.readdirSync(path.join(stateDir, "resources")).filter((f) => f.endsWith(".json"));
  while (records().length > 0 && Date.now() < deadline) await new Promise((r) => setTimeout(r, 100));
  assert.deepEqual(records(), [], "the watcher removed the owner's records (the server's directory with them)");
  while (isProcessAlive(started.watcher) && Date.now() < deadline) await new Promise((r) => setTimeout(r, 100));
  assert.ok(!isProcessAlive(started.watcher), "the watcher exited");
});

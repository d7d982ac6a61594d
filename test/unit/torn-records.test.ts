/**
 * A process killed between a record's write and its rename leaves a temporary file in the state
 * folder (a fault-matrix kernel SIGKILLed mid-trial left `….json.tmp` once). The next run's reaper
 * removes it when its writer is dead, and leaves a live writer's file alone.
 */
import { test } from "node:test";
import assert from "node:assert/strict";
import { spawnSync } from "node:child_process";
import fs from "node:fs";
import os from "node:os";
import path from "node:path";

const registry = require.resolve("../../lib/runtime/resource-registry");

test("a writer killed between write and rename leaves a torn file; the reaper removes it, not a live writer's", async () => {
  const state = fs.mkdtempSync(path.join(os.tmpdir(), "dblab-torn-"));
  process.env.DBLAB_STATE_DIR = state;
  try {
    // The child dies exactly where the fault did: after the temporary file is written, before the rename.
    const child = spawnSync(
      process.execPath,
      [
        "-e",
        `const fs = require("node:fs");
         fs.renameSync = () => process.kill(process.pid, "SIGKILL");
         require(${JSON.stringify(registry)}).writeRecord({ type: "process", pid: 1, description: "x" });`,
      ],
      { env: { ...process.env, DBLAB_STATE_DIR: state }, encoding: "utf8" },
    );
    assert.equal(child.signal, "SIGKILL", child.stderr);
    const dir = path.join(state, "resources");
    const torn = fs.readdirSync(dir);
    assert.equal(torn.length, 1);
    assert.match(torn[0] ?? "", new RegExp(`\\.json\\.${child.pid}-\\d+\\.tmp$`));

    const { listRecords, removeTornWrites } = await import("../../lib/runtime/resource-registry");
    const { reapOrphans } = await import("../../lib/runtime/reaper");
    assert.deepEqual(listRecords(), [], "a torn write names no record");

    // A write in progress in a live process (this one), and the old unnamed form, fresh and stale.
    const live = `abc-1.json.${process.pid}-0.tmp`;
    fs.writeFileSync(path.join(dir, live), "{");
    fs.writeFileSync(path.join(dir, "fresh-1.json.tmp"), "{");
    fs.writeFileSync(path.join(dir, "stale-1.json.tmp"), "{");
    const old = new Date(Date.now() - 61_000);
    fs.utimesSync(path.join(dir, "stale-1.json.tmp"), old, old);

    assert.deepEqual(await reapOrphans(), [], "nothing was started, so nothing is reaped");
    assert.deepEqual(fs.readdirSync(dir).sort(), ["fresh-1.json.tmp", live].sort());
    assert.deepEqual(removeTornWrites(Date.now() + 61_000), ["fresh-1.json.tmp"]);
    assert.deepEqual(fs.readdirSync(dir), [live]);
  } finally {
    delete process.env.DBLAB_STATE_DIR;
    fs.rmSync(state, { recursive: true, force: true });
  }
});

test("reading records never creates the state folder: a watcher reaping after its owner's folder went must not bring it back", async () => {
  const base = fs.mkdtempSync(path.join(os.tmpdir(), "dblab-gone-"));
  const state = path.join(base, "state");
  process.env.DBLAB_STATE_DIR = state;
  try {
    const { listRecords, removeTornWrites } = await import("../../lib/runtime/resource-registry");
    const { reapOrphans } = await import("../../lib/runtime/reaper");
    assert.deepEqual(listRecords(), []);
    assert.deepEqual(removeTornWrites(), []);
    assert.deepEqual(await reapOrphans(), []);
    assert.equal(fs.existsSync(state), false, "the state folder was made by a read");
  } finally {
    delete process.env.DBLAB_STATE_DIR;
    fs.rmSync(base, { recursive: true, force: true });
  }
});

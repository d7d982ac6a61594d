// test-tier: shared — a tmpfs mounted on a folder of its own, an embedded run that fills it
/**
 * A data directory's disk fills up (measured: clear error, exit in 31 s, nothing left
 * behind; keep it that way). A small tmpfs mounted by the test holds the embedded server's
 * directory (TMPDIR); a 400k-row insert with five extra indexes outgrows it.
 */
import { test } from "node:test";
import assert from "node:assert/strict";
import { spawn, spawnSync } from "node:child_process";
import fs from "node:fs";
import os from "node:os";
import path from "node:path";

const FIXTURE = path.join(__dirname, "..", "fixtures", "run-index-write-cost.js");
const CLEAN = path.join(__dirname, "..", "..", "scripts", "clean.js");

/** Mounts an 80 MB tmpfs (initdb and a start need ~40 MB); the reason when this machine does not allow it. */
function mountSmallDisk(dir: string): string | undefined {
  if (process.platform !== "linux") return `tmpfs mounts are Linux-only (${process.platform})`;
  const out = spawnSync("mount", ["-t", "tmpfs", "-o", "size=80m,mode=1777", "dblab-full-disk-test", dir], {
    encoding: "utf8",
  });
  if (out.error) return `mount could not run: ${out.error.message}`;
  if (out.status !== 0) return `mounting a tmpfs is not permitted here: ${out.stderr.trim() || `exit ${out.status}`}`;
  return undefined;
}

test("a full data disk gives a clear error (No space left on device) and leaves nothing behind", async (t) => {
  const base = fs.mkdtempSync(path.join(os.tmpdir(), "dblab-full-disk-"));
  fs.chmodSync(base, 0o755); // the server runs as an unprivileged user when the lab runs as root
  const disk = path.join(base, "disk");
  fs.mkdirSync(disk);
  const cannot = mountSmallDisk(disk);
  if (cannot) {
    fs.rmSync(base, { recursive: true, force: true });
    t.skip(cannot);
    return;
  }
  const state = path.join(base, "state");
  const results = path.join(base, "results");
  const env = {
    ...process.env,
    TMPDIR: disk,
    // Named explicitly: a tmpfs temp directory alone is passed over for a directory on a disk.
    DBLAB_DATA_DIR: disk,
    DBLAB_STATE_DIR: state,
    DBLAB_RESULTS_DIR: results,
    DBLAB_TARGET: "embedded",
    // The disk pre-flight would refuse this run before it starts (its estimate counts max_wal_size):
    // this test is of a disk that fills anyway, so the reading says it fits (disk-preflight.test.ts
    // tests the refusal).
    DBLAB_FREE_BYTES: String(2 ** 40),
  };
  const params = {
    engines: ["postgresql"],
    rowCounts: [400_000],
    repeats: 1,
    batchSize: 5000,
    extraIndexes: [5],
    operations: ["insert"],
  };
  try {
    const child = spawn(process.execPath, [FIXTURE, results, JSON.stringify(params)], {
      env,
      stdio: ["ignore", "pipe", "pipe"],
    });
    let out = "";
    child.stdout.on("data", (d: Buffer) => (out += String(d)));
    child.stderr.on("data", (d: Buffer) => (out += String(d)));
    const code = await new Promise<number | null>((resolve) => child.once("exit", resolve));
    assert.equal(code, 3, out);
    // Either the table cannot grow (`could not extend file …`) or the server PANICs writing WAL
    // (then the watchdog adds the log's PANIC line to a bare `write ECONNRESET`): both say why.
    assert.match(out, /FAILED Trial \S+ failed: .*No space left on device/);
    assert.deepEqual(fs.readdirSync(disk), [], "the server's directory is gone from the full disk");
    const records = path.join(state, "resources");
    assert.deepEqual(fs.existsSync(records) ? fs.readdirSync(records) : [], [], "no records left");
  } finally {
    spawnSync(process.execPath, [CLEAN, "--quiet"], { env });
    spawnSync("umount", ["-l", disk]);
    fs.rmSync(base, { recursive: true, force: true });
  }
});

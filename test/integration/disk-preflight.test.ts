// test-tier: fast — a loop-mounted ext4 image on a folder of its own; reproduce refuses before any server
/**
 * A data directory too small for a profile is refused before any server starts, with the estimate
 * and the free space in the message: headless (reproduce, before a kernel starts) on a real 256 MB
 * ext4 loop mount, and in a notebook's own run (the embedded target, before initdb) on the free
 * space the test says (DBLAB_FREE_BYTES), against the estimate of the run's own parameters.
 */
import { test } from "node:test";
import assert from "node:assert/strict";
import { spawnSync } from "node:child_process";
import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import { experiment } from "../../lib/experiments/index-write-cost";
import { diskNeed } from "../../lib/experiments/index-write-cost/params";
import { FREE_BYTES_ENV } from "../../lib/targets/disk-need";

const ROOT = path.join(__dirname, "..", "..");
const REPRODUCE = path.join(ROOT, "scripts", "reproduce.js");
const FIXTURE = path.join(__dirname, "..", "fixtures", "run-index-write-cost.js");

/** A 256 MB ext4 image on a loop device; the reason when this machine does not allow it. */
function mountLoop(image: string, dir: string): string | undefined {
  if (process.platform !== "linux") return `loop mounts are Linux-only (${process.platform})`;
  const steps: [string, string[]][] = [
    ["truncate", ["-s", "256M", image]],
    ["mkfs.ext4", ["-q", "-F", image]],
    ["mount", ["-o", "loop", image, dir]],
  ];
  for (const [cmd, args] of steps) {
    const out = spawnSync(cmd, args, { encoding: "utf8" });
    if (out.error) return `${cmd} could not run: ${out.error.message}`;
    if (out.status !== 0) return `${cmd} is not permitted here: ${out.stderr.trim() || `exit ${out.status}`}`;
  }
  return undefined;
}

test("reproduce refuses a profile whose data does not fit the data directory, before any kernel or server", (t) => {
  const base = fs.mkdtempSync(path.join(os.tmpdir(), "dblab-disk-preflight-"));
  const disk = path.join(base, "disk");
  fs.mkdirSync(disk);
  const cannot = mountLoop(path.join(base, "disk.img"), disk);
  if (cannot) {
    fs.rmSync(base, { recursive: true, force: true });
    t.skip(cannot);
    return;
  }
  try {
    fs.chmodSync(disk, 0o777);
    const out = spawnSync(process.execPath, [REPRODUCE, "--profile", "default", "--only", "04"], {
      encoding: "utf8",
      env: {
        ...process.env,
        DBLAB_DATA_DIR: disk,
        DBLAB_TARGET: "embedded",
        DBLAB_RESULTS_DIR: path.join(base, "results"),
        [FREE_BYTES_ENV]: "",
      },
      timeout: 120_000,
    });
    assert.equal(out.status, 2, out.stderr + out.stdout);
    assert.match(
      out.stderr,
      new RegExp(`04-reindex-under-load at --profile default needs about [\\d.]+ [GM]iB of disk in ${disk} \\(scale`),
    );
    assert.match(out.stderr, /MiB is free there: free some, set DBLAB_DATA_DIR .*Nothing was started/);
    assert.deepEqual(
      fs.readdirSync(disk).filter((f) => f !== "lost+found"),
      [],
      "nothing was written to the data directory",
    );
    assert.ok(!fs.existsSync(path.join(base, "results")), "no run directory");
  } finally {
    spawnSync("umount", [disk]);
    fs.rmSync(base, { recursive: true, force: true });
  }
});

test("a notebook's own run is refused by the embedded target before initdb, with its estimate", () => {
  const base = fs.mkdtempSync(path.join(os.tmpdir(), "dblab-disk-run-"));
  fs.chmodSync(base, 0o755);
  const data = path.join(base, "data");
  fs.mkdirSync(data, { mode: 0o777 });
  fs.chmodSync(data, 0o777);
  const params = { engines: ["postgresql"], rowCounts: [20_000], repeats: 1, extraIndexes: [0, 1] };
  const need = diskNeed(experiment.params("smoke", params as object));
  try {
    // A disk with half the estimate free.
    const out = spawnSync(process.execPath, [FIXTURE, path.join(base, "results"), JSON.stringify(params)], {
      encoding: "utf8",
      env: {
        ...process.env,
        DBLAB_DATA_DIR: data,
        DBLAB_TARGET: "embedded",
        DBLAB_STATE_DIR: path.join(base, "state"),
        [FREE_BYTES_ENV]: String(Math.floor(need.bytes / 2)),
      },
      timeout: 120_000,
    });
    assert.equal(out.status, 3, out.stderr + out.stdout);
    assert.match(out.stderr, /01 index write cost needs about [\d.]+ [GM]iB of disk in .*20,000 rows × \(84 B/);
    assert.match(out.stderr, /is free there: free some, or set DBLAB_DATA_DIR/);
    assert.deepEqual(
      fs.readdirSync(data).filter((f) => f.startsWith("dblab-pg-")),
      [],
      "no server directory: refused before initdb",
    );
  } finally {
    fs.rmSync(base, { recursive: true, force: true });
  }
});

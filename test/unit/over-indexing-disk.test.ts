/**
 * 03's disk plan at its margins: which levels keep a template for the free space after the load,
 * the pre-flight's least need, and the free-space readings it rests on.
 */
import { test } from "node:test";
import assert from "node:assert/strict";
import {
  DATA_BYTES_AT_SCALE_1,
  diskNeed03,
  levelBytes,
  planTemplates,
  roundReserve,
} from "../../lib/experiments/over-indexing/disk";
import { overIndexingParams } from "../../lib/experiments/over-indexing/params";
import { DISK_HEADROOM, FREE_BYTES_ENV, parseDfAvailable, serverFreeBytes } from "../../lib/targets/disk-need";

const GIB = 2 ** 30;
const full = overIndexingParams("full");
const data = DATA_BYTES_AT_SCALE_1;
/** The free space that leaves exactly `room` bytes for templates. */
const freeFor = (room: number) => (room + roundReserve(full, data).bytes) / DISK_HEADROOM;

test("planTemplates: the largest levels first, each kept while it fits to the byte; level 7 never needs one", () => {
  const l39 = levelBytes(data, 39);
  const l28 = levelBytes(data, 28);
  const l14 = levelBytes(data, 14);
  const exact = planTemplates(full, data, freeFor(l39));
  assert.deepEqual(exact.kept, [39]);
  assert.deepEqual(exact.rebuilt, [28, 21, 14]);
  assert.ok(Math.abs(exact.keptBytes - l39) < 1);
  // One byte short: 39 no longer fits, and the next that does is taken (21 < 28 < 39 in bytes).
  const short = planTemplates(full, data, freeFor(l39 - 1));
  assert.deepEqual(short.kept, [28]);
  assert.deepEqual(planTemplates(full, data, freeFor(l39 + l28) + 1).kept, [39, 28]);
  assert.deepEqual(planTemplates(full, data, freeFor(l14 - 1)).kept, []);
  assert.deepEqual(planTemplates(full, data, 0).kept, []);
  assert.match(
    planTemplates(full, data, freeFor(l39)).text,
    /^level template kept: 39 \(19\.4 GiB\); levels 14, 21, 28 clone the loaded data and build their indexes every round, no room for their templates in 73\.7 GiB free after the load, less 50\.6 GiB for the rounds \(the round's clone at 39 indexes 19\.4 GiB \+ /,
  );
  const roomy = planTemplates(full, data, 1000 * GIB);
  assert.deepEqual(roomy.kept, [39, 28, 21, 14]);
  assert.deepEqual(roomy.rebuilt, []);
  assert.match(roomy.text, /^every level keeps a template, 65\.\d GiB in all: 1000\.0 GiB free after the load/);
  // Unknown free space (an external server): every template, as before the plan existed.
  const unknown = planTemplates(full, data, undefined);
  assert.deepEqual(unknown.kept, [39, 28, 21, 14]);
  assert.match(unknown.text, /out of the lab's reach/);
  // Only the levels the run plans.
  assert.deepEqual(planTemplates({ ...full, indexLevels: [7, 39] }, data, 1000 * GIB).kept, [39]);
});

test("planTemplates: the WAL the load left on disk is counted once, as WAL, not again as used space", () => {
  const l39 = levelBytes(data, 39);
  const wal = roundReserve(full, data).wal;
  // The load's: 2.3 × the data (27 GiB for 11.8 here), above min_wal_size of max_wal_size 64 GB (16 GiB).
  assert.ok(Math.abs(wal - 2.3 * data) < 1, String(wal / GIB));
  assert.equal(roundReserve({ ...full, dataScale: 0.1 }, data / 10).wal, 16 * GIB);
  // 30 GiB of the load's WAL on disk, already out of the free space: the rounds' WAL needs nothing more,
  // so that much less free space keeps the same template.
  const walNow = 30 * GIB;
  const free = freeFor(l39) - wal / DISK_HEADROOM;
  assert.equal(roundReserve(full, data, walNow).bytes, roundReserve(full, data).bytes - wal);
  assert.deepEqual(planTemplates(full, data, free + 1, walNow).kept, [39]);
  assert.deepEqual(planTemplates(full, data, free - 1, walNow).kept, [28], "two bytes less: 39 no longer fits");
  // Without the reading, the same free space keeps nothing: the WAL would count twice.
  assert.deepEqual(planTemplates(full, data, free).kept, []);
  // Less on disk than the rounds will keep: only the rest is to come.
  const some = planTemplates(full, data, freeFor(l39) - 10 * GIB, 10 * GIB);
  assert.deepEqual(some.kept, [39]);
  assert.match(some.text, /WAL 27\.1 GiB \(17\.1 GiB past the 10\.0 GiB on disk\)/);
  assert.equal(some.walBytes, 10 * GIB);
});

test("diskNeed03 at full: the loaded data, the round's clone at 39 indexes, its growth and WAL", () => {
  const need = diskNeed03(full);
  // 11.8 GiB + 19.4 GiB clone + 3.9 GiB growth + 27.1 GiB WAL (the load's, kept) + 0.2 GiB.
  assert.ok(need.bytes > 62 * GIB && need.bytes < 62.6 * GIB, `${need.bytes / GIB} GiB`);
  assert.match(need.what, /^loaded data 11\.8 GiB \+ the round's clone at 39 indexes 19\.4 GiB \+ /);
  assert.match(need.what, /each level's template \(up to 19\.4 GiB\) only where it fits$/);
  // A run of levels 7 and 14 clones the smaller state.
  assert.ok(diskNeed03({ ...full, indexLevels: [7, 14] }).bytes < need.bytes - 5 * GIB);
});

test("parseDfAvailable: POSIX df -Pk from GNU coreutils and busybox", () => {
  const gnu =
    "Filesystem     1024-blocks     Used Available Capacity Mounted on\n/dev/vda         263174212 27262976  79691236      26% /\n";
  assert.equal(parseDfAvailable(gnu), 79691236 * 1024);
  const busybox =
    "Filesystem           1024-blocks    Used Available Capacity Mounted on\noverlay               263174212  27262976  79691236  26% /\n";
  assert.equal(parseDfAvailable(busybox), 79691236 * 1024);
  assert.equal(parseDfAvailable("df: /nope: No such file or directory\n"), undefined);
  assert.equal(parseDfAvailable(""), undefined);
});

test("serverFreeBytes: statfs for an embedded server, df in a container, unknown for an external one", async () => {
  const description = (path?: string) => ({ storage: path ? { path } : undefined });
  assert.equal((await serverFreeBytes({ kind: "embedded", description: description("/") }, {})) !== undefined, true);
  assert.equal(await serverFreeBytes({ kind: "external", description: description() }, {}), undefined);
  const df = (stdout: string, exitCode = 0) => ({
    kind: "docker",
    description: description("/var/lib/postgresql/data"),
    exec: async (cmd: string[]) => {
      assert.deepEqual(cmd, ["df", "-Pk", "/var/lib/postgresql/data"]);
      return { exitCode, stdout };
    },
  });
  assert.equal(await serverFreeBytes(df("F 1024-blocks Used Available C M\n/dev/x 10 4 6 40% /d\n"), {}), 6144);
  assert.equal(await serverFreeBytes(df("", 1), {}), undefined);
  const failing = {
    kind: "docker",
    description: description("/d"),
    exec: async () => {
      throw new Error("the daemon is gone");
    },
  };
  assert.equal(await serverFreeBytes(failing, {}), undefined, "a failed reading is unknown, not an error");
  // The tests' stand-in for a disk of that size applies to every kind.
  assert.equal(await serverFreeBytes({ kind: "external", description: description() }, { [FREE_BYTES_ENV]: "42" }), 42);
});

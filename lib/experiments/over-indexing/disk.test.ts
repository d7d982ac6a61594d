/**
 * 03's disk plan at its margins: how many indexes the template gets for the free space after the load,
 * the pre-flight's least need, and the free-space readings it rests on.
 */
import { test } from "node:test";
import assert from "node:assert/strict";
import { DATA_BYTES_AT_SCALE_1, diskNeed, levelBytes, planTemplates, roomForSecondClone, roundReserve } from "./disk";
import { experiment } from ".";
import { DISK_HEADROOM, FREE_BYTES_ENV, parseDfAvailable, serverFreeBytes } from "../../targets/disk-need";

const GIB = 2 ** 30;
const full = experiment.params("full");
const data = DATA_BYTES_AT_SCALE_1;
/** The free space that leaves exactly `room` bytes for templates. */
const freeFor = (room: number) => (room + roundReserve(full, data).bytes) / DISK_HEADROOM;

test("planTemplates: the template gets the largest level whose indexes fit, to the byte; the levels above build the rest", () => {
  const idx = (level: number) => levelBytes(data, level) - data;
  const exact = planTemplates(full, data, freeFor(idx(39)));
  assert.equal(exact.level, 39);
  assert.deepEqual(exact.rebuilt, []);
  assert.ok(Math.abs(exact.indexBytes - idx(39)) < 1);
  assert.ok(Math.abs(exact.indexBytes - 0.645 * 11.8 * GIB) < 1, "level 39's 32 indexes: 7.6 GiB at the seed's scale");
  assert.match(
    exact.text,
    /^the template gets level 39's 32 extra indexes once \(7\.6 GiB\), and each round clones it and drops the indexes its level lacks: 61\.\d GiB free after the load, less 50\.6 GiB for the rounds \(the round's clone at 39 indexes 19\.4 GiB \+ /,
  );
  // One byte short: 39's indexes no longer fit; 28's do, and level 39 builds its last group every round.
  const short = planTemplates(full, data, freeFor(idx(39) - 1));
  assert.equal(short.level, 28);
  assert.deepEqual(short.rebuilt, [39]);
  assert.match(
    short.text,
    /^the template gets level 28's 21 extra indexes once .*; level 39 builds the rest of its indexes every round, no room for more in /,
  );
  assert.equal(planTemplates(full, data, freeFor(idx(21))).level, 21);
  assert.deepEqual(planTemplates(full, data, freeFor(idx(21))).rebuilt, [28, 39]);
  // Not even level 14's: every round builds all of its level's indexes.
  const none = planTemplates(full, data, freeFor(idx(14) - 1));
  assert.equal(none.level, 7);
  assert.deepEqual(none.rebuilt, [14, 21, 28, 39]);
  assert.equal(none.indexBytes, 0);
  assert.match(
    none.text,
    /^no room for indexes in the template: levels 14, 21, 28, 39 clone the loaded data and build their indexes every round, in /,
  );
  assert.equal(planTemplates(full, data, 0).level, 7);
  // Unknown free space (an external server): the largest level's indexes.
  const unknown = planTemplates(full, data, undefined);
  assert.equal(unknown.level, 39);
  assert.deepEqual(unknown.rebuilt, []);
  assert.match(unknown.text, /out of the lab's reach/);
  // Only the levels the run plans: levels 7 and 21 need no more than 21's indexes.
  const two = planTemplates({ ...full, indexLevels: [7, 21] }, data, 1000 * GIB);
  assert.equal(two.level, 21);
  assert.equal(planTemplates({ ...full, indexLevels: [7] }, data, 1000 * GIB).text, "no level has indexes to build");
});

test("planTemplates: the WAL the load left on disk is counted once, as WAL, not again as used space", () => {
  const idx39 = levelBytes(data, 39) - data;
  const wal = roundReserve(full, data).wal;
  // The load's: 2.3 × the data (27 GiB for 11.8 here), above min_wal_size of max_wal_size 64 GB (16 GiB).
  assert.ok(Math.abs(wal - 2.3 * data) < 1, String(wal / GIB));
  assert.equal(roundReserve({ ...full, dataScale: 0.1 }, data / 10).wal, 16 * GIB);
  // 30 GiB of the load's WAL on disk, already out of the free space: the rounds' WAL needs nothing more,
  // so that much less free space keeps the same template.
  const walNow = 30 * GIB;
  const free = freeFor(idx39) - wal / DISK_HEADROOM;
  assert.equal(roundReserve(full, data, walNow).bytes, roundReserve(full, data).bytes - wal);
  assert.equal(planTemplates(full, data, free + 1, walNow).level, 39);
  assert.equal(planTemplates(full, data, free - 1, walNow).level, 28, "two bytes less: 39's indexes no longer fit");
  // Without the reading, the same free space holds no indexes: the WAL would count twice.
  assert.equal(planTemplates(full, data, free).level, 7);
  // Less on disk than the rounds will keep: only the rest is to come.
  const some = planTemplates(full, data, freeFor(idx39) - 10 * GIB, 10 * GIB);
  assert.equal(some.level, 39);
  assert.match(some.text, /WAL 27\.1 GiB \(17\.1 GiB past the 10\.0 GiB on disk\)/);
  assert.equal(some.walBytes, 10 * GIB);
});

// Two machines of this kind after the seed's load: 37.0 GiB free with 26.2 GiB of WAL on disk, and 40.6 with 23.9.
test("planTemplates at the seed's scale on this disk: level 39's indexes fit once the load's WAL is counted", () => {
  for (const [free, wal] of [
    [37.0, 26.2],
    [40.6, 23.9],
  ]) {
    const plan = planTemplates(full, data, free * GIB, wal * GIB);
    assert.equal(plan.level, 39);
    assert.ok(plan.budgetBytes !== undefined && plan.budgetBytes - plan.indexBytes > 2 * GIB, String(plan.budgetBytes));
  }
});

test("roomForSecondClone: a clone made beside a round only where the template's indexes leave a second round's room", () => {
  const idx39 = levelBytes(data, 39) - data;
  // A second round: its clone at 39 indexes and 300 s of growth at the TPS bound (1,500 × 9 kB a second).
  const second = levelBytes(data, 39) + full.durationSeconds * 1500 * 9 * 1024;
  const exact = planTemplates(full, data, freeFor(idx39 + second));
  assert.equal(exact.level, 39);
  assert.equal(roomForSecondClone(full, exact, data), true);
  // One byte short: the template still gets 39's indexes, the rounds clone one after the other.
  const short = planTemplates(full, data, freeFor(idx39 + second - 1));
  assert.equal(short.level, 39);
  assert.equal(roomForSecondClone(full, short, data), false);
  // Unknown free space (an external server): never two clones.
  assert.equal(roomForSecondClone(full, planTemplates(full, data, undefined), data), false);
});

test("diskNeed at full: the loaded data, the round's clone at 39 indexes, its growth and WAL", () => {
  const need = diskNeed(full);
  // 11.8 GiB + 19.4 GiB clone + 3.9 GiB growth + 27.1 GiB WAL (the load's, kept) + 0.2 GiB.
  assert.ok(need.bytes > 62 * GIB && need.bytes < 62.6 * GIB, `${need.bytes / GIB} GiB`);
  assert.match(need.what, /^loaded data 11\.8 GiB \+ the round's clone at 39 indexes 19\.4 GiB \+ /);
  assert.match(need.what, /the template's indexes \(up to 7\.6 GiB\) only where they fit$/);
  // A run of levels 7 and 14 clones the smaller state.
  assert.ok(diskNeed({ ...full, indexLevels: [7, 14] }).bytes < need.bytes - 5 * GIB);
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

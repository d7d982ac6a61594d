/** The disk pre-flight's rule at its margin, and the estimates at the seeds' scale against the seeds' own sizes. */
import { test } from "node:test";
import assert from "node:assert/strict";
import { checkDiskNeed, DiskSpaceError, FREE_BYTES_ENV } from "../../lib/targets/disk-need";
import { diskNeed as diskNeedCreateIndex } from "../../lib/experiments/create-index-after-load/params";
import { diskNeed as overIndexingDisk } from "../../lib/experiments/over-indexing/disk";
import { experiment as createIndexAfterLoad } from "../../lib/experiments/create-index-after-load";
import { experiment as overIndexing } from "../../lib/experiments/over-indexing";

test("checkDiskNeed: 95 % of the free space is the most an estimate may take; the message has both numbers", () => {
  const need = { bytes: 950 * 2 ** 20, what: "the parts" };
  const env = (free: number) => ({ [FREE_BYTES_ENV]: String(free * 2 ** 20) });
  assert.doesNotThrow(() => checkDiskNeed(need, "/", "x", "y", env(1000)));
  assert.throws(
    () => checkDiskNeed(need, "/data", "02 at full", "set DBLAB_DATA_DIR", env(999)),
    (e: unknown) =>
      e instanceof DiskSpaceError &&
      /^02 at full needs about 950 MiB of disk in \/data \(the parts\), and 999 MiB is free there: set DBLAB_DATA_DIR\. Nothing was started\.$/.test(
        e.message,
      ),
  );
  assert.throws(() => checkDiskNeed(need, "/", "x", "y", { [FREE_BYTES_ENV]: "lots" }), /must be a byte count/);
});

test("the full profiles' estimates hold at least what the seeds say their data was", () => {
  // 02: "100M rows": 3.4 GiB of heap and a 2.1 GiB grown index (the seed's table; claims.ts).
  assert.ok(diskNeedCreateIndex(createIndexAfterLoad.params("full")).bytes > 5.5 * 2 ** 30);
  // 03: "初始数据集大小约为 11 GB", a template and a clone of it.
  assert.ok(overIndexingDisk(overIndexing.params("full")).bytes > 22 * 2 ** 30);
  assert.ok(
    overIndexingDisk(overIndexing.params("default")).bytes < overIndexingDisk(overIndexing.params("full")).bytes / 10,
  );
});

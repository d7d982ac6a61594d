/**
 * Where embedded servers keep their data: DBLAB_DATA_DIR, the refusal of a tmpfs temp directory, and
 * the storage facts (filesystem, device, a measured fsync) recorded for every server.
 */
import { test } from "node:test";
import assert from "node:assert/strict";
import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import { DataDirError, embeddedBaseDir, mountOf, storageInfo } from "../../lib/targets/embedded/data-dir";

const disk = [
  { device: "/dev/vda1", point: "/", fsType: "ext4" },
  { device: "tmpfs", point: "/run", fsType: "tmpfs" },
];
const tmpfsTmp = [...disk, { device: "tmpfs", point: os.tmpdir(), fsType: "tmpfs" }];

test("mountOf: the longest mount point that holds the directory", () => {
  assert.deepEqual(mountOf("/run/user/1000", disk), { fsType: "tmpfs", device: "tmpfs" });
  assert.deepEqual(mountOf("/var/lib/x", disk), { fsType: "ext4", device: "/dev/vda1" });
  assert.deepEqual(
    mountOf("/runner/x", disk),
    { fsType: "ext4", device: "/dev/vda1" },
    "/run is not a prefix of /runner",
  );
});

test("DBLAB_DATA_DIR: used when it is a writable directory; a clear error when it is not", () => {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), "dblab-datadir-test-"));
  try {
    assert.equal(embeddedBaseDir({ DBLAB_DATA_DIR: dir }, tmpfsTmp), dir, "named: used even where /tmp is tmpfs");
    assert.throws(() => embeddedBaseDir({ DBLAB_DATA_DIR: path.join(dir, "missing") }), /does not exist/);
    const file = path.join(dir, "f");
    fs.writeFileSync(file, "");
    assert.throws(() => embeddedBaseDir({ DBLAB_DATA_DIR: file }), /is not a directory/);
  } finally {
    fs.rmSync(dir, { recursive: true, force: true });
  }
});

test("a tmpfs temp directory is not used: /var/tmp on a disk instead, or a refusal that says how to choose", () => {
  assert.equal(embeddedBaseDir({}, disk), os.tmpdir(), "a temp directory on a disk is used");
  if (fs.existsSync("/var/tmp")) assert.equal(embeddedBaseDir({}, tmpfsTmp), "/var/tmp");
  const allTmpfs = [...tmpfsTmp, { device: "tmpfs", point: "/var/tmp", fsType: "tmpfs" }];
  assert.throws(
    () => embeddedBaseDir({}, allTmpfs),
    (e: unknown) =>
      e instanceof DataDirError && /is tmpfs .*set DBLAB_DATA_DIR to a directory on a disk/.test(e.message),
  );
});

test("storageInfo: filesystem, device and a measured fsync of the directory, leaving nothing behind", () => {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), "dblab-storage-test-"));
  try {
    const s = storageInfo(dir);
    assert.equal(s.path, dir);
    assert.notEqual(s.fsType, "unknown");
    assert.ok(s.fsyncMs !== undefined && s.fsyncMs >= 0, `fsync ${s.fsyncMs}`);
    assert.deepEqual(fs.readdirSync(dir), [], "the probe file is removed");
  } finally {
    fs.rmSync(dir, { recursive: true, force: true });
  }
});

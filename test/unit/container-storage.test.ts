/** The storage probe run inside a container: its mounts and dd's lines, GNU and busybox alike. */
import { test } from "node:test";
import assert from "node:assert/strict";
import { parseContainerStorage } from "../../lib/targets/docker/storage";
import { FSYNC_PROBES } from "../../lib/targets/storage";

const MOUNTS = [
  "overlay / overlay rw,relatime,lowerdir=/var/lib/docker/overlay2/l/X 0 0",
  "proc /proc proc rw,nosuid,nodev,noexec,relatime 0 0",
  "/dev/vda1 /var/lib/postgresql/data ext4 rw,relatime 0 0",
  "shm /dev/shm tmpfs rw,nosuid,nodev,noexec,relatime,size=1048576k 0 0",
].join("\n");

function output(lines: (i: number) => string, count = FSYNC_PROBES): string {
  const dd = Array.from({ length: count }, (_, i) => `1+0 records in\n1+0 records out\n${lines(i)}\ndblab-times   `);
  return `${MOUNTS}\n--- dblab mounts end ---\n${dd.join("\n")}\n`;
}

test("GNU dd: the volume's mount and the median of the samples, in ms", () => {
  const st = parseContainerStorage(
    "/var/lib/postgresql/data",
    output((i) => `8192 bytes (8.2 kB, 8.0 KiB) copied, ${(0.001 + i * 1e-5).toFixed(6)} s, 6.6 MB/s`),
  );
  assert.equal(st.fsType, "ext4");
  assert.equal(st.device, "/dev/vda1");
  assert.ok(st.fsyncMs !== undefined && Math.abs(st.fsyncMs - 1.145) < 1e-9, String(st.fsyncMs));
  assert.match(st.fsyncProbe ?? "", /inside the container/);
});

test("busybox dd (no time of its own): paired samples timed by the shell, the difference of the medians", () => {
  let t = 1_796_159_951;
  const pair = () => {
    const a = t;
    const b = a + 0.013; // dd with fsync: 13 ms, process start included
    const c = b + 0.008; // dd without: 8 ms
    t = c + 0.001;
    return `dblab-times ${a.toFixed(6)} ${b.toFixed(6)} ${c.toFixed(6)}`;
  };
  const st = parseContainerStorage(
    "/var/lib/postgresql/data",
    output(() => `1+0 records in\n1+0 records out\n${pair()}`),
  );
  assert.ok(st.fsyncMs !== undefined && Math.abs(st.fsyncMs - 5) < 0.01, String(st.fsyncMs));
  assert.match(st.fsyncProbe ?? "", /less dd without/);
  // dash (the official images' sh) has no $EPOCHREALTIME: empty times are no sample at all.
  const dash = parseContainerStorage(
    "/data/db",
    output(() => "dblab-times   "),
  );
  assert.equal(dash.fsyncMs, undefined);
  assert.equal(dash.fsType, "overlay", "/data/db is on the root overlay in this listing");
});

test("a probe cut short gives no fsync figure rather than a median of a few", () => {
  const st = parseContainerStorage(
    "/var/lib/postgresql/data",
    output(() => "8192 bytes copied, 0.000250 s, 31.2 MB/s", 3),
  );
  assert.equal(st.fsyncMs, undefined);
  assert.equal(st.fsType, "ext4");
});

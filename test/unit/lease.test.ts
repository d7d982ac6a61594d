/**
 * The lease on a remote engine's containers (lib/targets/docker/lease.ts) without Docker: the
 * bound's arithmetic, the entrypoint that wraps the image's own, and the watcher script itself,
 * run by this machine's /bin/sh (and busybox sh, the stand-in image's, where it is installed) with
 * a bound of 2 s around a stand-in "server" shell.
 */
import { test } from "node:test";
import assert from "node:assert/strict";
import { spawn, spawnSync } from "node:child_process";
import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import {
  DEFAULT_LEASE_SECONDS,
  goneOnRestart,
  LEASE_SCRIPT,
  leasedEntrypoint,
  leaseSecondsFromEnv,
  leaseTiming,
  leaseWorstCaseSeconds,
} from "../../lib/targets/docker/lease";

test("the default bound: renewed every 10 s, looked at every 5 s, 10 s of grace, gone within 135 s", () => {
  const t = leaseTiming(DEFAULT_LEASE_SECONDS);
  assert.deepEqual(t, {
    boundSeconds: 120,
    tickSeconds: 5,
    graceSeconds: 10,
    renewMs: 10_000,
    requestTimeoutMs: 15_000,
  });
  assert.equal(leaseWorstCaseSeconds(t), 135);
  // More than the stall watchdog's floor (60 s): a run cut off from its engine is told so first.
  assert.ok(t.boundSeconds > 60);
  assert.ok(t.boundSeconds * 1000 >= 10 * t.renewMs, "at least ten renewals may be missed");
});

test("short bounds (the tests') keep whole-second looks and renew several times per bound", () => {
  assert.deepEqual(leaseTiming(6), {
    boundSeconds: 6,
    tickSeconds: 1,
    graceSeconds: 6,
    renewMs: 500,
    requestTimeoutMs: 1500,
  });
  assert.deepEqual(leaseTiming(1.2), {
    boundSeconds: 2,
    tickSeconds: 1,
    graceSeconds: 2,
    renewMs: 500,
    requestTimeoutMs: 1000,
  });
  assert.equal(leaseTiming(3600).tickSeconds, 5);
  assert.equal(leaseTiming(3600).renewMs, 10_000);
});

test("one renewal's request gets a quarter of the bound, 1 to 15 s: a hung one leaves room for several more", () => {
  assert.equal(leaseTiming(16).requestTimeoutMs, 4000);
  assert.equal(leaseTiming(60).requestTimeoutMs, 15_000);
  assert.equal(leaseTiming(61).requestTimeoutMs, 15_000);
  assert.equal(leaseTiming(59).requestTimeoutMs, 14_750);
  assert.equal(leaseTiming(3).requestTimeoutMs, 1000);
  // From 2 s up (1 s cannot: renewals are at least 0.5 s apart and a request gets at least 1 s).
  for (const bound of [2, 6, 16, 24, 59, 60, 120, 3600]) {
    const t = leaseTiming(bound);
    // After a request that timed out, the next renewal starts within renewMs: two more tries at least.
    assert.ok(t.requestTimeoutMs + 2 * t.renewMs <= t.boundSeconds * 1000, `bound ${bound} s`);
  }
});

test("a restart Docker refused because the container is gone or being removed is told from other failures", () => {
  const docker = (statusCode: number, message: string) => Object.assign(new Error(message), { statusCode });
  assert.equal(goneOnRestart(docker(404, "(HTTP code 404) no such container - No such container: 8f74")), true);
  const removal =
    "(HTTP code 500) server error - Cannot restart container 8f74: container is marked for removal and cannot be started";
  assert.equal(goneOnRestart(docker(500, removal)), true);
  assert.equal(
    goneOnRestart(docker(500, "(HTTP code 500) server error - Cannot restart container 8f74: OCI runtime")),
    false,
  );
  assert.equal(goneOnRestart(docker(409, "marked for removal")), false);
  assert.equal(goneOnRestart(new Error("socket hang up")), false);
  assert.equal(goneOnRestart(undefined), false);
});

test("DBLAB_LEASE_SECONDS: default, a number, refused when not one", () => {
  assert.equal(leaseSecondsFromEnv({}), DEFAULT_LEASE_SECONDS);
  assert.equal(leaseSecondsFromEnv({ DBLAB_LEASE_SECONDS: "" }), DEFAULT_LEASE_SECONDS);
  assert.equal(leaseSecondsFromEnv({ DBLAB_LEASE_SECONDS: "8" }), 8);
  assert.throws(() => leaseSecondsFromEnv({ DBLAB_LEASE_SECONDS: "soon" }), /DBLAB_LEASE_SECONDS/);
  assert.throws(() => leaseSecondsFromEnv({ DBLAB_LEASE_SECONDS: "0" }), /≥ 1/);
});

test("the entrypoint: sh -c with the watcher, its arguments, then the image's own entrypoint", () => {
  const t = leaseTiming(120);
  const e = leasedEntrypoint(["docker-entrypoint.sh"], t, "SIGINT");
  assert.deepEqual(e.slice(0, 2), ["/bin/sh", "-c"]);
  assert.equal(e[2], LEASE_SCRIPT);
  assert.deepEqual(e.slice(3), [
    "db-write-lab-lease",
    "120",
    "5",
    "10",
    "INT",
    "/tmp/db-write-lab.lease",
    "docker-entrypoint.sh",
  ]);
  assert.deepEqual(leasedEntrypoint(null, t, undefined).slice(-2), ["TERM", "/tmp/db-write-lab.lease"]);
  assert.equal(leasedEntrypoint("entry.sh", t, "SIGTERM").at(-1), "entry.sh");
  assert.throws(() => leasedEntrypoint([], t, "9; rm -rf /"), /stop signal/);
  const parsed = spawnSync("/bin/sh", ["-n", "-c", LEASE_SCRIPT]);
  assert.equal(parsed.status, 0, parsed.stderr.toString());
});

const shells: string[][] = [["/bin/sh"]];
for (const busybox of ["/bin/busybox", "/usr/bin/busybox"]) {
  if (fs.existsSync(busybox)) {
    shells.push([busybox, "sh"]);
    break;
  }
}

/** The watcher with a 2 s bound around `server` (sh code), its lease file in a fresh folder. */
function watcher(shell: string[], server: string) {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), "dblab-lease-test-"));
  const lease = path.join(dir, "lease");
  const [cmd, ...pre] = shell;
  const child = spawn(cmd, [...pre, "-c", LEASE_SCRIPT, "x", "2", "1", "1", "INT", lease, cmd, ...pre, "-c", server], {
    stdio: ["ignore", "ignore", "pipe"],
  });
  let stderr = "";
  child.stderr.on("data", (c: Buffer) => (stderr += c.toString()));
  const exited = new Promise<number | null>((resolve) => child.once("exit", (code) => resolve(code)));
  return { dir, lease, child, exited, stderr: () => stderr };
}

/** A server that takes SIGTERM (mongod's stop signal) and never stops on its own. */
const SERVER = "trap 'exit 4' TERM; while :; do sleep 1; done";

for (const shell of shells) {
  const name = shell.join(" ");

  test(`${name}: an unrenewed lease stops the server and the watcher exits`, { timeout: 30_000 }, async () => {
    const w = watcher(shell, SERVER);
    // The server ignores SIGINT (as `&` leaves it in a shell): stopped by SIGKILL after the grace.
    assert.equal(await w.exited, 137);
    assert.match(w.stderr(), /not renewed for \d+ s \(bound 2 s\)[^]*SIGKILL/);
    fs.rmSync(w.dir, { recursive: true, force: true });
  });

  test(`${name}: a renewed lease keeps the server; Docker's stop signal reaches it`, { timeout: 30_000 }, async () => {
    const w = watcher(shell, SERVER);
    let exited = false;
    void w.exited.then(() => (exited = true));
    for (let i = 0; i < 10; i++) {
      fs.writeFileSync(w.lease, `${i}\n`);
      await new Promise((resolve) => setTimeout(resolve, 500));
    }
    assert.equal(exited, false, `renewed for 5 s, over twice the bound: ${w.stderr()}`);
    w.child.kill("SIGTERM");
    assert.equal(await w.exited, 4, "the server's own exit code");
    assert.doesNotMatch(w.stderr(), /not renewed/);
    fs.rmSync(w.dir, { recursive: true, force: true });
  });

  test(
    `${name}: a server that exits on its own leaves its code, the watcher stays while renewed`,
    { timeout: 30_000 },
    async () => {
      const w = watcher(shell, "exit 7");
      let exited = false;
      void w.exited.then(() => (exited = true));
      for (let i = 0; i < 8; i++) {
        fs.writeFileSync(w.lease, `${i}\n`);
        await new Promise((resolve) => setTimeout(resolve, 500));
      }
      assert.equal(exited, false, `kept while renewed: ${w.stderr()}`);
      assert.equal(fs.readFileSync(`${w.lease}.exit`, "utf8"), "7\n");
      // Then the lease lapses: the watcher exits with the server's code.
      assert.equal(await w.exited, 7);
      assert.match(w.stderr(), /exited with code 7/);
      fs.rmSync(w.dir, { recursive: true, force: true });
    },
  );
}

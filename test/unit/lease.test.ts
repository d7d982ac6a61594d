/**
 * The lease on a remote engine's containers (lib/targets/docker/lease.ts) without Docker: the
 * bound's arithmetic, the entrypoint that wraps the image's own, and the watcher script itself,
 * run by this machine's /bin/sh (and busybox sh, the stand-in image's, where it is installed) with
 * a bound of 2 s around a stand-in "server" shell; the renewer against a fake container whose
 * archive uploads the test answers, fails or leaves hanging.
 */
import { test } from "node:test";
import assert from "node:assert/strict";
import { spawn, spawnSync } from "node:child_process";
import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import { extract as tarExtract } from "tar-stream";
import {
  DEFAULT_LEASE_SECONDS,
  goneOnRestart,
  LEASE_SCRIPT,
  LeaseRenewer,
  type LeasedContainer,
  type LeaseTiming,
  leasedEntrypoint,
  leaseSecondsFromEnv,
  leaseTiming,
  leaseWorstCaseSeconds,
} from "../../lib/targets/docker/lease";

test("the default bound: renewed every 10 s, the watcher's bound 135 s, looked at every 5 s, 10 s of grace, gone within 150 s", () => {
  const t = leaseTiming(DEFAULT_LEASE_SECONDS);
  assert.deepEqual(t, {
    boundSeconds: 120,
    requestTimeoutMs: 15_000,
    watcherBoundSeconds: 135,
    tickSeconds: 5,
    graceSeconds: 10,
    renewMs: 10_000,
  });
  assert.equal(leaseWorstCaseSeconds(t), 150);
  // More than the stall watchdog's floor (60 s): a run cut off from its engine is told so first.
  assert.ok(t.boundSeconds > 60);
  assert.ok(t.boundSeconds * 1000 >= 10 * t.renewMs, "at least ten renewals may be missed");
});

test("short bounds (the tests') keep whole-second looks and renew several times per bound", () => {
  assert.deepEqual(leaseTiming(6), {
    boundSeconds: 6,
    requestTimeoutMs: 1500,
    watcherBoundSeconds: 8,
    tickSeconds: 1,
    graceSeconds: 6,
    renewMs: 500,
  });
  assert.deepEqual(leaseTiming(1.2), {
    boundSeconds: 2,
    requestTimeoutMs: 1000,
    watcherBoundSeconds: 3,
    tickSeconds: 1,
    graceSeconds: 2,
    renewMs: 500,
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

test("the watcher's bound is the client's bound plus the request timeout, rounded up to whole seconds, never less", () => {
  // The margins: the request timeout's floor (1 s) and ceiling (15 s), a quarter-second that rounds up.
  assert.equal(leaseTiming(4).watcherBoundSeconds, 5);
  assert.equal(leaseTiming(5).watcherBoundSeconds, 7);
  assert.equal(leaseTiming(16).watcherBoundSeconds, 20);
  assert.equal(leaseTiming(59).watcherBoundSeconds, 74);
  assert.equal(leaseTiming(60).watcherBoundSeconds, 75);
  assert.equal(leaseTiming(61).watcherBoundSeconds, 76);
  for (let bound = 1; bound <= 4000; bound++) {
    const t = leaseTiming(bound);
    // A renewal answered at A within its timeout was sent, and so landed, no earlier than
    // A - requestTimeout; the watcher stops the server no earlier than watcherBound after the
    // landing: that is never before A + bound (lease.ts, the module comment).
    assert.ok(t.watcherBoundSeconds * 1000 >= t.boundSeconds * 1000 + t.requestTimeoutMs, `bound ${bound} s`);
    assert.ok(t.watcherBoundSeconds * 1000 < t.boundSeconds * 1000 + t.requestTimeoutMs + 1000, `bound ${bound} s`);
    assert.equal(leaseWorstCaseSeconds(t), t.watcherBoundSeconds + t.tickSeconds + t.graceSeconds);
  }
});

/** One archive upload the fake container received: the lease's content and the request's fate. */
interface Upload {
  readonly content: string;
  readonly signal: AbortSignal;
  readonly answer: () => void;
  readonly fail: (error: Error) => void;
}

/** A container whose putArchive waits for the test to answer it, fail it or let it hang (until aborted). */
function fakeContainer() {
  const uploads: Upload[] = [];
  const waiting: Array<{ n: number; resolve: (u: Upload) => void }> = [];
  const container = {
    id: "fa4e".repeat(16),
    async putArchive(file: NodeJS.ReadableStream, options: { path: string; abortSignal: AbortSignal }) {
      assert.equal(options.path, "/tmp");
      const content = await tarText(file);
      return new Promise<void>((resolve, reject) => {
        // A request in flight holds its socket, which keeps the process alive (the renewer's own
        // timers are unref'd): this handle stands for it until the request is settled.
        const socket = setInterval(() => undefined, 60_000);
        const settle =
          <A extends unknown[]>(f: (...a: A) => void) =>
          (...a: A) => {
            clearInterval(socket);
            f(...a);
          };
        const signal = options.abortSignal;
        signal.addEventListener(
          "abort",
          settle(() => reject(new Error("aborted"))),
          { once: true },
        );
        uploads.push({ content, signal, answer: settle(resolve), fail: settle(reject) });
        for (const w of waiting.filter((w) => uploads.length >= w.n)) w.resolve(uploads[w.n - 1]);
      });
    },
  } as unknown as LeasedContainer;
  /** The nth upload (from 1), once it has arrived. */
  const nth = (n: number) =>
    uploads.length >= n
      ? Promise.resolve(uploads[n - 1])
      : new Promise<Upload>((resolve) => waiting.push({ n, resolve }));
  return { container, uploads, nth };
}

function tarText(file: NodeJS.ReadableStream): Promise<string> {
  return new Promise((resolve, reject) => {
    const extract = tarExtract();
    let body = "";
    extract.on("entry", (header, entry, next) => {
      assert.equal(header.name, "db-write-lab.lease");
      entry.on("data", (c: unknown) => (body += String(c)));
      entry.on("end", next);
    });
    extract.on("finish", () => resolve(body));
    extract.on("error", reject);
    file.pipe(extract);
  });
}

/** A short bound's timing (the request timeout 1 s), armed at time 0 so that any success moves it. */
const SHORT: LeaseTiming = leaseTiming(4);

test(
  "a renewal whose request hangs does not hold back the next; it is aborted at its timeout and moves nothing",
  { timeout: 20_000 },
  async () => {
    const fake = fakeContainer();
    const renewer = new LeaseRenewer(fake.container, SHORT, 0);
    const hung = renewer.renew();
    const first = await fake.nth(1);
    const next = renewer.renew();
    const second = await fake.nth(2);
    assert.deepEqual([first.content, second.content], ["1\n", "2\n"], "each renewal writes the next number");
    assert.equal(renewer.pending, 2, "both in flight at once");
    assert.equal(renewer.lastSuccessAt, 0, "nothing answered yet");
    second.answer();
    await next;
    const renewedAt = renewer.lastSuccessAt;
    assert.ok(renewedAt > 0, "the answered renewal moved the lease");
    assert.equal(renewer.lastFailure, undefined);
    await hung;
    assert.equal(first.signal.aborted, true, "the hung request was aborted");
    // Read through a function: the assertion above narrowed the field for the compiler.
    const failure = (): Error | undefined => renewer.lastFailure;
    assert.match(String(failure()?.cause), /no answer within 1 s/);
    assert.equal(renewer.lastSuccessAt, renewedAt, "a failure never moves the lease");
    assert.equal(renewer.pending, 0);
  },
);

test(
  "a refused renewal is recorded with its cause and moves nothing; the next success clears it",
  { timeout: 20_000 },
  async () => {
    const fake = fakeContainer();
    const renewer = new LeaseRenewer(fake.container, SHORT, 0);
    const refused = renewer.renew();
    (await fake.nth(1)).fail(Object.assign(new Error("(HTTP code 500) server error"), { statusCode: 500 }));
    await refused;
    assert.equal(renewer.lastSuccessAt, 0);
    assert.match(renewer.lastFailure?.message ?? "", /renewing the lease on container fa4efa4efa4e failed/);
    assert.match(String(renewer.lastFailure?.cause), /HTTP code 500/);
    const ok = renewer.renew();
    (await fake.nth(2)).answer();
    await ok;
    assert.ok(renewer.lastSuccessAt > 0);
    assert.equal(renewer.lastFailure, undefined);
  },
);

test(
  "slow renewals answered out of order: each success counts, the lease only moves forwards",
  { timeout: 20_000 },
  async () => {
    const fake = fakeContainer();
    const renewer = new LeaseRenewer(fake.container, SHORT, 0);
    const slow = renewer.renew();
    const fast = renewer.renew();
    const [first, second] = [await fake.nth(1), await fake.nth(2)];
    second.answer();
    await fast;
    const afterFast = renewer.lastSuccessAt;
    first.answer();
    await slow;
    assert.ok(renewer.lastSuccessAt >= afterFast);
    assert.equal(renewer.lastFailure, undefined);
    renewer.rearmed(0);
    assert.ok(renewer.lastSuccessAt >= afterFast, "a restart requested before the last success moves nothing back");
  },
);

test(
  "on its timer, renewals go out on time while every earlier one still hangs; stop() aborts them all",
  { timeout: 20_000 },
  async () => {
    const fake = fakeContainer();
    // A request timeout far over the test's: a renewer that waited for the previous request would
    // send the second only after it, and this test would time out.
    const renewer = new LeaseRenewer(fake.container, { ...SHORT, requestTimeoutMs: 600_000 }, 0);
    renewer.start();
    const third = await fake.nth(3);
    assert.equal(fake.uploads.filter((u) => u.signal.aborted).length, 0, "none timed out");
    assert.equal(third.content, "3\n");
    assert.ok(renewer.pending >= 3);
    renewer.stop();
    assert.equal(renewer.pending, 0);
    assert.ok(
      fake.uploads.every((u) => u.signal.aborted),
      "stop() aborted every request in flight",
    );
    assert.equal(renewer.lastSuccessAt, 0);
  },
);

test("a restart re-arms the lease from the time it was requested; the message about a gone container reads it", () => {
  const fake = fakeContainer();
  const renewer = new LeaseRenewer(fake.container, SHORT, Date.now() - 100_000);
  assert.match(renewer.describeGone(), /last renewed 100 s ago, past its bound of 4 s/);
  renewer.rearmed(Date.now());
  assert.match(renewer.describeGone(), /renewed 0 s ago, within its bound of 4 s/);
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
    "135",
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

/**
 * The watcher with a `bound` of seconds around `server` (sh code), its lease file in a fresh folder. Tests
 * that renew use 5 s: 10 renewals a bound, so a test process starved for a few seconds on a loaded box
 * (the suite beside a dozen builds) still renews within it.
 */
function watcher(shell: string[], server: string, bound = 2) {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), "dblab-lease-test-"));
  const lease = path.join(dir, "lease");
  const [cmd, ...pre] = shell;
  const child = spawn(
    cmd,
    [...pre, "-c", LEASE_SCRIPT, "x", String(bound), "1", "1", "INT", lease, cmd, ...pre, "-c", server],
    {
      stdio: ["ignore", "ignore", "pipe"],
    },
  );
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
    const w = watcher(shell, SERVER, 5);
    let exited = false;
    void w.exited.then(() => (exited = true));
    for (let i = 0; i < 20; i++) {
      fs.writeFileSync(w.lease, `${i}\n`);
      await new Promise((resolve) => setTimeout(resolve, 500));
    }
    assert.equal(exited, false, `renewed for 10 s, twice the bound: ${w.stderr()}`);
    // Renewed on while the server stops, as the lab does until its container is gone: the server's
    // own TERM trap waits out its `sleep 1`, longer still on a loaded box, and a lease left unrenewed
    // for that time may lapse and say so (CI on the slower box saw it).
    let i = 20;
    const renewing = setInterval(() => fs.writeFileSync(w.lease, `${i++}\n`), 500);
    w.child.kill("SIGTERM");
    const code = await w.exited;
    clearInterval(renewing);
    assert.equal(code, 4, "the server's own exit code");
    assert.doesNotMatch(w.stderr(), /not renewed/);
    fs.rmSync(w.dir, { recursive: true, force: true });
  });

  test(
    `${name}: a server that exits on its own leaves its code, the watcher stays while renewed`,
    { timeout: 30_000 },
    async () => {
      const w = watcher(shell, "exit 7", 5);
      let exited = false;
      void w.exited.then(() => (exited = true));
      for (let i = 0; i < 16; i++) {
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

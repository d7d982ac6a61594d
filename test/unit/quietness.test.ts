/** Quietness: other work on the host, this run's process tree left out (Linux /proc). */
import { test } from "node:test";
import assert from "node:assert/strict";
import { spawn } from "node:child_process";
import os from "node:os";
import {
  busyHostNote,
  closeWindow,
  disturbances,
  hostWindow,
  openWindow,
  OWN_TREE_ROOT_ENV,
  ownTreeRoot,
  processTreeTicks,
  quietnessText,
  type CpuTimes,
} from "../../lib/results/quietness";

const linux = process.platform === "linux";
/** Spins until it has used `ms` of CPU, whatever else the host runs: a fixed amount of work, not of wall time. */
const spin = (ms: number) => `while(process.cpuUsage().user/1000<${ms}){}`;
const exited = (pid: number) =>
  new Promise<void>((resolve) => {
    const poll = setInterval(() => {
      try {
        process.kill(pid, 0);
      } catch {
        clearInterval(poll);
        resolve();
      }
    }, 20);
  });

const cpu = (total: number, idle: number, processes: number): CpuTimes => ({ total, idle, steal: 0, processes });

test("hostWindow: other work is what processes used less this tree's ticks, never below 0, only when asked", () => {
  const [from, to] = [cpu(1000, 500, 400), cpu(1200, 600, 480)];
  assert.equal(hostWindow(from, to, 1).otherBusyShare, undefined);
  assert.equal(hostWindow(from, to, 1).busyShare, 0.5);
  assert.equal(hostWindow(from, to, 1, 0).otherBusyShare, 80 / 200);
  assert.equal(hostWindow(from, to, 1, 30).otherBusyShare, 50 / 200);
  assert.equal(hostWindow(from, to, 1, 80).otherBusyShare, 0);
  assert.equal(hostWindow(from, to, 1, 120).otherBusyShare, 0);
});

test("disturbances: other work above a quarter of the CPUs before or during the run is named; at it, not", () => {
  const sample = (otherBusyShare: number) => ({ loadAverage1m: 1, busyShare: 0.9, otherBusyShare, seconds: 1 });
  const at = { cpus: 2, before: sample(0.25), during: { ...sample(0.25), maxLoadAverage1m: 1 } };
  assert.deepEqual(disturbances(at), []);
  const above = { cpus: 2, before: sample(0.26), during: { ...sample(0.3), maxLoadAverage1m: 1 } };
  assert.deepEqual(disturbances(above), [
    "other work used 26.0 % of the CPUs before the run",
    "other work used 30.0 % of the CPUs during the run",
  ]);
  // A window that could not leave this run out: all busy time counts, as before.
  assert.deepEqual(disturbances({ cpus: 2, before: { loadAverage1m: 1, busyShare: 0.3, seconds: 1 } }), [
    "other work used 30.0 % of the CPUs before the run",
  ]);
  assert.match(
    quietnessText(above),
    /before \(while the servers started\):.*other work 26.0 %.*during.*other work 30.0 %/,
  );
});

test("a child's CPU counts as this tree's, also after it has ended", { skip: !linux }, async () => {
  const start = processTreeTicks();
  assert.ok(start !== undefined && start >= 0);
  const child = spawn(process.execPath, ["-e", spin(400)], { stdio: "ignore" });
  await new Promise((r) => child.on("exit", r));
  const used = (processTreeTicks() ?? NaN) - start;
  // 400 ms of CPU are 40 ticks at USER_HZ 100; reaped, they are in this process's children's times.
  assert.ok(used >= 35, `the tree's ticks grew by ${used}`);
  assert.equal(processTreeTicks(2 ** 30), undefined);
});

test("a process outside the tree is other work; this tree's own work is not", { skip: !linux }, async () => {
  const window = openWindow(true);
  // The shell ends at once, so the spinning node is adopted by init: no longer a descendant of this process.
  const sh = spawn("sh", ["-c", `${process.execPath} -e '${spin(500)}' & echo $!`], { stdio: ["ignore", "pipe"] });
  let out = "";
  sh.stdout?.on("data", (d: Buffer) => (out += d.toString()));
  await new Promise((r) => sh.on("exit", r));
  await exited(Number(out.trim()));
  const sample = await closeWindow(window, 0);
  const ticks = sample.seconds * 100 * os.cpus().length;
  assert.ok(sample.otherBusyShare !== undefined, JSON.stringify(sample));
  // 50 ticks spun outside the tree: other work holds at least most of them, whatever this tree did meanwhile.
  assert.ok(sample.otherBusyShare * ticks >= 40, `other work ${sample.otherBusyShare} of ${ticks} ticks`);
  assert.equal((await closeWindow(openWindow(false), 0)).otherBusyShare, undefined);
});

test("busyHostNote: said above a quarter of the CPUs of other work, this run's own work left out", () => {
  const at = (busyShare: number, otherBusyShare?: number) => ({
    loadAverage1m: 1,
    busyShare,
    otherBusyShare,
    seconds: 1,
  });
  assert.equal(busyHostNote(at(0.9, 0.25)), undefined, "the ETA's own probes are not other work");
  assert.match(busyHostNote(at(0.3, 0.26)) ?? "", /^note: other work is using 26\.0 % of the CPUs now; the ETAs above/);
  assert.equal(busyHostNote(at(0.25)), undefined);
  assert.match(busyHostNote(at(0.26)) ?? "", /26\.0 %/);
});

test("ownTreeRoot: the named process only when it is an ancestor of this one", { skip: !linux }, () => {
  const saved = process.env[OWN_TREE_ROOT_ENV];
  try {
    delete process.env[OWN_TREE_ROOT_ENV];
    assert.equal(ownTreeRoot(), process.pid);
    process.env[OWN_TREE_ROOT_ENV] = String(process.ppid);
    assert.equal(ownTreeRoot(), process.ppid);
    const child = spawn("sleep", ["5"]);
    process.env[OWN_TREE_ROOT_ENV] = String(child.pid);
    assert.equal(ownTreeRoot(), process.pid, "a child is not an ancestor");
    child.kill();
    for (const bad of ["1", "0", "x", String(2 ** 30)]) {
      process.env[OWN_TREE_ROOT_ENV] = bad;
      assert.equal(ownTreeRoot(), process.pid, bad);
    }
  } finally {
    if (saved === undefined) delete process.env[OWN_TREE_ROOT_ENV];
    else process.env[OWN_TREE_ROOT_ENV] = saved;
  }
});

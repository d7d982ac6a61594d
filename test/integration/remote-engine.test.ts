// test-tier: host — a network namespace with its own dockerd and sshd, iptables, the local daemon
/**
 * A remote Docker engine, made on this machine: test/support/remote-engine.sh creates a network
 * namespace with its own address, dockerd and sshd. The lab, in the root namespace, reaches it as
 * DOCKER_HOST=ssh://root@<address> (or through a docker context) and must never touch the local
 * engine. Traffic goes to that namespace only. Skipped, with the script's reason, where namespaces
 * cannot be made (not root, no sshd, no dockerd).
 */
import { SMALL_FULL_02 } from "../support/sizes";
import { after, before, test, type TestContext } from "node:test";
import assert from "node:assert/strict";
import { spawn, spawnSync } from "node:child_process";
import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import { remoteDockerHostUp, type RemoteDockerHostVars } from "../support/remote-engine";
import Docker from "dockerode";
import { Client } from "pg";
import { describeFailure, executeNotebook, jupyterUnavailableReason } from "../../lib/jupyter/execute";
import { projectRoot } from "../../lib/jupyter/kernel-spec";
import { EXPERIMENTS } from "../../lib/experiments/registry";
import { isProcessAlive, listRecords } from "../../lib/runtime/resource-registry";
import { LAB_LABEL, socketClient } from "../../lib/targets/docker/docker-client";
import { contextDirName } from "../../lib/targets/docker/endpoint";
import { LEASE_DIR, LEASE_NAME, leaseTiming, leaseWorstCaseSeconds } from "../../lib/targets/docker/lease";
import { extract as tarExtract } from "tar-stream";
import { withEnv } from "../support/env";

const root = projectRoot();
const SCRIPT = path.join(root, "test", "support", "remote-engine.sh");
const box = fs.mkdtempSync(path.join(os.tmpdir(), "dblab-remote-test-"));
const engineDir = path.join(box, "engine");
// Own namespace and subnets, so a developer's own remote-engine.sh (default names) can run beside.
// DBLAB_REMOTE_NS / DBLAB_REMOTE_NET in the environment win (parallel developers pick their own).
const scriptEnv = {
  ...process.env,
  DBLAB_REMOTE_NS: process.env.DBLAB_REMOTE_NS ?? `dblabt${process.pid % 10000}`,
  DBLAB_REMOTE_NET: process.env.DBLAB_REMOTE_NET ?? "10.231.40",
};

type RemoteEngine = RemoteDockerHostVars;

let remote: RemoteEngine | undefined;
let unavailable: string | undefined;

before(() => {
  const up = remoteDockerHostUp(SCRIPT, engineDir, scriptEnv);
  if ("unavailable" in up) unavailable = up.unavailable;
  else remote = up.engine;
});

after(() => {
  spawnSync("bash", [SCRIPT, "down", engineDir], { env: scriptEnv, timeout: 120_000 });
  fs.rmSync(box, { recursive: true, force: true });
});

function need(t: TestContext): RemoteEngine | undefined {
  if (!remote) t.skip(unavailable ?? "no remote engine");
  return remote;
}

/** The environment of a lab process that uses the namespace engine over SSH, with its own state dir. */
function labEnv(r: RemoteEngine, stateDir: string): Record<string, string> {
  return { HOME: r.home, DOCKER_HOST: r.dockerHost, DBLAB_STATE_DIR: stateDir, DBLAB_TARGET: "docker" };
}

/** Containers created on an engine since `since` (seconds) by lab processes of that state dir. */
async function createdBy(docker: Docker, stateDir: string, since: number): Promise<string[]> {
  const until = Math.ceil(Date.now() / 1000) + 1;
  const filters = JSON.stringify({
    type: ["container"],
    event: ["create"],
    label: [`${LAB_LABEL}.state-dir=${stateDir}`],
  });
  const raw = (await docker.getEvents({ since, until, filters } as Docker.GetEventsOptions)) as unknown;
  const text = Buffer.isBuffer(raw) ? raw.toString("utf8") : await streamText(raw as NodeJS.ReadableStream);
  return text
    .split("\n")
    .filter(Boolean)
    .map((l) => (JSON.parse(l) as { id: string }).id);
}

async function streamText(stream: NodeJS.ReadableStream): Promise<string> {
  const chunks: Buffer[] = [];
  for await (const c of stream) chunks.push(Buffer.from(c as Buffer));
  return Buffer.concat(chunks).toString("utf8");
}

function localDocker(): Docker | undefined {
  const socket = "/var/run/docker.sock";
  return fs.existsSync(socket) ? socketClient(socket) : undefined;
}

test(
  "notebook 01 smoke through DOCKER_HOST=ssh://: stand-in built there, database through the SSH tunnel, nothing on the local engine",
  { timeout: 900_000 },
  async (t) => {
    const r = need(t);
    if (!r) return;
    const missing = jupyterUnavailableReason();
    if (missing) return t.skip(`Jupyter not available: ${missing}`);
    const remoteDocker = socketClient(r.socket);
    const stateDir = path.join(box, "state-notebook");
    const resultsDir = path.join(box, "results");
    const since = Math.floor(Date.now() / 1000) - 1;
    const entry = EXPERIMENTS.find((n) => n.id === "01");
    assert.ok(entry);
    const result = await executeNotebook({
      notebook: path.join(root, entry.file),
      outputIpynb: path.join(box, "01-remote.ipynb"),
      profile: "smoke",
      env: { ...labEnv(r, stateDir), DBLAB_RESULTS_DIR: resultsDir, DBLAB_RUN_ID: "test-01-remote" },
    });
    assert.equal(result.status, "ok", result.message ?? (result.failure && describeFailure(result.failure)));
    t.diagnostic(`notebook 01 smoke through ${r.dockerHost}: ${(result.durationMs / 1000).toFixed(1)} s`);

    const run = fs.readdirSync(resultsDir).find((d) => d.startsWith("test-01-remote_"));
    assert.ok(run, "a results folder");
    const metadata = JSON.parse(fs.readFileSync(path.join(resultsDir, run, "metadata.json"), "utf8")) as {
      servers: {
        route?: string;
        dockerHost?: string;
        dockerHostRttMs?: number;
        address: string;
        publishedAddress?: string;
      }[];
    };
    const pg = metadata.servers[0];
    assert.equal(pg.route, "ssh-tunnel");
    assert.match(pg.dockerHost ?? "", new RegExp(r.address.replace(/\./g, "\\.")));
    assert.equal(typeof pg.dockerHostRttMs, "number");
    assert.match(pg.publishedAddress ?? "", /^127\.0\.0\.1:\d+$/, "published on the remote loopback only");
    t.diagnostic(`route ${pg.route}, engine ${pg.dockerHost}, engine RTT ${pg.dockerHostRttMs?.toFixed(3)} ms`);

    // The stand-in image was built on the remote engine (no registry: it could come from nowhere else).
    const images = await remoteDocker.listImages({ filters: { label: [`${LAB_LABEL}.stand-in=true`] } });
    assert.ok(images.length >= 1, "stand-in image on the remote engine");
    assert.ok(
      (await createdBy(remoteDocker, stateDir, since)).length >= 1,
      "containers were created on the remote engine",
    );
    const local = localDocker();
    if (local) {
      const onLocal = await createdBy(local, stateDir, since).catch(() => []);
      assert.deepEqual(onLocal, [], "no container of this run on the local engine");
    }
    const left = await remoteDocker.listContainers({
      all: true,
      filters: { label: [`${LAB_LABEL}.state-dir=${stateDir}`] },
    });
    assert.deepEqual(left, [], "the run removed its containers");
  },
);

/** A lab process that starts PostgreSQL on the remote engine and then runs queries until killed. */
const RUNNER = `
const { DockerTarget } = require(${JSON.stringify(path.join(root, "build", "lib", "targets", "docker", "docker-target.js"))});
const { Client } = require(${JSON.stringify(require.resolve("pg"))});
(async () => {
  const server = await new DockerTarget({ forceStandIn: true, cpus: 1, memoryBytes: 512 * 1024 ** 2 }).start({ engine: "postgresql", name: "kill-test" });
  const client = new Client(server.connection);
  await client.connect();
  await client.query("CREATE TABLE t (id serial primary key, v text)");
  process.stdout.write("ready " + server.containerId + "\\n");
  for (;;) await client.query("INSERT INTO t (v) SELECT md5(g::text) FROM generate_series(1, 100) g");
})().catch((e) => { process.stderr.write(String(e && e.stack || e)); process.exit(1); });
`;

test(
  "kill -9 of a runner mid-trial, then npm run clean removes its container on the remote engine over SSH",
  { timeout: 300_000 },
  async (t) => {
    const r = need(t);
    if (!r) return;
    const remoteDocker = socketClient(r.socket);
    const stateDir = path.join(box, "state-kill");
    const script = path.join(box, "runner.js");
    fs.writeFileSync(script, RUNNER);
    const child = spawn(process.execPath, [script], {
      env: { ...process.env, ...labEnv(r, stateDir) },
      stdio: ["ignore", "pipe", "pipe"],
    });
    let stderr = "";
    child.stderr.on("data", (c: Buffer) => (stderr += c.toString()));
    const containerId = await new Promise<string>((resolve, reject) => {
      let out = "";
      child.stdout.on("data", (c: Buffer) => {
        out += c.toString();
        const m = /ready (\w+)/.exec(out);
        if (m) resolve(m[1]);
      });
      child.once("exit", (code) => reject(new Error(`runner exited (${code}) before it was ready: ${stderr}`)));
    });
    // Mid-trial: the runner is inserting rows through the tunnel when it dies.
    await new Promise((resolve) => setTimeout(resolve, 500));
    child.kill("SIGKILL");
    await new Promise((resolve) => child.once("exit", resolve));
    assert.equal(
      (await remoteDocker.getContainer(containerId).inspect()).State.Running,
      true,
      "left running on the remote engine",
    );

    process.env.DBLAB_STATE_DIR = stateDir;
    const records = listRecords().filter((rec) => rec.resource.type === "docker-container");
    assert.equal(records.length, 1);
    const resource = records[0].resource;
    assert.ok(
      resource.type === "docker-container" && resource.dockerHost === r.dockerHost,
      "the record names the remote engine",
    );

    // DOCKER_HOST now names no engine at all: clean must find the remote one through the record.
    const clean = spawnSync(process.execPath, [path.join(root, "build", "scripts", "clean.js")], {
      env: {
        ...process.env,
        HOME: r.home,
        DBLAB_STATE_DIR: stateDir,
        DOCKER_HOST: `unix://${path.join(box, "no-engine.sock")}`,
      },
      encoding: "utf8",
      timeout: 120_000,
    });
    assert.equal(clean.status, 0, clean.stderr);
    assert.match(clean.stdout, /removed container .*on ssh:\/\//);
    await assert.rejects(
      remoteDocker.getContainer(containerId).inspect(),
      (e: { statusCode?: number }) => e.statusCode === 404,
    );
    assert.deepEqual(listRecords(), []);
  },
);

/** The bound these tests give the lease (DBLAB_LEASE_SECONDS), and their margin for shutdown and removal. */
const TEST_LEASE_SECONDS = 6;
/**
 * The bound for the tests that hold a server for a while (through a restart, or until a SIGKILL).
 * With 6 s and 16 s, one renewal hung through a restart once cost a live run its server (exit 137):
 * renewals then waited for each other. They no longer do, and the watcher's bound covers the
 * longest request (lease.ts); the hold test injects hung and slow renewals and a restart in the
 * middle of one to show it, at the bound of the failed run.
 */
const HOLD_LEASE_SECONDS = 16;
const LEASE_MARGIN_MS = 30_000;

/** The number in a leased container's lease file (how many renewals reached it), undefined when unreadable. */
async function leaseNumber(docker: Docker, containerId: string): Promise<number | undefined> {
  let stream: NodeJS.ReadableStream;
  try {
    stream = await docker.getContainer(containerId).getArchive({ path: `${LEASE_DIR}/${LEASE_NAME}` });
  } catch {
    return undefined; // not written yet
  }
  const text = await new Promise<string>((resolve, reject) => {
    const extract = tarExtract();
    let body = "";
    extract.on("entry", (_header, entry, next) => {
      entry.on("data", (c: unknown) => (body += String(c)));
      entry.on("end", next);
    });
    extract.on("finish", () => resolve(body));
    extract.on("error", reject);
    stream.pipe(extract);
  });
  const n = Number.parseInt(text, 10);
  return Number.isFinite(n) ? n : undefined;
}

/** Lab containers of `stateDir` on the engine, running or not. */
async function labContainers(docker: Docker, stateDir: string): Promise<Docker.ContainerInfo[]> {
  return docker.listContainers({ all: true, filters: { label: [`${LAB_LABEL}.state-dir=${stateDir}`] } });
}

/** Starts `script` as a lab process on the namespace engine; resolves with it once it printed "ready <id>". */
async function startRunner(
  r: RemoteEngine,
  stateDir: string,
  script: string,
  env: Record<string, string>,
): Promise<{ child: ReturnType<typeof spawn>; containerId: string; output: () => string }> {
  const child = spawn(process.execPath, [script], {
    env: { ...process.env, ...labEnv(r, stateDir), ...env },
    stdio: ["ignore", "pipe", "pipe"],
  });
  let out = "";
  let stderr = "";
  child.stderr?.on("data", (c: Buffer) => (stderr += c.toString()));
  const containerId = await new Promise<string>((resolve, reject) => {
    child.stdout?.on("data", (c: Buffer) => {
      out += c.toString();
      const m = /ready (\w+)/.exec(out);
      if (m) resolve(m[1]);
    });
    child.once("exit", (code) => reject(new Error(`runner exited (${code}) before it was ready: ${stderr}`)));
  });
  return { child, containerId, output: () => `${out}\n${stderr}` };
}

test(
  "a lab process killed with SIGKILL, the link left up: its container on the remote engine ends itself once the lease's bound has passed",
  { timeout: 600_000 },
  async (t) => {
    const r = need(t);
    if (!r) return;
    const remoteDocker = socketClient(r.socket);
    const stateDir = path.join(box, "state-lease-kill");
    const script = path.join(box, "runner-lease.js");
    fs.writeFileSync(script, RUNNER);
    // HOLD_LEASE_SECONDS, not 6 s: with 6 s, beside another test file, a renewal over SSH took longer
    // than the bound while the server was still starting, and its watcher stopped it before it was ready.
    const runner = await startRunner(r, stateDir, script, { DBLAB_LEASE_SECONDS: String(HOLD_LEASE_SECONDS) });
    // Mid-trial, as in the test above, once the lease has been renewed a few times.
    while (((await leaseNumber(remoteDocker, runner.containerId)) ?? 0) < 3) {
      assert.equal((await remoteDocker.getContainer(runner.containerId).inspect()).State.Running, true);
      await new Promise((resolve) => setTimeout(resolve, 250));
    }
    assert.equal((await remoteDocker.getContainer(runner.containerId).inspect()).State.Running, true);
    runner.child.kill("SIGKILL");
    await new Promise((resolve) => runner.child.once("exit", resolve));
    const killedAt = Date.now();
    // The lease's worst case (the watcher's bound, one look, the grace: lease.ts) plus a margin for
    // the removal, counted from the kill: no renewal can reach the container after it.
    const worstCase = leaseWorstCaseSeconds(leaseTiming(HOLD_LEASE_SECONDS));
    const deadline = killedAt + worstCase * 1000 + LEASE_MARGIN_MS;
    let left = await labContainers(remoteDocker, stateDir);
    while (left.length > 0 && Date.now() < deadline) {
      await new Promise((resolve) => setTimeout(resolve, 250));
      left = await labContainers(remoteDocker, stateDir);
    }
    t.diagnostic(
      `lease ${HOLD_LEASE_SECONDS} s: ${left.length === 0 ? `no lab container ${((Date.now() - killedAt) / 1000).toFixed(1)} s after SIGKILL` : "still there"}`,
    );
    assert.deepEqual(
      left.map((c) => `${c.Id.slice(0, 12)} ${c.State}`),
      [],
      "no lab container on the engine after the lease's bound and the margin",
    );
    // The record the killed process left names a container that is gone: clean drops it.
    const clean = spawnSync(process.execPath, [path.join(root, "build", "scripts", "clean.js")], {
      env: { ...process.env, HOME: r.home, DBLAB_STATE_DIR: stateDir, DOCKER_HOST: r.dockerHost },
      encoding: "utf8",
      timeout: 120_000,
    });
    assert.equal(clean.status, 0, clean.stderr);
  },
);

/**
 * A lab process that holds a server for several lease bounds while writing through it, restarts it
 * (Docker's restart, not an expiry) in the middle of a renewal, writes again, then stops it.
 * Its lease renewals go through a seam of the test's own (dockerode's putArchive wrapped for the
 * lease file's folder, in this process only): of every HUNG_RUN + 2 renewals, HUNG_RUN in a row
 * hang until the renewer aborts them past their request timeout (as many as make up the whole
 * bound in request timeouts: renewals that waited for each other, as they once did, would leave
 * the lease unrenewed for the bound), the others wait half the request timeout before they are
 * sent; and the restart is started while one renewal is held, which is sent as the restart begins.
 * What the seam did is printed with the result, so that the test knows the faults happened.
 */
const LONG_RUNNER = `
const { DockerTarget } = require(${JSON.stringify(path.join(root, "build", "lib", "targets", "docker", "docker-target.js"))});
const { leaseTiming, LEASE_DIR } = require(${JSON.stringify(path.join(root, "build", "lib", "targets", "docker", "lease.js"))});
const Container = require(${JSON.stringify(require.resolve("dockerode/lib/container"))});
const { Client } = require(${JSON.stringify(require.resolve("pg"))});
const timing = leaseTiming(Number(process.env.DBLAB_LEASE_SECONDS));
const HUNG_RUN = Math.ceil((timing.boundSeconds * 1000) / timing.requestTimeoutMs);
const seam = { sent: 0, hung: 0, answered: 0, answeredAfterHang: 0, held: "none" };
let holdNext;
const own = Container.prototype.putArchive;
Container.prototype.putArchive = function (file, opts, callback) {
  if (callback || !opts || opts.path !== LEASE_DIR) return own.call(this, file, opts, callback);
  const n = ++seam.sent;
  const signal = opts.abortSignal ?? new AbortController().signal;
  // Waits for start's go-ahead, or rejects as an aborted request does if the renewer aborts first.
  const abortable = (start) => new Promise((resolve, reject) => {
    let settled = false;
    const stop = start(() => { settled = true; resolve(); });
    signal.addEventListener("abort", () => {
      if (settled) return;
      stop();
      reject(new Error("aborted by the renewer"));
    }, { once: true });
  });
  const send = () => own.call(this, file, opts).then((answer) => {
    seam.answered++;
    if (seam.hung > 0) seam.answeredAfterHang++;
    return answer;
  });
  if (holdNext) {
    const hold = holdNext;
    holdNext = undefined;
    return abortable((resolve) => { hold(resolve); return () => (seam.held = "aborted"); }).then(send).then((a) => {
      seam.held = "answered";
      return a;
    });
  }
  if (n % (HUNG_RUN + 2) >= 2) {
    seam.hung++;
    return abortable(() => () => undefined);
  }
  return abortable((resolve) => {
    const timer = setTimeout(resolve, timing.requestTimeoutMs / 2);
    return () => clearTimeout(timer);
  }).then(send);
};
async function writeFor(server, ms) {
  const client = new Client(server.connection);
  await client.connect();
  await client.query("CREATE TABLE IF NOT EXISTS t (id serial primary key, v text)");
  let n = 0;
  for (const end = Date.now() + ms; Date.now() < end; n++) {
    await client.query("INSERT INTO t (v) SELECT md5(g::text) FROM generate_series(1, 100) g");
  }
  await client.end();
  return n;
}
(async () => {
  const bound = Number(process.env.DBLAB_LEASE_SECONDS) * 1000;
  const server = await new DockerTarget({ forceStandIn: true, cpus: 1, memoryBytes: 512 * 1024 ** 2 }).start({ engine: "postgresql", name: "lease-long" });
  process.stdout.write("ready " + server.containerId + "\\n");
  const before = await writeFor(server, 2 * bound);
  // The next renewal is held once it is sent; the restart starts while it is in flight, and it is
  // let go as the restart request goes out.
  const held = await new Promise((resolve) => (holdNext = resolve));
  const restarting = server.restart();
  held();
  await restarting;
  const after = await writeFor(server, bound);
  const gone = await server.processGone();
  await server.stop();
  process.stdout.write("done " + before + " " + after + " " + String(gone) + " " + JSON.stringify(seam) + "\\n");
})().catch((e) => { process.stderr.write(String(e && e.stack || e)); process.exit(1); });
`;

test(
  "a run that holds its remote container for several lease bounds, with renewals hung past their timeout or slow and a restart in the middle of one, keeps it while the lab renews; stop removes it",
  { timeout: 600_000 },
  async (t) => {
    const r = need(t);
    if (!r) return;
    const remoteDocker = socketClient(r.socket);
    const stateDir = path.join(box, "state-lease-long");
    const script = path.join(box, "runner-lease-long.js");
    fs.writeFileSync(script, LONG_RUNNER);
    const runner = await startRunner(r, stateDir, script, { DBLAB_LEASE_SECONDS: String(HOLD_LEASE_SECONDS) });
    const started = Date.now();
    const code = await new Promise<number | null>((resolve) => runner.child.once("exit", resolve));
    assert.equal(code, 0, runner.output());
    const m = /done (\d+) (\d+) (\S+) (\{.*\})/.exec(runner.output());
    assert.ok(m, runner.output());
    assert.ok(Number(m[1]) > 0 && Number(m[2]) > 0, "writes went through before and after the restart");
    assert.equal(m[3], "undefined", "the server was never seen gone");
    const seam = JSON.parse(m[4]) as {
      sent: number;
      hung: number;
      answered: number;
      answeredAfterHang: number;
      held: string;
    };
    // The faults happened: renewals hung past their timeout, others were answered after them, and
    // one renewal was in flight when the restart began (answered, or aborted at its timeout).
    const timing = leaseTiming(HOLD_LEASE_SECONDS);
    const hungRun = Math.ceil((timing.boundSeconds * 1000) / timing.requestTimeoutMs);
    assert.ok(seam.hung >= 2 * hungRun, `two runs of ${hungRun} renewals hung: ${m[4]}`);
    assert.ok(seam.answeredAfterHang >= 1, `renewals answered after a hung one: ${m[4]}`);
    assert.notEqual(seam.held, "none", `a renewal held across the restart: ${m[4]}`);
    t.diagnostic(
      `held ${((Date.now() - started) / 1000).toFixed(1)} s with a ${HOLD_LEASE_SECONDS} s lease: ${m[1]} + ${m[2]} inserts; renewals ${m[4]}`,
    );
    await assert.rejects(
      remoteDocker.getContainer(runner.containerId).inspect(),
      (e: { statusCode?: number }) => e.statusCode === 404,
    );
    assert.deepEqual(await labContainers(remoteDocker, stateDir), [], "stop removed it");
  },
);

test(
  "a leased server that cannot start on the remote engine fails with its exit code and log (its container kept up for them), and leaves no container behind",
  { timeout: 300_000 },
  async (t) => {
    const r = need(t);
    if (!r) return;
    const remoteDocker = socketClient(r.socket);
    const stateDir = path.join(box, "state-lease-bad");
    const script = path.join(box, "runner-lease-bad.js");
    fs.writeFileSync(
      script,
      `const { DockerTarget } = require(${JSON.stringify(path.join(root, "build", "lib", "targets", "docker", "docker-target.js"))});
new DockerTarget({ forceStandIn: true, cpus: 1, memoryBytes: 512 * 1024 ** 2 })
  .start({ engine: "postgresql", name: "lease-bad", settings: { no_such_setting: "1" } })
  .then(() => process.exit(3), (e) => { process.stdout.write(String(e && e.message)); process.exit(0); });
`,
    );
    const run = spawnSync(process.execPath, [script], {
      env: { ...process.env, ...labEnv(r, stateDir), DBLAB_LEASE_SECONDS: String(TEST_LEASE_SECONDS) },
      encoding: "utf8",
      timeout: 240_000,
    });
    assert.equal(run.status, 0, `${run.stdout}\n${run.stderr}`);
    assert.match(run.stdout, /exited with code \d+[\s\S]*no_such_setting/);
    assert.deepEqual(await labContainers(remoteDocker, stateDir), [], "no container left");
  },
);

test(
  "an unreachable remote engine: clean says so within its bound and keeps the record",
  { timeout: 180_000 },
  async (t) => {
    const r = need(t);
    if (!r) return;
    const stateDir = path.join(box, "state-unreachable");
    const dir = path.join(stateDir, "resources");
    fs.mkdirSync(dir, { recursive: true });
    // An address in the namespace's own subnet where nothing answers.
    const gone = `ssh://root@${r.address.replace(/\.\d+$/, ".3")}`;
    const record = {
      id: "test-unreachable",
      ownerPid: 2 ** 22 + 1, // above pid_max's default: never a live process
      createdAt: new Date().toISOString(),
      resource: {
        type: "docker-container",
        containerId: "0123456789ab",
        description: "container gone-test",
        dockerHost: gone,
      },
    };
    fs.writeFileSync(path.join(dir, "test-unreachable.json"), JSON.stringify(record));
    const clean = spawnSync(process.execPath, [path.join(root, "build", "scripts", "clean.js")], {
      env: {
        ...process.env,
        HOME: r.home,
        DBLAB_STATE_DIR: stateDir,
        DOCKER_HOST: `unix://${path.join(box, "no-engine.sock")}`,
      },
      encoding: "utf8",
      timeout: 120_000, // the bound: a hang fails here
    });
    assert.equal(clean.error, undefined, "clean ended by itself");
    // clean does all it can and exits 0, saying what it could not reach (the record stays).
    assert.equal(clean.status, 0, clean.stderr);
    assert.match(clean.stdout, /could not reach 1 resource\(s\); their records are kept/);
    assert.match(clean.stdout, /container gone-test .*Docker engine at ssh:\/\/root@[\d.]+/);
    assert.ok(fs.existsSync(path.join(dir, "test-unreachable.json")), "the record is kept for later");
  },
);

test(
  "DOCKER_CONTEXT selects a docker context (ssh endpoint); SELECT 1 through the tunnel",
  { timeout: 300_000 },
  async (t) => {
    const r = need(t);
    if (!r) return;
    const config = path.join(box, "docker-config");
    const meta = path.join(config, "contexts", "meta", contextDirName("ns-engine"));
    fs.mkdirSync(meta, { recursive: true });
    fs.writeFileSync(
      path.join(meta, "meta.json"),
      JSON.stringify({
        Name: "ns-engine",
        Metadata: {},
        Endpoints: { docker: { Host: r.dockerHost, SkipTLSVerify: false } },
      }),
    );
    const env = {
      HOME: r.home,
      DOCKER_CONFIG: config,
      DOCKER_CONTEXT: "ns-engine",
      DBLAB_STATE_DIR: path.join(box, "state-context"),
      DOCKER_HOST: undefined,
    };
    await withEnv(env, async () => {
      const { DockerTarget } = await import("../../lib/targets/docker/docker-target");
      const server = await new DockerTarget({ forceStandIn: true, cpus: 1, memoryBytes: 512 * 1024 ** 2 }).start({
        engine: "postgresql",
        name: "context-test",
      });
      try {
        assert.equal(server.description.route, "ssh-tunnel");
        const rec = listRecords().find((x) => x.resource.type === "docker-container");
        assert.ok(rec && rec.resource.type === "docker-container");
        assert.equal(rec.resource.dockerContext, "ns-engine");
        assert.equal(rec.resource.dockerHost, r.dockerHost);
        const remoteDocker = socketClient(r.socket);
        assert.equal(
          (await remoteDocker.getContainer(server.containerId).inspect()).State.Running,
          true,
          "on the context's engine",
        );
        const client = new Client(server.connection);
        await client.connect();
        try {
          const times: number[] = [];
          for (let i = 0; i < 300; i++) {
            const started = process.hrtime.bigint();
            await client.query("SELECT 1");
            times.push(Number(process.hrtime.bigint() - started) / 1000);
          }
          times.sort((a, b) => a - b);
          t.diagnostic(`SELECT 1 through the SSH tunnel: median ${times[150].toFixed(0)} µs (300 queries)`);
        } finally {
          await client.end();
        }
      } finally {
        await server.stop();
      }
    });
  },
);

test(
  "tcp:// without TLS to the namespace's address is refused before anything starts",
  { timeout: 300_000 },
  async (t) => {
    const r = need(t);
    if (!r) return;
    const missing = jupyterUnavailableReason();
    if (missing) return t.skip(`Jupyter not available: ${missing}`);
    const entry = EXPERIMENTS.find((n) => n.id === "01");
    assert.ok(entry);
    const stateDir = path.join(box, "state-tcp");
    const result = await executeNotebook({
      notebook: path.join(root, entry.file),
      outputIpynb: path.join(box, "01-tcp.ipynb"),
      profile: "smoke",
      env: {
        DOCKER_HOST: `tcp://${r.address}:2375`,
        // The default choice, whatever the shell exported: DBLAB_TARGET=embedded never asks Docker.
        DBLAB_TARGET: "auto",
        DBLAB_STATE_DIR: stateDir,
        DBLAB_RESULTS_DIR: path.join(box, "results-tcp"),
      },
    });
    assert.equal(result.status, "failed");
    const text = `${result.message ?? ""} ${result.failure ? describeFailure(result.failure) : ""}`;
    assert.match(text, /plain tcp:\/\/ \(no TLS\) to another host is refused/);
    const records = fs.existsSync(path.join(stateDir, "resources"))
      ? fs.readdirSync(path.join(stateDir, "resources"))
      : [];
    assert.deepEqual(records, [], "nothing was started");
  },
);

test(
  "tcp:// with TLS: no database without DBLAB_DOCKER_BIND; with it, bound there and reached there",
  { timeout: 300_000 },
  async (t) => {
    const r = need(t);
    if (!r) return;
    const env = {
      HOME: r.home,
      DOCKER_HOST: r.tlsHost,
      DOCKER_TLS_VERIFY: "1",
      DOCKER_CERT_PATH: r.certPath,
      DBLAB_STATE_DIR: path.join(box, "state-tls"),
      DBLAB_DOCKER_BIND: undefined,
      DBLAB_TARGET: undefined,
    };
    await withEnv(env, async () => {
      const { decideTarget } = await import("../../lib/targets/select");
      await assert.rejects(decideTarget("postgresql", "auto"), /DBLAB_DOCKER_BIND/);
      const { DockerTarget } = await import("../../lib/targets/docker/docker-target");
      const target = new DockerTarget({ forceStandIn: true, cpus: 1, memoryBytes: 512 * 1024 ** 2 });
      await assert.rejects(target.start({ engine: "postgresql", name: "tls-test" }), /DBLAB_DOCKER_BIND/);
      assert.deepEqual(listRecords(), [], "nothing was created");

      process.env.DBLAB_DOCKER_BIND = r.address;
      assert.equal((await decideTarget("postgresql", "auto")).kind, "docker");
      const server = await target.start({ engine: "postgresql", name: "tls-test" });
      try {
        assert.equal(server.description.route, "bind-address");
        assert.equal(server.connection.host, r.address);
        assert.ok(server.description.publishedAddress?.startsWith(`${r.address}:`));
        const client = new Client(server.connection);
        await client.connect();
        assert.equal((await client.query<{ one: number }>("SELECT 1 AS one")).rows[0].one, 1);
        await client.end();
      } finally {
        await server.stop();
      }
    });
  },
);

test(
  "the remote host vanishing mid-run: queries fail within the keepalive bound, the record stays, a retry removes it",
  { timeout: 300_000 },
  async (t) => {
    const r = need(t);
    if (!r) return;
    const stateDir = path.join(box, "state-vanish");
    // Inside the namespace, so the route to it stays: with the veth down instead, packets to its
    // address would follow the default route off this machine.
    const firewall = (op: "-I" | "-D") =>
      spawnSync("ip", ["netns", "exec", r.ns, "iptables", op, "INPUT", "-p", "tcp", "--dport", "22", "-j", "DROP"]);
    let dropping = false;
    await withEnv({ HOME: r.home, DOCKER_HOST: r.dockerHost, DBLAB_STATE_DIR: stateDir }, async () => {
      const { DockerTarget } = await import("../../lib/targets/docker/docker-target");
      const server = await new DockerTarget({ forceStandIn: true, cpus: 1, memoryBytes: 512 * 1024 ** 2 }).start({
        engine: "postgresql",
        name: "vanish-test",
      });
      const client = new Client(server.connection);
      client.on("error", () => undefined);
      await client.connect();
      await client.query("SELECT 1");
      // No RST, no FIN: packets to the host are just dropped, as when a VM dies or a network splits.
      assert.equal(firewall("-I").status, 0, "iptables in the namespace");
      dropping = true;
      const started = Date.now();
      await assert.rejects(
        (async () => {
          for (;;) await client.query("SELECT 1");
        })(),
        /Connection terminated/,
      );
      t.diagnostic(`queries failed ${((Date.now() - started) / 1000).toFixed(1)} s after the host vanished`);
      await assert.rejects(server.stop(), /SSH to root@/);
      assert.equal(listRecords().length, 1, "the container's record is kept for later");
      firewall("-D");
      dropping = false;
      // The owner is alive (this process), so clean would leave it: the owner's own retry removes it.
      await server.stop();
      assert.deepEqual(listRecords(), []);
      const remoteDocker = socketClient(r.socket);
      await assert.rejects(
        remoteDocker.getContainer(server.containerId).inspect(),
        (e: { statusCode?: number }) => e.statusCode === 404,
      );
    }).finally(() => {
      if (dropping) firewall("-D");
    });
  },
);

test(
  "05 quorum-same-az with hosts.sameAz: standbys on the namespace engine stream back through SSH, commits wait for them, nothing left on either engine",
  { timeout: 600_000 },
  async (t) => {
    const r = need(t);
    if (!r) return;
    const { embeddedPostgresBinaries } = await import("../../lib/targets/embedded/postgres-binaries");
    try {
      embeddedPostgresBinaries();
    } catch (error) {
      t.skip(`embedded PostgreSQL binaries missing (the primary is embedded): ${String(error)}`);
      return;
    }
    const stateDir = path.join(box, "state-quorum");
    const results = path.join(box, "results-quorum");
    const since = Math.floor(Date.now() / 1000);
    const remoteDocker = socketClient(r.socket);
    const volumes = async () => ((await remoteDocker.listVolumes()).Volumes ?? []).map((v) => v.Name).sort();
    const volumesBefore = await volumes();
    const { summarise } = await import("../../lib/experiments/round-trips/summarise");
    const { experiment } = await import("../../lib/experiments/round-trips");
    const { sshDockerConnection } = await import("../../lib/targets/docker/ssh-docker-host");
    const { endpointFromHost } = await import("../../lib/targets/docker/endpoint");
    const n = 100;
    const params = {
      target: "embedded",
      network: "proxy",
      environments: ["quorum-same-az"],
      cases: ["select1", "update_autocommit", "update_one_transaction"],
      statements: n,
      sweepStandbyRttsMs: [],
      calibrationSamples: 40,
      hosts: { sameAz: r.dockerHost },
    };
    // Its own process: it must also end by itself (a reverse tunnel once held a finished run's SSH socket).
    const fixture = path.join(__dirname, "..", "fixtures", "run-round-trips.js");
    const out = spawnSync(process.execPath, [fixture, results, JSON.stringify(params)], {
      env: { ...process.env, HOME: r.home, DBLAB_STATE_DIR: stateDir },
      encoding: "utf8",
      timeout: 300_000,
    });
    assert.equal(out.signal, null, `the run's process ended by itself (it was killed: ${String(out.signal)})`);
    assert.equal(out.status, 0, out.stderr);
    const directory = /^DONE (.+)$/m.exec(out.stdout)?.[1];
    assert.ok(directory, out.stdout);
    const run = experiment.open(directory);
    assert.equal(run.trials.length, 3);
    for (const trial of run.trials) {
      assert.equal(trial.status, "ok", `${trial.key}: ${trial.error ?? ""}`);
      assert.equal(trial.real, true, `${trial.key} is marked real`);
    }
    const standbys = run.metadata.servers.filter((s) => s.kind === "docker");
    assert.equal(standbys.length, 2, "two standbys on the namespace engine");
    for (const s of standbys) {
      assert.equal(s.route, "ssh-tunnel");
      assert.match(s.dockerHost ?? "", new RegExp(r.address.replace(/\./g, "\\.")));
    }
    const autocommit = run.trials.find((x) => x.key.startsWith("case/quorum-same-az/update_autocommit"));
    assert.ok(autocommit?.lags, "replication lags sampled");
    assert.deepEqual(Object.keys(autocommit.lags.perStandby).sort(), ["s1", "s2"], "both standbys streaming");

    // The floor of one round trip to the namespace on the SSH connection replication uses: the
    // least of 20 no-op round trips (load only makes them longer, never a commit shorter).
    let floor = Infinity;
    await withEnv({ HOME: r.home }, async () => {
      const ssh = endpointFromHost(r.dockerHost, "test").ssh;
      assert.ok(ssh);
      for (let i = 0; i < 20; i++) floor = Math.min(floor, await sshDockerConnection(ssh).rttMs(1));
      sshDockerConnection(ssh).close();
    });
    const commitP50 = autocommit.statementTimes?.p50Ms ?? 0;
    t.diagnostic(
      `RTT to the namespace (SSH no-op, least of 20) ${floor.toFixed(3)} ms; standby SELECT 1 ${autocommit.standbyRttMs?.toFixed(3)} ms; ` +
        `autocommit UPDATE waiting for ANY 1 of 2 standbys: median ${commitP50.toFixed(3)} ms`,
    );
    assert.ok(
      commitP50 >= floor,
      `an autocommit UPDATE waits for a standby on the namespace: ${commitP50} ms ≥ its round trip ${floor} ms`,
    );
    const summary = summarise(run);
    assert.equal(summary.environments[0].kind, "real");
    const quorumClaim = experiment.claims(summary, run).find((c) => c.id === "c (same AZ)");
    assert.ok(quorumClaim);
    assert.notEqual(quorumClaim.verdict, "emulated", "decided as evidence, not as a consistency check");
    const resources = path.join(stateDir, "resources");
    assert.deepEqual(fs.existsSync(resources) ? fs.readdirSync(resources) : [], [], "no record left");
    const left = await remoteDocker.listContainers({
      all: true,
      filters: { label: [`${LAB_LABEL}.state-dir=${stateDir}`] },
    });
    assert.deepEqual(left, [], "no container left on the namespace engine");
    assert.deepEqual(await volumes(), volumesBefore, "no volume left there");
    const local = localDocker();
    if (local) assert.deepEqual(await createdBy(local, stateDir, since), [], "nothing created on the local engine");
  },
);

test(
  "DOCKER_HOST=ssh://<alias>: ~/.ssh/config's HostName, User, Port and IdentityFile are used, the host key checked under the HostName",
  { timeout: 300_000 },
  async (t) => {
    const r = need(t);
    if (!r) return;
    // A HOME whose key is NOT at a default place: only the config's IdentityFile can find it.
    const home = path.join(box, "home-alias");
    fs.mkdirSync(path.join(home, ".ssh"), { recursive: true });
    fs.mkdirSync(path.join(home, "keys"));
    fs.copyFileSync(path.join(r.home, ".ssh", "id_ed25519"), path.join(home, "keys", "engine_key"));
    fs.chmodSync(path.join(home, "keys", "engine_key"), 0o600);
    fs.copyFileSync(path.join(r.home, ".ssh", "known_hosts"), path.join(home, ".ssh", "known_hosts"));
    fs.writeFileSync(
      path.join(home, ".ssh", "config"),
      `Host labengine\n  HostName ${r.address}\n  User root\n  Port 22\n  IdentityFile ~/keys/engine_key\n`,
    );
    const stateDir = path.join(box, "state-alias");
    const env = { HOME: home, DOCKER_HOST: "ssh://labengine", DBLAB_STATE_DIR: stateDir, SSH_AUTH_SOCK: undefined };
    await withEnv(env, async () => {
      const { DockerTarget } = await import("../../lib/targets/docker/docker-target");
      const server = await new DockerTarget({ forceStandIn: true, cpus: 1, memoryBytes: 512 * 1024 ** 2 }).start({
        engine: "postgresql",
        name: "alias-test",
      });
      try {
        assert.equal(server.description.route, "ssh-tunnel");
        assert.equal(server.description.dockerHost, `labengine (${r.address}) (ssh)`);
        const rec = listRecords().find((x) => x.resource.type === "docker-container");
        assert.ok(rec && rec.resource.type === "docker-container");
        assert.equal(rec.resource.dockerHost, "ssh://labengine", "the record keeps the alias, resolved again by clean");
        assert.equal(
          (await socketClient(r.socket).getContainer(server.containerId).inspect()).State.Running,
          true,
          "on the namespace's engine",
        );
        const client = new Client(server.connection);
        await client.connect();
        assert.equal((await client.query<{ one: number }>("SELECT 1 AS one")).rows[0].one, 1);
        await client.end();
      } finally {
        await server.stop();
      }
      assert.deepEqual(listRecords(), []);

      // The same alias with the config's key gone: the lab says which files it looked at.
      fs.writeFileSync(
        path.join(home, ".ssh", "config"),
        `Host labengine2\n  HostName ${r.address}\n  User root\n  IdentityFile ~/keys/missing_key\n`,
      );
      process.env.DOCKER_HOST = "ssh://labengine2";
      const { dockerClient } = await import("../../lib/targets/docker/docker-client");
      await assert.rejects(dockerClient().ping(), /No SSH key for root@labengine2 \([\d.]+\): .*missing_key/);
    });
  },
);

/** Runs test/fixtures/run-experiment.js; resolves with its exit code and output. */
function runExperiment(
  args: readonly string[],
  env: Record<string, string>,
  onStart?: (child: ReturnType<typeof spawn>) => void,
): Promise<{ code: number | null; stdout: string; stderr: string }> {
  const fixture = path.join(root, "build", "test", "fixtures", "run-experiment.js");
  const child = spawn(process.execPath, [fixture, ...args], {
    env: { ...process.env, ...env },
    stdio: ["ignore", "pipe", "pipe"],
  });
  let stdout = "";
  let stderr = "";
  child.stdout?.on("data", (c: Buffer) => (stdout += c.toString()));
  child.stderr?.on("data", (c: Buffer) => (stderr += c.toString()));
  onStart?.(child);
  return new Promise((resolve) => child.once("exit", (code) => resolve({ code, stdout, stderr })));
}

interface TrialLine {
  readonly key: string;
  readonly status: string;
  readonly finishedAt: string;
}

function readTrials(dir: string): TrialLine[] {
  const file = path.join(dir, "trials.jsonl");
  if (!fs.existsSync(file)) return [];
  return fs
    .readFileSync(file, "utf8")
    .split("\n")
    .filter(Boolean)
    .map((l) => JSON.parse(l) as TrialLine);
}

/**
 * Notebook 02 with the `full` profile's code path at a size this machine runs in a minute, on the
 * namespace's engine over `link`; the host vanishes (packets dropped inside the namespace) once two
 * trials are on disk, then comes back, and the run is resumed by its id.
 */
async function dropAndResume(t: TestContext, r: RemoteEngine, link: "ssh" | "tls"): Promise<void> {
  const stateDir = path.join(box, `state-resume-${link}`);
  const results = path.join(box, `results-resume-${link}`);
  const overrides = SMALL_FULL_02;
  const { experiment } = await import("../../lib/experiments/create-index-after-load");
  const { planTrials } = await import("../../lib/experiments/create-index-after-load/workload/plan");
  const planned = planTrials(experiment.params("full", overrides)).length;
  const env: Record<string, string> =
    link === "ssh"
      ? { ...labEnv(r, stateDir), DBLAB_STALL_SECONDS: "" }
      : {
          ...labEnv(r, stateDir),
          DOCKER_HOST: r.tlsHost,
          DOCKER_TLS_VERIFY: "1",
          DOCKER_CERT_PATH: r.certPath,
          DBLAB_DOCKER_BIND: r.address,
          // Nothing on a TLS engine's link notices a silent host (no keepalives of ours): the
          // watchdog's stall bound does, here 10 s instead of its 60 s floor.
          DBLAB_STALL_SECONDS: "10",
        };
  env.DBLAB_RUN_ID = `test-resume-${link}`;
  const args = ["02", "full", results, JSON.stringify(overrides)];
  // SSH: the link's port. TLS: the API's port (INPUT) and the published database port (FORWARD,
  // after Docker's DNAT), i.e. everything the host would stop answering.
  const rules =
    link === "ssh"
      ? [["INPUT", "-p", "tcp", "--dport", "22", "-j", "DROP"]]
      : [
          ["INPUT", "-p", "tcp", "-j", "DROP"],
          ["FORWARD", "-j", "DROP"],
        ];
  const firewall = (op: "-I" | "-D") =>
    rules.every((rule) => spawnSync("ip", ["netns", "exec", r.ns, "iptables", op, ...rule]).status === 0);
  let dropping = false;
  try {
    let runDir = "";
    let droppedAt = 0;
    const first = await runExperiment(args, env, () => {
      const poll = setInterval(() => {
        const found = fs.existsSync(results)
          ? fs.readdirSync(results).find((d) => d.startsWith(`test-resume-${link}_`))
          : undefined;
        if (!found) return;
        runDir = path.join(results, found);
        if (readTrials(runDir).length >= 2 && !dropping) {
          // No RST, no FIN: the host just stops answering, as a dead VM or a split network.
          assert.ok(firewall("-I"), "iptables in the namespace");
          dropping = true;
          droppedAt = Date.now();
          clearInterval(poll);
        }
      }, 100);
      poll.unref();
    });
    assert.ok(dropping, `the run ended before the drop: ${first.stdout} ${first.stderr}`);
    t.diagnostic(`${link}: the run failed ${((Date.now() - droppedAt) / 1000).toFixed(0)} s after the host vanished`);
    assert.equal(first.code, 3, first.stderr);
    const runId = path.basename(runDir);
    const address = r.address.replace(/\./g, "\\.");
    const engine = link === "ssh" ? `ssh://root@${address}` : `tcp://${address}:2376`;
    assert.match(first.stderr, new RegExp(`the Docker engine at ${engine} went away; the PostgreSQL`));
    assert.match(first.stderr, new RegExp(`resume with the same parameters and \\{ resumeId: "${runId}" \\}`));
    const kept = readTrials(runDir).filter((x) => x.status === "ok");
    assert.ok(kept.length >= 2, "the trials finished before the drop are on disk");
    // The container could not be removed: its record is kept for later.
    assert.equal(fs.readdirSync(path.join(stateDir, "resources")).length, 1, "the container's record is kept");

    firewall("-D");
    dropping = false;
    const second = await runExperiment([...args, runId], env);
    assert.equal(second.code, 0, second.stderr);
    const trials = readTrials(runDir);
    for (const k of kept) {
      assert.ok(
        trials.some((x) => x.key === k.key && x.status === "ok" && x.finishedAt === k.finishedAt),
        `finished trial ${k.key} kept as it was`,
      );
    }
    const ok = new Set(trials.filter((x) => x.status === "ok").map((x) => x.key));
    assert.equal(ok.size, planned, "every planned trial finished");
    t.diagnostic(`${link}: ${kept.length} trials kept, ${planned - kept.length} run after the resume`);

    // The first run's container went with the resume (its owner is dead: the reaper removed it).
    assert.deepEqual(fs.readdirSync(path.join(stateDir, "resources")), []);
    const left = await socketClient(r.socket).listContainers({
      all: true,
      filters: { label: [`${LAB_LABEL}.state-dir=${stateDir}`] },
    });
    assert.deepEqual(left, [], "no container left on the remote engine");
    if (link !== "ssh") return;

    // Server-side generation: the resumed part alone loaded ≥ 2 × 300k rows (≥ 35 bytes each in
    // the heap: ≥ 21 MB); a load streamed from here (COPY FROM STDIN) would send all of it.
    const metadata = JSON.parse(fs.readFileSync(path.join(runDir, "metadata.json"), "utf8")) as {
      linkTraffic?: Record<string, { tunnelSent: number; tunnelReceived: number; wireSent: number }>;
    };
    const traffic = metadata.linkTraffic?.postgresql;
    assert.ok(traffic, "metadata.linkTraffic is recorded for the ssh:// engine");
    assert.ok(traffic.tunnelSent < 2_000_000, `sent through the tunnel: ${traffic.tunnelSent} bytes`);
    assert.ok(traffic.wireSent >= traffic.tunnelSent, "the wire carries at least the tunnel's payload");
    t.diagnostic(
      `tunnel: ${traffic.tunnelSent} B sent, ${traffic.tunnelReceived} B received; SSH wire ${traffic.wireSent} B sent`,
    );
  } finally {
    if (dropping) firewall("-D");
  }
}

test(
  "02 --profile full at a small size over ssh://: the host vanishes mid-run, the error names the engine and the run id, the resumed run keeps the finished trials and completes, nothing left behind, the data never crossed the tunnel",
  { timeout: 900_000 },
  async (t) => {
    const r = need(t);
    if (r) await dropAndResume(t, r, "ssh");
  },
);

test(
  "02 --profile full at a small size over tcp:// with TLS: the host vanishes mid-run, the stall bound ends the trial naming the engine, the resumed run completes, nothing left behind",
  {
    timeout: 900_000,
  },
  async (t) => {
    const r = need(t);
    if (r) await dropAndResume(t, r, "tls");
  },
);

test(
  "a namespace whose maker died is reclaimed by the next up, its sshd and dockerd with it; one whose maker lives is left alone",
  { timeout: 300_000 },
  async (t) => {
    if (!need(t)) return;
    const pidOf = (file: string) => Number(fs.readFileSync(file, "utf8").trim());
    const namespaces = () => spawnSync("ip", ["netns", "list"], { encoding: "utf8" }).stdout;
    // Its own /24 and names: the engine of `before` is on another /24 and is never touched.
    const net = "10.231.80";
    const tag = process.pid % 10000;
    const dirs = ["maker", "beside", "after"].map((d) => path.join(box, `reclaim-${d}`));
    const upAs = (dir: string, ns: string, owner: number) =>
      spawnSync("bash", [SCRIPT, "up", dir], {
        env: { ...process.env, DBLAB_REMOTE_NS: ns, DBLAB_REMOTE_NET: net, DBLAB_REMOTE_OWNER: String(owner) },
        encoding: "utf8",
        timeout: 120_000,
      });
    const maker = spawn("sleep", ["600"], { stdio: "ignore" });
    t.after(() => {
      maker.kill("SIGKILL");
      for (const dir of dirs) spawnSync("bash", [SCRIPT, "down", dir], { timeout: 120_000 });
    });
    const first = upAs(dirs[0], `dblo${tag}`, maker.pid ?? 0);
    assert.equal(first.status, 0, first.stderr);
    const [sshd, dockerd] = ["sshd.pid", "dockerd.pid"].map((f) => pidOf(path.join(dirs[0], f)));

    // The maker lives: a second up leaves the namespace alone and takes the next free /24.
    const beside = upAs(dirs[1], `dblp${tag}`, process.pid);
    assert.equal(beside.status, 0, beside.stderr);
    assert.doesNotMatch(beside.stderr, /reclaimed/);
    assert.match(beside.stderr, new RegExp(`${net}\\.0/24 is on link dblo${tag}-h`));
    assert.ok(isProcessAlive(sshd) && isProcessAlive(dockerd), "the live maker's sshd and dockerd run on");
    spawnSync("bash", [SCRIPT, "down", dirs[1]], { timeout: 120_000 });

    // The maker is killed, as a test process is when its run is stopped: its `down` never runs.
    maker.kill("SIGKILL");
    await new Promise((resolve) =>
      maker.exitCode !== null || maker.signalCode ? resolve(null) : maker.once("exit", resolve),
    );
    const next = upAs(dirs[2], `dblq${tag}`, process.pid);
    assert.equal(next.status, 0, next.stderr);
    assert.match(
      next.stderr,
      new RegExp(`reclaimed namespace dblo${tag} \\(process ${maker.pid}, which made it, is gone`),
    );
    assert.match(next.stdout, new RegExp(`DBLAB_REMOTE_ADDRESS=${net.replace(/\./g, "\\.")}\\.2\\n`));
    assert.doesNotMatch(namespaces(), new RegExp(`^dblo${tag}\\b`, "m"));
    assert.ok(
      !isProcessAlive(sshd) && !isProcessAlive(dockerd),
      `sshd ${sshd} and dockerd ${dockerd} of the dead maker were stopped`,
    );
    assert.ok(!fs.existsSync(dirs[0]), "the dead maker's folder was removed");
  },
);

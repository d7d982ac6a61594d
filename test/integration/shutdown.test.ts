// test-tier: host — Docker servers held and signalled: containers on the machine's daemon
/**
 * One shutdown path for every target (a target with hooks of its own forgot them: SIGTERM to
 * `npm run reproduce` on the Docker target left the container running). A process holding a Docker
 * server, as a notebook kernel does, is signalled; afterwards no container of it may exist and no
 * record may remain. A run signalled mid-trial records itself `interrupted`, not `failed`.
 */
import { SMALL_FULL_02 } from "../support/sizes";
import { test, type TestContext } from "node:test";
import assert from "node:assert/strict";
import { spawn, type ChildProcess } from "node:child_process";
import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import { runDirectory, trialLines } from "../support/run-files";
import { jupyterUnavailableReason } from "../../lib/jupyter/execute";
import { projectRoot } from "../../lib/jupyter/kernel-spec";
import { dockerAvailable, dockerClient } from "../../lib/targets/docker/docker-client";

const HOLD = path.join(__dirname, "..", "fixtures", "hold-docker-server.js");
const REPRODUCE = path.join(projectRoot(), "build", "scripts", "reproduce.js");

async function skipWithoutDocker(t: TestContext): Promise<boolean> {
  if (await dockerAvailable(3000)) return false;
  t.skip("no Docker daemon answers on the default socket (DOCKER_HOST)");
  return true;
}

async function containerExists(id: string): Promise<boolean> {
  try {
    await dockerClient().getContainer(id).inspect();
    return true;
  } catch (error) {
    if ((error as { statusCode?: number }).statusCode === 404) return false;
    throw error;
  }
}

function hold(state: string): { child: ChildProcess; containerId: Promise<string>; exited: Promise<number> } {
  const child = spawn(process.execPath, [HOLD], {
    env: { ...process.env, DBLAB_STATE_DIR: state, DBLAB_IN_KERNEL: "1" },
    stdio: ["ignore", "pipe", "pipe"],
  });
  let out = "";
  const containerId = new Promise<string>((resolve, reject) => {
    child.stdout?.on("data", (d: Buffer) => {
      out += String(d);
      const m = /CONTAINER (\w+)/.exec(out);
      if (m) resolve(m[1]);
    });
    child.stderr?.on("data", (d: Buffer) => (out += String(d)));
    child.once("exit", (code) =>
      reject(new Error(`the holder exited (${code}) before its container answered: ${out}`)),
    );
  });
  const exited = new Promise<number>((resolve) => child.once("exit", (code, sig) => resolve(code ?? (sig ? -1 : 0))));
  return { child, containerId, exited };
}

for (const sig of ["SIGTERM", "SIGHUP"] as const) {
  test(`${sig} to a process holding a Docker server (as a kernel does) leaves no container and no record`, async (t) => {
    if (await skipWithoutDocker(t)) return;
    const state = fs.mkdtempSync(path.join(os.tmpdir(), "dblab-shutdown-"));
    const run = hold(state);
    let id = "";
    try {
      id = await run.containerId;
      assert.ok(await containerExists(id), "the container runs before the signal");
      run.child.kill(sig);
      const code = await run.exited;
      assert.equal(code, 128 + os.constants.signals[sig], "the holder exits with 128 + the signal, after its cleanup");
      assert.equal(await containerExists(id), false, "the container was removed before the process exited");
      const records = path.join(state, "resources");
      assert.deepEqual(fs.existsSync(records) ? fs.readdirSync(records) : [], [], "no record left");
    } finally {
      run.child.kill("SIGKILL");
      if (id)
        await dockerClient()
          .getContainer(id)
          .remove({ force: true, v: true })
          .catch(() => undefined);
      fs.rmSync(state, { recursive: true, force: true });
    }
  });
}

test(
  "SIGTERM to `npm run reproduce` on the Docker target: no container and no record remain",
  { timeout: 300_000 },
  async (t) => {
    if (await skipWithoutDocker(t)) return;
    const missing = jupyterUnavailableReason();
    if (missing) return t.skip(`Jupyter not available: ${missing}`);
    const base = fs.mkdtempSync(path.join(os.tmpdir(), "dblab-reproduce-sigterm-"));
    const state = path.join(base, "state");
    const records = path.join(state, "resources");
    const containerRecord = (): string | undefined => {
      if (!fs.existsSync(records)) return undefined;
      for (const name of fs.readdirSync(records)) {
        try {
          const r = JSON.parse(fs.readFileSync(path.join(records, name), "utf8")) as {
            resource: { type: string; containerId?: string };
          };
          if (r.resource.type === "docker-container") return r.resource.containerId;
        } catch {
          // being written
        }
      }
      return undefined;
    };
    const child = spawn(
      process.execPath,
      [REPRODUCE, "--only", "01", "--profile", "smoke", "--reports-dir", path.join(base, "reports")],
      {
        env: {
          ...process.env,
          DBLAB_STATE_DIR: state,
          DBLAB_RESULTS_DIR: path.join(base, "results"),
          DBLAB_TARGET: "docker",
        },
        stdio: ["ignore", "pipe", "pipe"],
      },
    );
    let out = "";
    child.stdout?.on("data", (d: Buffer) => (out += String(d)));
    child.stderr?.on("data", (d: Buffer) => (out += String(d)));
    const exited = new Promise<number | null>((resolve) => child.once("exit", resolve));
    let id: string | undefined;
    try {
      await until("the notebook's container", () => (id = containerRecord()) !== undefined, 240_000, child);
      // Into the trials: a finished one on disk, so that the signal lands while the kernel works on
      // the container (a delay after the record raced a slower box's start of the notebook).
      await until(
        "the notebook's first finished trial",
        () => trialLines(path.join(base, "results")).length >= 1,
        240_000,
        child,
      );
      child.kill("SIGTERM");
      const code = await exited;
      assert.equal(code, 143, out);
      // Bounded wait: the kernel's own cleanup, or the detached reaper it started, removes both.
      await until("the container and its record to go", () => containerRecord() === undefined, 60_000);
      assert.equal(await containerExists(String(id)), false, "the container was removed");
    } finally {
      child.kill("SIGKILL");
      if (id)
        await dockerClient()
          .getContainer(id)
          .remove({ force: true, v: true })
          .catch(() => undefined);
      fs.rmSync(base, { recursive: true, force: true });
    }
  },
);

/**
 * Polls `condition`; fails after `timeoutMs`, or at once when `child` (the process that would bring
 * it about) has exited.
 */
async function until(what: string, condition: () => boolean, timeoutMs: number, child?: ChildProcess): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  while (!condition()) {
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what} (${timeoutMs / 1000} s)`);
    if (child && child.exitCode !== null) throw new Error(`the run exited (${child.exitCode}) before ${what}`);
    await new Promise((r) => setTimeout(r, 200));
  }
}

test(
  "SIGTERM mid-trial (embedded target): metadata.json says interrupted, the finished trials are kept, the trial in flight is not recorded failed",
  { timeout: 300_000 },
  async () => {
    const base = fs.mkdtempSync(path.join(os.tmpdir(), "dblab-sigterm-trial-"));
    const results = path.join(base, "results");
    const overrides = SMALL_FULL_02;
    const child = spawn(
      process.execPath,
      [path.join(__dirname, "..", "fixtures", "run-experiment.js"), "02", "full", results, JSON.stringify(overrides)],
      {
        env: { ...process.env, DBLAB_STATE_DIR: path.join(base, "state"), DBLAB_TARGET: "embedded" },
        stdio: ["ignore", "pipe", "pipe"],
      },
    );
    let out = "";
    child.stdout?.on("data", (d: Buffer) => (out += String(d)));
    child.stderr?.on("data", (d: Buffer) => (out += String(d)));
    const exited = new Promise<number | null>((resolve) => child.once("exit", resolve));
    const trials = () => trialLines(results);
    try {
      await until("two finished trials", () => trials().length >= 2, 240_000);
      const kept = trials();
      child.kill("SIGTERM");
      const code = await exited;
      assert.equal(code, 143, out);
      const dir = runDirectory(results);
      assert.ok(dir, out);
      const metadata = JSON.parse(fs.readFileSync(path.join(dir, "metadata.json"), "utf8")) as { outcome?: string };
      assert.equal(metadata.outcome, "interrupted", out);
      const after = trials();
      assert.deepEqual(after.slice(0, kept.length), kept, "the finished trials are kept as they were");
      assert.deepEqual(
        after.filter((x) => x.status === "failed"),
        [],
        "the trial the signal cut short is not recorded as a failure",
      );
    } finally {
      child.kill("SIGKILL");
      fs.rmSync(base, { recursive: true, force: true });
    }
  },
);

/**
 * One shutdown path for every target (issue 15: SIGTERM to `npm run reproduce` on the Docker target
 * left the container running). A process holding a Docker server, as a notebook kernel does, is
 * signalled; afterwards no container of it may exist and no record may remain.
 */
import { test, type TestContext } from "node:test";
import assert from "node:assert/strict";
import { spawn, type ChildProcess } from "node:child_process";
import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import { dockerAvailable, dockerClient } from "../../lib/targets/docker/docker-client";

const HOLD = path.join(__dirname, "..", "fixtures", "hold-docker-server.js");

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
    child.once("exit", (code) => reject(new Error(`the holder exited (${code}) before its container answered: ${out}`)));
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
      if (id) await dockerClient().getContainer(id).remove({ force: true, v: true }).catch(() => undefined);
    }
  });
}

// test-tier: shared — an embedded run with DOCKER_HOST unreachable; clean on its own state folder (clean
// lists the real daemon's containers and removes only dead owners' ones: no file beside it uses Docker)
/**
 * An engine the reaper cannot reach must not block runs that do not need it (without that, with the Docker
 * daemon stopped and a stale container record on disk, every run failed at start with `connect
 * ENOENT`, the embedded target included, and `npm run clean` failed the same way).
 * The outage is made by pointing DOCKER_HOST at a socket that does not exist (the shared dockerd stays up).
 */
import { test } from "node:test";
import assert from "node:assert/strict";
import { spawn, spawnSync } from "node:child_process";
import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import { dockerAvailable } from "../../lib/targets/docker/docker-client";

const FIXTURE = path.join(__dirname, "..", "fixtures", "run-index-write-cost.js");
const CLEAN = path.join(__dirname, "..", "..", "scripts", "clean.js");

/** A pid that certainly belongs to no running process: a child that has exited and been reaped. */
function deadPid(): number {
  const child = spawnSync(process.execPath, ["-e", "process.stdout.write(String(process.pid))"], { encoding: "utf8" });
  return Number(child.stdout);
}

function staleContainerRecord(state: string): string {
  const dir = path.join(state, "resources");
  fs.mkdirSync(dir, { recursive: true });
  const file = path.join(dir, "stale-container.json");
  const record = {
    id: "stale-container",
    ownerPid: deadPid(),
    ownerStartTicks: 1,
    createdAt: new Date().toISOString(),
    resource: {
      type: "docker-container",
      containerId: "0123456789ab0123456789ab",
      description: "container h15-stale (postgres)",
    },
  };
  fs.writeFileSync(file, JSON.stringify(record));
  return file;
}

test("Docker down + a stale container record: an embedded run passes, clean exits 0 and says what it could not reach", async () => {
  const base = fs.mkdtempSync(path.join(os.tmpdir(), "dblab-outage-"));
  const state = path.join(base, "state");
  const env = {
    ...process.env,
    DBLAB_STATE_DIR: state,
    DBLAB_RESULTS_DIR: path.join(base, "results"),
    DBLAB_TARGET: "embedded",
    DOCKER_HOST: `unix://${path.join(base, "no-docker.sock")}`,
  };
  const record = staleContainerRecord(state);
  try {
    const child = spawn(
      process.execPath,
      [FIXTURE, env.DBLAB_RESULTS_DIR, JSON.stringify({ engines: ["postgresql"] })],
      {
        env,
        stdio: ["ignore", "pipe", "pipe"],
      },
    );
    let out = "";
    let err = "";
    child.stdout.on("data", (d: Buffer) => (out += String(d)));
    child.stderr.on("data", (d: Buffer) => (err += String(d)));
    const code = await new Promise<number | null>((resolve) => child.once("exit", resolve));
    assert.equal(code, 0, `the embedded smoke run passes: ${out}${err}`);
    assert.match(out, /DONE \S+ trials=\d+ failed=0/);
    const warnings = err.split("\n").filter((l) => l.includes("h15-stale"));
    assert.equal(warnings.length, 1, `one warning line: ${err}`);
    assert.match(
      warnings[0],
      /kept the record of container h15-stale .*Docker engine at unix:\/\/.*no-docker\.sock cannot be reached/,
    );
    assert.ok(fs.existsSync(record), "the record is kept for a later run");

    const clean = spawnSync(process.execPath, [CLEAN], { env, encoding: "utf8" });
    assert.equal(clean.status, 0, `clean exits 0: ${clean.stdout}${clean.stderr}`);
    assert.match(clean.stdout, /could not reach 1 resource\(s\)/);
    assert.match(
      clean.stdout,
      /container h15-stale .*Docker engine at .*no-docker\.sock cannot be reached \(connect ENOENT/,
    );
    assert.ok(fs.existsSync(record), "still kept: the next clean with Docker back removes it");

    // With the engine back, the record is acted on: its container is long gone (404), so it goes.
    if (await dockerAvailable(3000)) {
      const { DOCKER_HOST: _unreachable, ...withDocker } = env;
      const back = spawnSync(process.execPath, [CLEAN], {
        env: { ...withDocker, DOCKER_HOST: process.env.DOCKER_HOST },
        encoding: "utf8",
      });
      assert.equal(back.status, 0, back.stdout + back.stderr);
      assert.equal(fs.existsSync(record), false, `the record went once Docker answered: ${back.stdout}`);
    }
  } finally {
    fs.rmSync(base, { recursive: true, force: true });
  }
});

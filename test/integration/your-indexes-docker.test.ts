// test-tier: host — the docker target and the remote-engine namespace (dockerd, sshd)
/**
 * Notebook 06's smoke run of its example on a Docker engine, local and remote over ssh://
 * (test/integration/your-indexes.test.ts has the embedded tests): every run finishes, pgbench
 * reaches the server through the tunnel, nothing of the run is left on the engine.
 */
import { test } from "node:test";
import assert from "node:assert/strict";
import { spawnSync } from "node:child_process";
import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import { experiment as yourIndexes } from "../../lib/experiments/your-indexes";
import { findHostClientTool, findHostPgbench } from "../../lib/workloads/pgbench";
import { dockerAvailable, dockerClient, LAB_LABEL, socketClient } from "../../lib/targets/docker/docker-client";
import { remoteDockerHostUp } from "../support/remote-engine";
import { withEnv } from "../support/env";

const tools = () =>
  findHostPgbench() && findHostClientTool("psql") ? undefined : "no pgbench or psql on this machine";

test("the example's smoke run on a local Docker engine: every run finishes, nothing of it is left there", async (t) => {
  const missing = tools();
  if (missing) return t.skip(missing);
  if (!(await dockerAvailable(3000))) return t.skip("no Docker daemon answers");
  const root = fs.mkdtempSync(path.join(os.tmpdir(), "dblab-06-docker-"));
  const stateDir = path.join(root, "state");
  try {
    const run = await withEnv(
      { DBLAB_RESULTS_DIR: root, DBLAB_STATE_DIR: stateDir, DBLAB_PULL: "never", DBLAB_TARGET: "docker" },
      () => yourIndexes.run(yourIndexes.params("smoke", { target: "docker" }), { profile: "smoke" }),
    );
    assert.equal(run.metadata.servers[0]?.kind, "docker");
    assert.ok(run.trials.length > 0);
    assert.ok(
      run.trials.every((x) => x.status === "ok"),
      run.trials.map((x) => x.error ?? "").join(" "),
    );
    const s = yourIndexes.summarise(run);
    assert.deepEqual(
      s.indexes.map((ix) => ix.pairs),
      [2, 2],
      "both indexes paired in both rounds",
    );
    const left = await dockerClient().listContainers({
      all: true,
      filters: { label: [`${LAB_LABEL}.state-dir=${stateDir}`] },
    });
    assert.deepEqual(left, [], "no container of the run left");
  } finally {
    fs.rmSync(root, { recursive: true, force: true });
  }
});

test("the example's smoke run through DOCKER_HOST=ssh://: the server on the remote engine, pgbench through the tunnel, nothing left there", async (t) => {
  const missing = tools();
  if (missing) return t.skip(missing);
  const script = path.resolve(__dirname, "..", "..", "..", "test", "support", "remote-engine.sh");
  const box = fs.mkdtempSync(path.join(os.tmpdir(), "dblab-06-ssh-"));
  // Own namespace and subnet unless the environment names them (parallel developers pick their own).
  const env = {
    ...process.env,
    DBLAB_REMOTE_NS: process.env.DBLAB_REMOTE_NS ?? `dblabyi${process.pid % 1000}`,
    DBLAB_REMOTE_NET: process.env.DBLAB_REMOTE_NET ?? "10.231.46",
  };
  const engineDir = path.join(box, "engine");
  try {
    const up = remoteDockerHostUp(script, engineDir, env);
    if ("unavailable" in up) return t.skip(up.unavailable);
    const r = up.engine;
    const stateDir = path.join(box, "state");
    const run = await withEnv(
      {
        HOME: r.home,
        DOCKER_HOST: r.dockerHost,
        DBLAB_STATE_DIR: stateDir,
        DBLAB_RESULTS_DIR: path.join(box, "results"),
        DBLAB_PULL: "never",
        DBLAB_TARGET: "docker",
      },
      () => yourIndexes.run(yourIndexes.params("smoke", { target: "docker" }), { profile: "smoke" }),
    );
    const pg = run.metadata.servers[0];
    assert.equal(pg?.route, "ssh-tunnel");
    assert.match(pg?.dockerHost ?? "", new RegExp(r.address.replace(/\./g, "\\.")));
    assert.ok(
      run.trials.every((x) => x.status === "ok"),
      run.trials.map((x) => x.error ?? "").join(" "),
    );
    assert.deepEqual(
      yourIndexes.summarise(run).indexes.map((ix) => ix.pairs),
      [2, 2],
    );
    const remote = socketClient(r.socket);
    assert.deepEqual(
      await remote.listContainers({ all: true, filters: { label: [`${LAB_LABEL}.state-dir=${stateDir}`] } }),
      [],
      "no container of the run left on the remote engine",
    );
  } finally {
    spawnSync("bash", [script, "down", engineDir], { env, timeout: 120_000 });
    fs.rmSync(box, { recursive: true, force: true });
  }
});

// test-tier: host — notebook 01 on the docker target: containers and the stand-in image on the machine's daemon
/**
 * Notebook 01 executed headless on the smoke profile on the docker target, as `npm run reproduce`
 * runs it with DBLAB_TARGET=docker: the run's record says where its server ran and under which limits.
 * (test/integration/notebooks.test.ts runs every notebook on the embedded target.)
 */
import { after, test } from "node:test";
import assert from "node:assert/strict";
import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import { describeFailure, executeNotebook, jupyterUnavailableReason } from "../../lib/jupyter/execute";
import { projectRoot } from "../../lib/jupyter/kernel-spec";
import { EXPERIMENTS } from "../../lib/experiments/registry";

const root = projectRoot();
const outDir = fs.mkdtempSync(path.join(os.tmpdir(), "dblab-notebook-docker-test-"));
const resultsDir = path.join(outDir, "results");
after(() => {
  if (!process.env.DBLAB_KEEP_TEST_OUTPUT) fs.rmSync(outDir, { recursive: true, force: true });
});

test("notebook 01 runs headless on smoke on the docker target", { timeout: 900_000 }, async (t) => {
  const missing = jupyterUnavailableReason();
  if (missing) return t.skip(`Jupyter not available: ${missing}`);
  const { dockerAvailable } = await import("../../lib/targets/docker/docker-client");
  if (!(await dockerAvailable())) return t.skip("no Docker daemon answers (start dockerd or set DOCKER_HOST)");
  const entry = EXPERIMENTS.find((n) => n.id === "01");
  assert.ok(entry, "notebook 01 in the registry");
  const result = await executeNotebook({
    notebook: path.join(root, entry.file),
    outputIpynb: path.join(outDir, "01-docker.ipynb"),
    profile: "smoke",
    env: { DBLAB_TARGET: "docker", DBLAB_RESULTS_DIR: resultsDir, DBLAB_RUN_ID: "test-01-docker" },
  });
  assert.equal(result.status, "ok", result.message ?? (result.failure && describeFailure(result.failure)));
  const run = fs.readdirSync(resultsDir).find((d) => d.startsWith("test-01-docker_"));
  assert.ok(run, "a results folder");
  const metadata = JSON.parse(fs.readFileSync(path.join(resultsDir, run, "metadata.json"), "utf8")) as {
    servers: { kind: string; standInImage?: boolean; source: string; limits?: { cpus?: number } }[];
  };
  const pg = metadata.servers[0];
  assert.equal(pg.kind, "docker");
  assert.equal(pg.limits?.cpus, 2, "the seed's CPU limit is recorded");
  assert.ok(pg.standInImage === true || pg.source === "postgres:17.6", `image recorded: ${pg.source}`);
});

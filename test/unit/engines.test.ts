/**
 * The engine set is one closed list (lib/targets/engines.ts): a name outside it is refused with
 * UnknownEngineError before anything starts, by every way in, and never runs as another engine.
 */
import { test } from "node:test";
import assert from "node:assert/strict";
import { checkEngine, ENGINE_FACTS, ENGINES, isEngine, UnknownEngineError } from "../../lib/targets/engines";
import { createTarget, decideTarget } from "../../lib/targets/select";
import { DockerTarget } from "../../lib/targets/docker/docker-target";
import { ExternalTarget } from "../../lib/targets/external/external-target";
import { TARGET_KINDS, type Engine } from "../../lib/targets/types";
import { startServers } from "../../lib/experiments/servers";
import { ParameterError } from "../../lib/params/validate";

// What a notebook cell or a JSON parameter file can hand over: the type does not stop it at run time.
const MYSQL = "mysql" as Engine;

test("checkEngine: the known names pass, anything else is an UnknownEngineError naming the engines there are", () => {
  for (const e of ENGINES) assert.equal(checkEngine(e), e);
  for (const bad of ["mysql", "MongoDB", "postgres", "", undefined, 3]) {
    assert.equal(isEngine(bad), false);
    assert.throws(
      () => checkEngine(bad),
      (error: unknown) =>
        error instanceof UnknownEngineError &&
        error instanceof ParameterError &&
        /unknown engine .*the lab runs "postgresql", "mongodb"/.test(error.message),
    );
  }
});

test("every engine has its facts, and the URI variables are read from them", () => {
  assert.deepEqual(Object.keys(ENGINE_FACTS).sort(), [...ENGINES].sort());
  assert.deepEqual(Object.fromEntries(ENGINES.map((e) => [e, ENGINE_FACTS[e].uriVariable])), {
    postgresql: "DBLAB_POSTGRES_URI",
    mongodb: "DBLAB_MONGODB_URI",
  });
  assert.deepEqual(
    ENGINES.filter((e) => ENGINE_FACTS[e].optional),
    ["mongodb"],
  );
});

test("createTarget refuses an unknown engine for every kind of target (embedded used to start MongoDB)", async () => {
  for (const kind of TARGET_KINDS) {
    await assert.rejects(createTarget(MYSQL, kind), UnknownEngineError, kind);
  }
});

test("decideTarget and the targets' own start refuse it before any connection or container", async () => {
  await assert.rejects(decideTarget(MYSQL, "embedded"), UnknownEngineError);
  // Nothing listens on port 9 of the loopback: had it tried to connect, the error would be another.
  await assert.rejects(new ExternalTarget("postgres://lab@127.0.0.1:9/x").start({ engine: MYSQL }), UnknownEngineError);
  await assert.rejects(new DockerTarget().start({ engine: MYSQL }), UnknownEngineError);
});

test("startServers checks every engine before the first server starts", async () => {
  // Had it started PostgreSQL first, the unknown second engine would have reached the embedded
  // target's MongoDB and failed with "No MongoDB server available" instead.
  await assert.rejects(
    startServers([{ engine: "postgresql" }, { engine: MYSQL }], { target: "embedded" }),
    UnknownEngineError,
  );
});

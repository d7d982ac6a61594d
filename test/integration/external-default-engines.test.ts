// test-tier: fast — one embedded PostgreSQL as the external server
/**
 * DBLAB_TARGET=external with only DBLAB_POSTGRES_URI given: notebook 01's default engines
 * (postgresql + mongodb) run PostgreSQL on that server and report MongoDB, an optional engine,
 * unavailable; an embedded server plays the external one.
 */
import { test } from "node:test";
import assert from "node:assert/strict";
import { startServers } from "../../lib/experiments/servers";
import { EmbeddedPostgresTarget } from "../../lib/targets/embedded/embedded-postgres";

test("target external without DBLAB_MONGODB_URI: PostgreSQL runs, MongoDB is unavailable with the reason", async () => {
  const remote = await new EmbeddedPostgresTarget().start({ engine: "postgresql", name: "remote" });
  const saved = {
    DBLAB_TARGET: process.env.DBLAB_TARGET,
    DBLAB_POSTGRES_URI: process.env.DBLAB_POSTGRES_URI,
    DBLAB_MONGODB_URI: process.env.DBLAB_MONGODB_URI,
  };
  process.env.DBLAB_TARGET = "external";
  process.env.DBLAB_POSTGRES_URI = remote.uri;
  delete process.env.DBLAB_MONGODB_URI;
  try {
    const set = await startServers([{ engine: "postgresql" }, { engine: "mongodb" }], { target: "auto" });
    try {
      assert.equal(set.byEngine.get("postgresql")?.description.kind, "external");
      assert.equal(set.byEngine.has("mongodb"), false);
      assert.equal(set.unavailable.get("mongodb"), "no DBLAB_MONGODB_URI given");
    } finally {
      await set.stopAll();
    }
    // PostgreSQL is not optional: without its URI the run is refused before anything starts.
    delete process.env.DBLAB_POSTGRES_URI;
    await assert.rejects(
      startServers([{ engine: "postgresql" }, { engine: "mongodb" }], { target: "auto" }),
      /no DBLAB_POSTGRES_URI given/,
    );
  } finally {
    for (const [k, v] of Object.entries(saved)) {
      if (v === undefined) delete process.env[k];
      else process.env[k] = v;
    }
    await remote.stop();
  }
});

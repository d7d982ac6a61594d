import { test } from "node:test";
import assert from "node:assert/strict";
import { Client } from "pg";
import { EmbeddedPostgresTarget } from "../../lib/targets/embedded/embedded-postgres";
import { ExternalTarget, LAB_DATABASE_COMMENT } from "../../lib/targets/external/external-target";

test("external target: works only inside a database it creates and marks, and drops it on stop", async () => {
  // An embedded server plays the remote one: the external target only sees its URI.
  const remote = await new EmbeddedPostgresTarget().start({ engine: "postgresql", name: "remote" });
  try {
    const server = await new ExternalTarget(remote.uri).start({ engine: "postgresql" });
    assert.match(server.connection.database, /^dblab_[a-z0-9_]+$/);
    assert.equal(server.description.kind, "external");
    assert.ok(!server.description.source.includes(remote.connection.password), "the recorded source is redacted");
    await assert.rejects(server.restart(), /cannot be restarted/);

    const admin = new Client(remote.connection);
    await admin.connect();
    const comment = await admin.query<{ c: string }>(
      "SELECT shobj_description(oid, 'pg_database') AS c FROM pg_database WHERE datname = $1",
      [server.connection.database],
    );
    assert.equal(comment.rows[0].c, LAB_DATABASE_COMMENT);
    const inside = new Client(server.connection);
    await inside.connect();
    await inside.query("CREATE TABLE t (x int)");
    await inside.end();
    await server.stop();
    const left = await admin.query<{ n: number }>("SELECT count(*)::int AS n FROM pg_database WHERE datname = $1", [
      server.connection.database,
    ]);
    assert.equal(left.rows[0].n, 0, "the lab's database is dropped");
    const others = await admin.query<{ n: number }>(
      "SELECT count(*)::int AS n FROM pg_database WHERE datname = 'postgres'",
    );
    assert.equal(others.rows[0].n, 1, "nothing else touched");
    await admin.end();
  } finally {
    await remote.stop();
  }
});

test("external target: an unreachable server is a clear error without the password", async () => {
  await assert.rejects(
    new ExternalTarget("postgresql://lab:topsecret@127.0.0.1:1/postgres").start({ engine: "postgresql" }),
    (e: Error) =>
      /Cannot reach the external PostgreSQL at postgresql:\/\/lab:\*\*\*@127\.0\.0\.1:1\/postgres/.test(e.message) &&
      !e.message.includes("topsecret"),
  );
});

// test-tier: fast — an embedded PostgreSQL primary and a standby, OS-chosen loopback ports
/**
 * The replication capability (StartedServer.replication): an embedded PostgreSQL server states it,
 * and its standbys stream from it; experiments ask for the capability, not the target kind.
 */
import { test } from "node:test";
import assert from "node:assert/strict";
import fs from "node:fs";
import { Client } from "pg";
import { ownRecords } from "../../lib/runtime/resource-registry";
import { EmbeddedPostgresTarget } from "../../lib/targets/embedded/embedded-postgres";
import { embeddedPostgresBinaries } from "../../lib/targets/embedded/postgres-binaries";
import { canReplicate, type StartedServer } from "../../lib/targets/types";

test("an embedded PostgreSQL server can be a replication primary: a standby streams from it", async (t) => {
  try {
    embeddedPostgresBinaries();
  } catch (error) {
    t.skip(`embedded PostgreSQL binaries missing: ${String(error)}`);
    return;
  }
  const before = ownRecords().length;
  const server = await new EmbeddedPostgresTarget().start({ engine: "postgresql", name: "repl-test" });
  let standbys: StartedServer[] = [];
  try {
    assert.ok(canReplicate(server), "the embedded server states the replication capability");
    standbys = await server.replication.startStandbys([
      { name: "s1", upstreamHost: server.connection.host, upstreamPort: server.connection.port },
    ]);
    assert.equal(standbys.length, 1);
    const client = new Client(server.connection);
    await client.connect();
    try {
      const { rows } = await client.query<{ application_name: string; state: string }>(
        "SELECT application_name, state FROM pg_stat_replication",
      );
      assert.deepEqual(rows, [{ application_name: "s1", state: "streaming" }]);
    } finally {
      await client.end();
    }
    const standby = new Client(standbys[0].connection);
    await standby.connect();
    try {
      const { rows } = await standby.query<{ r: boolean }>("SELECT pg_is_in_recovery() AS r");
      assert.equal(rows[0].r, true, "the standby is in recovery (a copy of the primary, not a new server)");
    } finally {
      await standby.end();
    }
  } finally {
    for (const s of standbys) await s.stop();
    await server.stop();
  }
  assert.equal(ownRecords().length, before, "primary and standby unregistered");
  assert.ok(!fs.existsSync(server.rootDirectory), "the primary's directory is removed");
});

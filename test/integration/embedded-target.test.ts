// test-tier: fast — embedded PostgreSQL; listRecords reads the state folder the scheduler gives it
import { test } from "node:test";
import assert from "node:assert/strict";
import fs from "node:fs";
import net from "node:net";
import { Client } from "pg";
import { EmbeddedPostgresTarget } from "../../lib/targets/embedded/embedded-postgres";
import { listRecords } from "../../lib/runtime/resource-registry";
import { isProcessAlive } from "../../lib/runtime/resource-registry";

test("embedded PostgreSQL: starts with settings applied, restarts, stops and removes its directory", async () => {
  const server = await new EmbeddedPostgresTarget().start({
    engine: "postgresql",
    name: "test",
    settings: {
      shared_buffers: "128MB",
      synchronous_commit: "off",
      track_io_timing: true,
      shared_preload_libraries: "pg_stat_statements",
    },
  });
  const pid = server.pid!;
  try {
    assert.equal(server.description.version.split(".")[0], "17");
    assert.equal(server.description.kind, "embedded");
    assert.match(server.description.address, /^127\.0\.0\.1:\d+$/);
    assert.ok(
      listRecords().some((r) => r.resource.type === "process" && r.resource.pid === pid),
      "server recorded for cleanup",
    );
    const client = new Client(server.connection);
    await client.connect();
    const show = async (name: string) => (await client.query<Record<string, string>>(`SHOW ${name}`)).rows[0][name];
    assert.equal(await show("synchronous_commit"), "off");
    assert.equal(await show("shared_buffers"), "128MB");
    assert.equal(await show("track_io_timing"), "on");
    assert.equal(await show("listen_addresses"), "127.0.0.1");
    await client.query("CREATE EXTENSION pg_stat_statements; CREATE EXTENSION pgstattuple");
    await client.end();
    // A wrong password is refused: TCP connections need the per-server password.
    const intruder = new Client({ ...server.connection, password: "wrong" });
    await assert.rejects(intruder.connect(), /password authentication failed/);
    await server.restart();
    assert.notEqual(server.pid, pid, "a restart is a new postmaster");
    const again = new Client(server.connection);
    await again.connect();
    await again.end();
  } finally {
    await server.stop();
  }
  assert.equal(fs.existsSync(server.rootDirectory), false, "data directory removed");
  assert.equal(isProcessAlive(pid), false);
  assert.ok(
    !listRecords().some((r) => r.resource.type === "process" && r.resource.directory === server.rootDirectory),
    "record removed",
  );
});

test("embedded PostgreSQL: a port in use is refused with a clear message", async () => {
  const blocker = net.createServer().listen(0, "127.0.0.1");
  await new Promise((r) => blocker.once("listening", r));
  const port = (blocker.address() as net.AddressInfo).port;
  try {
    await assert.rejects(
      new EmbeddedPostgresTarget({ port }).start({ engine: "postgresql" }),
      new RegExp(`port ${port} on 127.0.0.1 is in use`),
    );
  } finally {
    blocker.close();
  }
});

test("embedded PostgreSQL: a bad setting fails the start with the server's own message", async () => {
  await assert.rejects(
    new EmbeddedPostgresTarget().start({ engine: "postgresql", settings: { shared_buffers: "lots" } }),
    /invalid value for parameter "shared_buffers"/,
  );
});

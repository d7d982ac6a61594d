// test-tier: fast — the fake MongoDB wire server and a free loopback port
/**
 * The readiness probes against servers that answer on loopback: the MongoDB probe against the fake
 * wire-protocol server (an init-time mongod is refused, the final one answers with its version),
 * the PostgreSQL probe against a port nobody listens on.
 */
import { test } from "node:test";
import assert from "node:assert/strict";
import { mongoProbe, postgresProbe, waitUntilReady } from "../../lib/targets/readiness";
import { freePort } from "../../lib/targets/ports";
import { FakeMongoServer } from "../support/fake-mongo-server";

test("mongoProbe refuses the image's init-time mongod (forked, no --auth) and accepts the final one", async () => {
  let final = false;
  const server = await FakeMongoServer.start({
    version: "8.0.16",
    handlers: {
      getcmdlineopts: () => ({
        parsed: final
          ? { security: { authorization: "enabled" } }
          : { processManagement: { fork: true }, security: { authorization: "disabled" } },
        ok: 1,
      }),
    },
  });
  try {
    const probe = mongoProbe(server.uri, `127.0.0.1:${server.port}`, { refuseInitTimeServer: true });
    await assert.rejects(probe.check(), /init-time mongod is still running/);
    final = true;
    assert.equal(await probe.check(), "8.0.16");
    // Without the init-time check (embedded mongod before its user exists), getCmdLineOpts is not sent.
    server.clearCommands();
    assert.equal(await mongoProbe(server.uri, `127.0.0.1:${server.port}`).check(), "8.0.16");
    assert.equal(server.commandsNamed("getCmdLineOpts").length, 0);
  } finally {
    await server.close();
  }
});

test("postgresProbe: nothing listening gives an error naming the server and the connection failure", async () => {
  const port = await freePort();
  const probe = postgresProbe({ host: "127.0.0.1", port, user: "postgres", password: "x", database: "postgres" });
  await assert.rejects(
    waitUntilReady(probe, { timeoutMs: 300, intervalMs: 100 }),
    new RegExp(`^Error: PostgreSQL at 127\\.0\\.0\\.1:${port} did not become ready in time: .*ECONNREFUSED`),
  );
});

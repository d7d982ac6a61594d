// test-tier: fast — the fake MongoDB wire server on an OS-chosen loopback port
/**
 * DBLAB_MONGODB_URI goes to the driver untouched: its options (here appName) reach the server as the
 * driver sends them, and what the lab records of it is redacted. Against the wire-protocol fake.
 */
import { test } from "node:test";
import assert from "node:assert/strict";
import { ExternalMongoServer } from "../../lib/targets/external/external-mongo";
import { FakeMongoServer } from "../support/fake-mongo-server";

test("external MongoDB: the URI's options reach the driver as written; the lab drops its database on stop", async () => {
  const fake = await FakeMongoServer.start();
  try {
    const server = await ExternalMongoServer.connect(`${fake.uri}&appName=team-mongo&compressors=none`);
    const hello = fake.commands.find((c) => ["hello", "ismaster"].includes(c.name.toLowerCase()));
    const client = (hello?.command as { client?: { application?: { name?: string } } } | undefined)?.client;
    assert.equal(client?.application?.name, "team-mongo", "appName from the URI is in the driver's handshake");
    assert.equal(server.description.address, `127.0.0.1:${fake.port}`);
    assert.match(server.connection.database, /^dblab_/);
    await server.stop();
    assert.ok(fake.commandsNamed("dropDatabase").some((c) => c.database === server.connection.database));
  } finally {
    await fake.close();
  }
});

test("external MongoDB: a URI the driver refuses is a clear error, without its password", async () => {
  await assert.rejects(
    ExternalMongoServer.connect("mongodb+srv://lab:srv-secret@cluster0.example.net:27017/"),
    (e: Error) =>
      /DBLAB_MONGODB_URI is not a MongoDB URI the driver accepts/.test(e.message) && !e.message.includes("srv-secret"),
  );
});

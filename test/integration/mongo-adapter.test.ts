// test-tier: fast — the fake MongoDB wire server on an OS-chosen loopback port
/**
 * The MongoDB adapter against the fake wire-protocol server: what the official driver actually
 * sends for each of the seed's operations (command, ordering, write concern, BSON types, order).
 */
import { after, before, beforeEach, describe, test } from "node:test";
import assert from "node:assert/strict";
import net from "node:net";
import { BSON, Long, type Document } from "bson";
import {
  COLLECTION,
  MongoIndexWriteCollection,
} from "../../lib/experiments/index-write-cost/workload/mongo-collection";
import { batchRanges, makeDataset, type Dataset } from "../../lib/experiments/index-write-cost/workload/engine";
import { counterDelta } from "../../lib/stats/counters";
import {
  FIELDS,
  UPDATED_COLUMNS,
  type UpdateOperation,
} from "../../lib/experiments/index-write-cost/workload/operations";
import { FakeMongoServer, OP_MSG, type RecordedCommand } from "../support/fake-mongo-server";
import { recorded } from "../support/counters";

const DATABASE = "dblab_adapter_test";
const BATCH = 1000;
const ROWS = 2500; // two full batches and a short last one
const SEED = 42;
const SEED_WRITE_CONCERN = { w: 1, j: false };

/** Commands other than the monitor's heartbeats: what the adapter's own calls put on the wire. */
function workCommands(server: FakeMongoServer): RecordedCommand[] {
  return server.commands.filter((c) => !["hello", "ismaster"].includes(c.name.toLowerCase()));
}

function assertLong(value: unknown, expected: number, what: string): void {
  assert.ok(value instanceof Long, `${what} should be a BSON int64 (Long), got ${typeof value} ${String(value)}`);
  assert.equal(value.toNumber(), expected, what);
}

function docsOf(command: RecordedCommand, field: "documents" | "updates"): Document[] {
  const docs: unknown = command.command[field];
  assert.ok(Array.isArray(docs), `${command.name} carries ${field}`);
  return docs as Document[];
}

describe("MongoIndexWriteCollection on the wire", () => {
  let server: FakeMongoServer;
  let db: MongoIndexWriteCollection;
  let dataset: Dataset;
  /** What `open` sent, before the first test clears the record. */
  let connectCommands: RecordedCommand[] = [];

  before(async () => {
    server = await FakeMongoServer.start();
    db = await MongoIndexWriteCollection.open(server.uri, DATABASE);
    connectCommands = [...server.commands];
    dataset = makeDataset(ROWS, SEED);
  });

  after(async () => {
    await db?.close();
    const errors = server ? [...server.protocolErrors] : [];
    await server?.close();
    assert.deepEqual(errors, [], "the fake understood every message the driver sent");
  });

  beforeEach(() => server.clearCommands());

  test("open: handshake, then OP_MSG; the fake answered all of it", (t) => {
    const handshakes = connectCommands.filter((c) => ["hello", "ismaster"].includes(c.name.toLowerCase()));
    assert.ok(handshakes.length > 0, "the driver sent a hello/ismaster");
    // The first message of each connection may be a legacy OP_QUERY (the driver cannot know yet
    // that the server speaks OP_MSG); everything after the handshake must be OP_MSG.
    const rest = connectCommands.filter((c) => !handshakes.includes(c));
    assert.ok(
      rest.some((c) => c.name === "ping"),
      "open() checks the server with a ping",
    );
    for (const c of rest) assert.equal(c.opCode, OP_MSG, `${c.name} over OP_MSG`);
    assert.deepEqual(server.protocolErrors, []);
    t.diagnostic(`handshake messages: ${handshakes.map((c) => `${c.name}/opcode ${c.opCode}`).join(", ")}`);
  });

  test("recreate drops and creates the collection (fillfactor has no MongoDB counterpart)", async () => {
    await db.recreate({ fillfactor: 70 });
    const commands = workCommands(server);
    assert.deepEqual(
      commands.map((c): unknown[] => [c.name, c.command[c.name], c.database]),
      [
        ["drop", COLLECTION, DATABASE],
        ["create", COLLECTION, DATABASE],
      ],
    );
    // Nothing fillfactor-like reaches the server.
    assert.deepEqual(
      Object.keys(commands[1].command).filter((k) => !k.startsWith("$") && k !== "lsid"),
      ["create"],
    );
  });

  test("insertBatch: one ordered insert per batch, { w: 1, j: false }, seven int64 fields per row", async () => {
    await db.recreate({ fillfactor: 100 });
    server.clearCommands();
    const ranges = [...batchRanges(ROWS, BATCH)];
    for (const [start, end] of ranges) await db.insertBatch(dataset, start, end);

    const commands = workCommands(server);
    assert.equal(
      commands.length,
      ranges.length,
      "exactly one command per driver call: " + commands.map((c) => c.name).join(","),
    );
    for (const [b, [start, end]] of ranges.entries()) {
      const insert = commands[b];
      assert.equal(insert.name, "insert");
      assert.equal(insert.opCode, OP_MSG);
      assert.equal(insert.command.insert, COLLECTION);
      assert.equal(insert.database, DATABASE);
      assert.equal(insert.command.ordered, true);
      assert.deepEqual(insert.command.writeConcern, SEED_WRITE_CONCERN);
      const docs = docsOf(insert, "documents");
      assert.equal(docs.length, end - start);
      for (const [k, doc] of docs.entries()) {
        const i = start + k;
        assert.deepEqual(Object.keys(doc), ["_id", "counter", ...FIELDS]);
        assertLong(doc._id, i + 1, `_id of row ${i}`);
        assertLong(doc.counter, 0, `counter of row ${i}`);
        for (const [f, field] of FIELDS.entries()) assertLong(doc[field], dataset.fields[f][i], `${field} of row ${i}`);
      }
    }
  });

  for (const operation of Object.keys(UPDATED_COLUMNS) as UpdateOperation[]) {
    test(`updateBatch ${operation}: one ordered update per batch, updateOne by _id with $inc by int64 1, shuffled order`, async () => {
      const ranges = [...batchRanges(ROWS, BATCH)];
      for (const [start, end] of ranges) await db.updateBatch(dataset, operation, start, end);

      const commands = workCommands(server);
      assert.equal(
        commands.length,
        ranges.length,
        "exactly one command per driver call: " + commands.map((c) => c.name).join(","),
      );
      const expectedInc: Document = {};
      for (const column of UPDATED_COLUMNS[operation]) expectedInc[column] = Long.fromNumber(1);
      const addressed: number[] = [];
      for (const [b, [start, end]] of ranges.entries()) {
        const update = commands[b];
        assert.equal(update.name, "update");
        assert.equal(update.command.update, COLLECTION);
        assert.equal(update.database, DATABASE);
        assert.equal(update.command.ordered, true);
        assert.deepEqual(update.command.writeConcern, SEED_WRITE_CONCERN);
        const statements = docsOf(update, "updates");
        assert.equal(statements.length, end - start);
        for (const statement of statements) {
          // Only q and u, and possibly multi: false / upsert: false; nothing else (no hint, no collation).
          assert.deepEqual(
            Object.keys(statement).filter((k) => k !== "multi" && k !== "upsert"),
            ["q", "u"],
          );
          assert.ok(statement.multi === undefined || statement.multi === false, "single-document update");
          assert.ok(statement.upsert === undefined || statement.upsert === false, "no upsert");
          assert.deepEqual(Object.keys(statement.q as Document), ["_id"]);
          assert.ok((statement.q as Document)._id instanceof Long, "_id filter is int64");
          addressed.push(((statement.q as Document)._id as Long).toNumber());
          assert.deepEqual(statement.u, { $inc: expectedInc });
          for (const value of Object.values((statement.u as Document).$inc as Document))
            assert.ok(value instanceof Long);
        }
      }
      const expectedOrder = Array.from(dataset.updateOrder, (position) => position + 1);
      assert.deepEqual(addressed, expectedOrder, "rows addressed in the dataset's shuffled order");
      assert.notDeepEqual(addressed.slice(0, 10), [1, 2, 3, 4, 5, 6, 7, 8, 9, 10], "the order is shuffled");
    });
  }

  test("createIndexes: one single-field ascending index per field, in one command", async () => {
    await db.createIndexes(["field1", "field2", "field3", "field4", "field5"]);
    const commands = workCommands(server);
    assert.equal(commands.length, 1);
    assert.equal(commands[0].name, "createIndexes");
    assert.equal(commands[0].command.createIndexes, COLLECTION);
    assert.deepEqual(
      commands[0].command.indexes,
      FIELDS.map((field) => ({ key: { [field]: 1 }, name: `${field}_1` })),
    );

    server.clearCommands();
    await db.createIndexes([]);
    assert.deepEqual(workCommands(server), [], "no indexes: no command");
    await assert.rejects(db.createIndexes(["field9" as never]), /unknown field/);
  });

  test("load: unordered insertMany in chunks of 10,000", async () => {
    const big = makeDataset(25_000, SEED);
    await db.recreate({ fillfactor: 100 });
    server.clearCommands();
    await db.load(big);
    const inserts = workCommands(server);
    assert.deepEqual(
      inserts.map((c): unknown[] => [c.name, c.command.ordered, docsOf(c, "documents").length]),
      [
        ["insert", false, 10_000],
        ["insert", false, 10_000],
        ["insert", false, 5_000],
      ],
    );
    const last = docsOf(inserts[2], "documents").at(-1)!;
    assertLong(last._id, 25_000, "last _id");
    assertLong(last.field5, big.fields[4][24_999], "last field5");
  });

  test("counters: serverStatus counters as mongo.*, collection and index sizes as size.* levels", async () => {
    await db.recreate({ fillfactor: 100 });
    await db.createIndexes(["field1"]);
    const before = await db.counters();
    await db.insertBatch(dataset, 0, BATCH);
    const after = await db.counters();
    const delta = counterDelta(before, after);

    assert.equal(delta["mongo.opcounters.insert"], BATCH);
    assert.equal(delta["mongo.opcounters.update"], 0);
    assert.ok((delta["mongo.wt.cache.bytes_written"] ?? 0) > 0);
    assert.ok("mongo.wt.log.bytes_written" in delta);
    assert.ok("size.mongo.wt.cache.dirty_bytes" in after, "dirty bytes are a level");
    assert.deepEqual(
      Object.keys(after)
        .filter((k) => k.startsWith("size.index."))
        .sort(),
      ["size.index._id_", "size.index.field1_1"],
    );
    // Levels keep the value after the trial, not a difference.
    assert.equal(delta["size.collection"], after["size.collection"]);
    assert.equal(after["size.collection_documents"], BATCH);
    assert.equal(
      after["size.total_index"],
      recorded(after, "size.index._id_") + recorded(after, "size.index.field1_1"),
    );
    for (const [key, value] of Object.entries(after)) {
      assert.ok(Number.isFinite(value), `${key} is a finite number`);
      assert.ok(key.startsWith("mongo.") || key.startsWith("size."), `${key} is namespaced`);
    }

    const commands = workCommands(server).map((c) => c.name);
    assert.ok(commands.includes("serverStatus"));
    const aggregate = server.commandsNamed("aggregate").at(-1)!;
    assert.deepEqual((aggregate.command.pipeline as Document[])[0], { $collStats: { storageStats: {} } });
  });
});

describe("FakeMongoServer wire format", () => {
  test("OP_MSG document sequences (kind 1) are recorded, merged into the command", async () => {
    const server = await FakeMongoServer.start();
    const socket = net.connect(server.port, "127.0.0.1");
    try {
      await new Promise<void>((resolve, reject) => socket.once("connect", resolve).once("error", reject));
      const body = BSON.serialize({ insert: "c", ordered: true, $db: "d" });
      const docs = [BSON.serialize({ _id: Long.fromNumber(1) }), BSON.serialize({ _id: Long.fromNumber(2) })];
      const identifier = Buffer.from("documents\0", "utf8");
      const sequenceSize = Buffer.alloc(4);
      sequenceSize.writeInt32LE(4 + identifier.length + docs.reduce((a, d) => a + d.length, 0));
      const sections = Buffer.concat([Buffer.from([0]), body, Buffer.from([1]), sequenceSize, identifier, ...docs]);
      const checksum = Buffer.alloc(4); // flag bit 0 says a CRC-32C follows; the fake skips it
      const header = Buffer.alloc(20);
      header.writeInt32LE(20 + sections.length + checksum.length, 0);
      header.writeInt32LE(7, 4);
      header.writeInt32LE(OP_MSG, 12);
      header.writeUInt32LE(1, 16);
      const reply = new Promise<Buffer>((resolve) => socket.once("data", resolve));
      socket.write(Buffer.concat([header, sections, checksum]));
      const answer = await reply;
      assert.equal(answer.readInt32LE(8), 7, "responseTo is the request's id");
      assert.equal(answer.readInt32LE(12), OP_MSG);
      const replyDoc = BSON.deserialize(answer.subarray(21));
      assert.equal(replyDoc.ok, 1);
      assert.equal(replyDoc.n, 2);

      const [recorded] = server.commandsNamed("insert");
      assert.deepEqual(recorded.sequences, ["documents"]);
      assert.deepEqual(recorded.command.documents, [{ _id: Long.fromNumber(1) }, { _id: Long.fromNumber(2) }]);
      assert.equal(recorded.database, "d");
      assert.deepEqual(server.protocolErrors, []);
    } finally {
      socket.destroy();
      await server.close();
    }
  });
});

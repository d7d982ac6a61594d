// test-tier: host — a MongoDB container on the machine's Docker daemon when its image is there
/**
 * One tiny real trial of each kind against a real MongoDB, when one is reachable: DBLAB_MONGODB_URI, a
 * mongod on PATH (or DBLAB_MONGOD), or a local mongo:8.0.16 docker image. Otherwise the test is
 * reported as skipped with the reason, never passed silently. Nothing is pulled from a registry.
 */
import { test } from "node:test";
import assert from "node:assert/strict";
import { Long, MongoClient, type Document } from "mongodb";
import {
  COLLECTION,
  MongoIndexWriteCollection,
} from "../../lib/experiments/index-write-cost/workload/mongo-collection";
import { dockerAvailable, dockerClient } from "../../lib/targets/docker/docker-client";
import { MONGO_IMAGE } from "../../lib/targets/docker/images";
import { findMongod } from "../../lib/targets/embedded/mongod-path";
import { createTarget } from "../../lib/targets/select";
import type { StartedServer, TargetKind } from "../../lib/targets/types";
import { makeDataset } from "../../lib/experiments/index-write-cost/workload/engine";
import { FIELDS, type Operation } from "../../lib/experiments/index-write-cost/workload/operations";
import { runTrial, type IndexWriteTrial } from "../../lib/experiments/index-write-cost/workload/run-trials";
import { recorded } from "../support/counters";

const SKIP_REASON =
  "no MongoDB reachable: set DBLAB_MONGODB_URI, put mongod on PATH, or have the mongo:8.0.16 docker image";
const ROWS = 3000;
const BATCH = 1000;

/** Which target can run MongoDB here, without pulling anything; undefined if none. */
async function availableKind(): Promise<{ kind: TargetKind; reason: string } | undefined> {
  if (process.env.DBLAB_MONGODB_URI) return { kind: "external", reason: "DBLAB_MONGODB_URI is set" };
  const mongod = findMongod();
  if (mongod) return { kind: "embedded", reason: `mongod at ${mongod}` };
  if (await dockerAvailable()) {
    try {
      await dockerClient().getImage(MONGO_IMAGE).inspect();
      return { kind: "docker", reason: `docker image ${MONGO_IMAGE}` };
    } catch {
      // Not local: the lab would try to pull it, which a test must not do.
    }
  }
  return undefined;
}

test("one tiny real trial per kind of write against MongoDB", { timeout: 300_000 }, async (t) => {
  const available = await availableKind();
  if (!available) {
    t.skip(SKIP_REASON);
    return;
  }
  t.diagnostic(`MongoDB from ${available.kind}: ${available.reason}`);
  const target = await createTarget("mongodb", available.kind, { cpus: 2, memoryBytes: 2 * 2 ** 30 });
  const server: StartedServer = await target.start({
    engine: "mongodb",
    name: "test-mongo",
    settings: { wiredTigerCacheSizeGB: 0.25 },
  });
  let db: MongoIndexWriteCollection | undefined;
  const check = new MongoClient(server.uri, { promoteLongs: false, serverSelectionTimeoutMS: 15_000 });
  try {
    t.diagnostic(`server version ${server.description.version}`);
    db = await MongoIndexWriteCollection.open(server.uri, server.connection.database);
    const dataset = makeDataset(ROWS, 42);
    const collection = check.db(server.connection.database).collection<Document>(COLLECTION);

    const trial = (operation: Operation, extraIndexes: number): Promise<IndexWriteTrial> =>
      runTrial(
        db!,
        dataset,
        {
          key: `it/${operation}/${extraIndexes}`,
          repeat: 1,
          position: 0,
          condition: { engine: "mongodb", rows: ROWS, extraIndexes, operation, fillfactor: null },
        },
        BATCH,
      );

    const insert = await trial("insert", 1);
    assert.equal(insert.status, "ok");
    assert.equal(insert.unitMs?.length, ROWS / BATCH);
    assert.ok((insert.seconds ?? 0) > 0);
    assert.equal(await collection.countDocuments(), ROWS);
    const counters = insert.counters;
    t.diagnostic(`insert trial counters: ${JSON.stringify(counters)}`);
    // An external server may have other clients, so at least, not exactly.
    assert.ok(recorded(counters, "mongo.opcounters.insert") >= ROWS, "opcounters.insert counted the rows");
    assert.ok(
      recorded(counters, "size.index._id_") > 0 && recorded(counters, "size.index.field1_1") > 0,
      "per-index sizes",
    );
    assert.ok(recorded(counters, "size.collection") > 0);

    const update = await trial("update_five_fields", 5);
    assert.equal(update.status, "ok");
    t.diagnostic(`update trial: ${update.seconds?.toFixed(4)} s; counters: ${JSON.stringify(update.counters)}`);
    assert.ok((update.counters?.["mongo.opcounters.update"] ?? 0) >= ROWS);
    assert.deepEqual(
      (await collection.listIndexes().toArray()).map((i: { name?: string }) => i.name).sort(),
      ["_id_", ...FIELDS.map((f) => `${f}_1`)].sort(),
    );

    // Every value is stored as int64, and the update added exactly one to each field of each row.
    for (const i of [0, 1234, ROWS - 1]) {
      const doc = await collection.findOne({ _id: Long.fromNumber(i + 1) });
      assert.ok(doc, `row ${i + 1} exists`);
      assert.ok(doc._id instanceof Long && doc.counter instanceof Long, "int64 _id and counter");
      assert.equal(doc.counter.toNumber(), 0);
      for (const [f, field] of FIELDS.entries()) {
        const value: unknown = doc[field];
        assert.ok(value instanceof Long, `${field} is int64`);
        assert.equal(value.toNumber(), dataset.fields[f][i] + 1, `${field} of row ${i + 1} after the update`);
      }
    }
    const types = await collection
      .aggregate<{ _id: string; n: number }>([
        { $project: { t: { $type: "$field3" } } },
        { $group: { _id: "$t", n: { $sum: 1 } } },
      ])
      .toArray();
    assert.deepEqual(
      types.map((x) => ({ type: x._id, n: Number(x.n) })),
      [{ type: "long", n: ROWS }],
    );
  } finally {
    await db?.close();
    await check.close();
    await server.stop();
  }
});

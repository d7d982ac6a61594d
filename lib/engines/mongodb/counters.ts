/**
 * MongoDB's counters as flat snapshots for after − before: WiredTiger statistics, opcounters, one collection's storage.
 */
import type { Collection, Document, Long, MongoClient } from "mongodb";

export const MONGO_WT_COUNTERS = [
  "mongo.wt.cache.bytes_written",
  "mongo.wt.cache.pages_written",
  "mongo.wt.cache.bytes_read",
  "mongo.wt.cache.pages_read",
  "mongo.wt.cache.app_evicted_pages",
  "size.mongo.wt.cache.dirty_bytes",
  "size.mongo.wt.cache.bytes",
  "mongo.wt.block.bytes_written",
  "mongo.wt.block.bytes_read",
  "mongo.wt.log.bytes_written",
  "mongo.wt.log.records_compressed",
  "mongo.wt.log.records_not_compressed",
  "mongo.wt.log.records_small",
  "mongo.wt.log.writes",
  "mongo.wt.log.syncs",
  "mongo.wt.txn.committed",
  "mongo.wt.checkpoints",
] as const;
export type MongoWtCounter = (typeof MONGO_WT_COUNTERS)[number];
export const MONGO_OPCOUNTERS = ["insert", "update"] as const;
/** $collStats' storage levels (not "size.index.…", which are summed as the per-index sizes). */
export const MONGO_COLLECTION_LEVELS = [
  "size.collection",
  "size.collection_data",
  "size.collection_documents",
  "size.total_index",
] as const;
export type MongoServerCounterKey = MongoWtCounter | `mongo.opcounters.${(typeof MONGO_OPCOUNTERS)[number]}`;
export type MongoCollectionCounterKey =
  | (typeof MONGO_COLLECTION_LEVELS)[number]
  | `size.index.${string}`
  /** Per index, keys inserted: which indexes a write touched. */
  | `mongo.index.${string}.inserts`;

const WIREDTIGER_STATS: Readonly<Record<MongoWtCounter, readonly [section: string, statistic: string]>> = {
  "mongo.wt.cache.bytes_written": ["cache", "bytes written from cache"],
  "mongo.wt.cache.pages_written": ["cache", "pages written from cache"],
  "mongo.wt.cache.bytes_read": ["cache", "bytes read into cache"],
  "mongo.wt.cache.pages_read": ["cache", "pages read into cache"],
  "mongo.wt.cache.app_evicted_pages": ["cache", "pages evicted by application threads"],
  "size.mongo.wt.cache.dirty_bytes": ["cache", "tracked dirty bytes in the cache"],
  "size.mongo.wt.cache.bytes": ["cache", "bytes currently in the cache"],
  "mongo.wt.block.bytes_written": ["block-manager", "bytes written"],
  "mongo.wt.block.bytes_read": ["block-manager", "bytes read"],
  "mongo.wt.log.bytes_written": ["log", "log bytes written"],
  "mongo.wt.log.records_compressed": ["log", "log records compressed"],
  "mongo.wt.log.records_not_compressed": ["log", "log records not compressed"],
  "mongo.wt.log.records_small": ["log", "log records too small to compress"],
  "mongo.wt.log.writes": ["log", "log write operations"],
  "mongo.wt.log.syncs": ["log", "log sync operations"],
  "mongo.wt.txn.committed": ["transaction", "transactions committed"],
  "mongo.wt.checkpoints": ["transaction", "transaction checkpoints"],
};

/** Sections serverStatus may leave out: `metrics` and `locks` alone are tens of kB per call. */
const SERVER_STATUS_EXCLUDE = { metrics: 0, locks: 0, network: 0, repl: 0, transactions: 0 };

function numberAt(value: unknown, ...path: string[]): number | undefined {
  let current: unknown = value;
  for (const key of path) {
    if (current === null || typeof current !== "object") return undefined;
    current = (current as Record<string, unknown>)[key];
  }
  if (typeof current === "number") return current;
  // Long-typed statistics arrive as Long when they exceed 2^53 (the driver promotes the rest).
  if (isLong(current)) return current.toNumber();
  return undefined;
}

/** bson's `Long.isLong`, written out so importing these names does not load the MongoDB driver. */
function isLong(value: unknown): value is Long {
  return typeof value === "object" && value !== null && (value as { __isLong__?: unknown }).__isLong__ === true;
}

export async function serverCounters(client: MongoClient): Promise<Partial<Record<MongoServerCounterKey, number>>> {
  const snapshot: Partial<Record<MongoServerCounterKey, number>> = {};
  const status = await client.db("admin").command({ serverStatus: 1, ...SERVER_STATUS_EXCLUDE });
  for (const key of MONGO_WT_COUNTERS) {
    const [section, stat] = WIREDTIGER_STATS[key];
    const value = numberAt(status, "wiredTiger", section, stat);
    if (value !== undefined) snapshot[key] = value;
  }
  for (const op of MONGO_OPCOUNTERS) {
    const value = numberAt(status, "opcounters", op);
    if (value !== undefined) snapshot[`mongo.opcounters.${op}`] = value;
  }
  return snapshot;
}

export async function collectionCounters<T extends Document>(
  collection: Collection<T>,
): Promise<Partial<Record<MongoCollectionCounterKey, number>>> {
  const snapshot: Partial<Record<MongoCollectionCounterKey, number>> = {};
  // $collStats (collStats is deprecated since 6.2); the projection keeps WiredTiger's statistics off the wire.
  const [stats] = await collection
    .aggregate<Document>([
      { $collStats: { storageStats: {} } },
      {
        $project: {
          "storageStats.size": 1,
          "storageStats.count": 1,
          "storageStats.storageSize": 1,
          "storageStats.totalIndexSize": 1,
          "storageStats.indexSizes": 1,
          "storageStats.indexDetails": 1,
        },
      },
    ])
    .toArray();
  const storage: unknown = stats?.storageStats;
  const levels: Readonly<Record<(typeof MONGO_COLLECTION_LEVELS)[number], string>> = {
    "size.collection": "storageSize",
    "size.collection_data": "size",
    "size.collection_documents": "count",
    "size.total_index": "totalIndexSize",
  };
  for (const key of MONGO_COLLECTION_LEVELS) {
    const value = numberAt(storage, levels[key]);
    if (value !== undefined) snapshot[key] = value;
  }
  const indexSizes: unknown =
    storage !== null && typeof storage === "object" ? (storage as Document).indexSizes : undefined;
  if (indexSizes !== null && typeof indexSizes === "object") {
    for (const name of Object.keys(indexSizes)) {
      const value = numberAt(indexSizes, name);
      if (value !== undefined) snapshot[`size.index.${name}`] = value;
    }
  }
  const details: unknown =
    storage !== null && typeof storage === "object" ? (storage as Document).indexDetails : undefined;
  if (details !== null && typeof details === "object") {
    for (const name of Object.keys(details)) {
      const inserts = numberAt((details as Document)[name], "cursor", "insert calls");
      if (inserts !== undefined) snapshot[`mongo.index.${name}.inserts`] = inserts;
    }
  }
  return snapshot;
}

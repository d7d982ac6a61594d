/**
 * The counters notebook 01 records, by engine. The adapters read them (postgres-table.ts: one SQL
 * expression per name, in a record over these names, so the SQL and the names cannot drift apart;
 * mongo-collection.ts: one serverStatus path per name) and the summary reads them by these names.
 * In a file of their own because engine.ts, which both adapters import, names their union.
 */
import { keyGuard } from "../../stats/counters";

/** PostgreSQL: the table's row and block counters, WAL, checkpoints, the WAL position and the table's size. */
export const PG_TABLE_COUNTERS = [
  "table.n_tup_ins",
  "table.n_tup_upd",
  "table.n_tup_hot_upd",
  "table.n_tup_newpage_upd",
  "table.autovacuum_count",
  "buffers.heap_hit",
  "buffers.heap_read",
  "buffers.index_hit",
  "buffers.index_read",
  "wal.records",
  "wal.fpi",
  "wal.bytes",
  "checkpoints",
  "wal.lsn",
  "size.table",
] as const;
export type PgTableCounter = (typeof PG_TABLE_COUNTERS)[number];

/** `size.index.<index name>`: each index's size (both engines; a level, not a counter). */
export type IndexSizeKey = `size.index.${string}`;
/** `walrec.<resource manager>/<record type>`: WAL records of the timed window (pg_walinspect). */
export type WalRecordKey = `walrec.${string}`;

export type PgIndexWriteCounterKey = PgTableCounter | IndexSizeKey | "server.statement_ms";
export const isPgIndexWriteCounterKey = keyGuard<PgIndexWriteCounterKey>(
  [...PG_TABLE_COUNTERS, "server.statement_ms"],
  [{ prefix: "size.index." }],
);
export const isWalRecordKey = keyGuard<WalRecordKey>([], [{ prefix: "walrec." }]);

/** MongoDB: serverStatus.wiredTiger statistics (levels start with "size.") and the opcounters. */
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
/** $collStats' storage figures, levels. Deliberately not "size.index.…": those are summed as the per-index sizes. */
export const MONGO_COLLECTION_LEVELS = [
  "size.collection",
  "size.collection_data",
  "size.collection_documents",
  "size.total_index",
] as const;
export type MongoCounterKey =
  | MongoWtCounter
  | `mongo.opcounters.${(typeof MONGO_OPCOUNTERS)[number]}`
  | (typeof MONGO_COLLECTION_LEVELS)[number]
  | IndexSizeKey
  /** Per index, WiredTiger's count of keys inserted: which indexes a write touched. */
  | `mongo.index.${string}.inserts`;

/** Every name a trial of 01 may record, either engine. */
export type IndexWriteCounterKey = PgIndexWriteCounterKey | WalRecordKey | MongoCounterKey;

/**
 * The counters 01 records, by engine: the adapters read them (one SQL expression or serverStatus
 * path per name) and the summary reads them by these names. Apart from engine.ts, which names their union.
 */
import { keyGuard } from "../../../stats/counters";

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

export {
  MONGO_COLLECTION_LEVELS,
  MONGO_OPCOUNTERS,
  MONGO_WT_COUNTERS,
  type MongoWtCounter,
} from "../../../engines/mongodb/counters";
import type { MONGO_COLLECTION_LEVELS, MONGO_OPCOUNTERS, MongoWtCounter } from "../../../engines/mongodb/counters";

export type MongoCounterKey =
  | MongoWtCounter
  | `mongo.opcounters.${(typeof MONGO_OPCOUNTERS)[number]}`
  | (typeof MONGO_COLLECTION_LEVELS)[number]
  | IndexSizeKey
  /** Per index, WiredTiger's count of keys inserted: which indexes a write touched. */
  | `mongo.index.${string}.inserts`;

/** Every name a trial of 01 may record, either engine. */
export type IndexWriteCounterKey = PgIndexWriteCounterKey | WalRecordKey | MongoCounterKey;

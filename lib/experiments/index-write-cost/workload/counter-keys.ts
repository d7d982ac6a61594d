/** The counters a trial records, by engine: the adapters write them and the summary reads them by these names. */
import { keyGuard } from "../../../stats/counters";

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

/** Each index's size (a level, not a counter), and the WAL records of the timed window by type (pg_walinspect). */
export type IndexSizeKey = `size.index.${string}`;
export type WalRecordKey = `walrec.${string}`;

export type PgIndexWriteCounterKey = PgTableCounter | IndexSizeKey | "server.statement_ms";
export const isPgIndexWriteCounterKey = keyGuard<PgIndexWriteCounterKey>(
  [...PG_TABLE_COUNTERS, "server.statement_ms"],
  [{ prefix: "size.index." }],
);
export const isWalRecordKey = keyGuard<WalRecordKey>([], [{ prefix: "walrec." }]);

import type { MONGO_COLLECTION_LEVELS, MONGO_OPCOUNTERS, MongoWtCounter } from "../../../engines/mongodb/counters";

export type MongoCounterKey =
  | MongoWtCounter
  | `mongo.opcounters.${(typeof MONGO_OPCOUNTERS)[number]}`
  | (typeof MONGO_COLLECTION_LEVELS)[number]
  | IndexSizeKey
  | `mongo.index.${string}.inserts`;

export type IndexWriteCounterKey = PgIndexWriteCounterKey | WalRecordKey | MongoCounterKey;

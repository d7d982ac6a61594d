/** The counters a trial records, by engine: the adapters write them and the summary reads them by these names. */
import { keyGuard } from "../../../stats/counters";

/** PostgreSQL's table counters: each one's SQL value and its FROM (t: the table's activity, io: its blocks). */
export const PG_TABLE_COUNTER_SQL = {
  "table.n_tup_ins": ["n_tup_ins::text", "FROM t"],
  "table.n_tup_upd": ["n_tup_upd::text", "FROM t"],
  "table.n_tup_hot_upd": ["n_tup_hot_upd::text", "FROM t"],
  "table.n_tup_newpage_upd": ["n_tup_newpage_upd::text", "FROM t"],
  "table.autovacuum_count": ["(autovacuum_count + autoanalyze_count)::text", "FROM t"],
  "buffers.heap_hit": ["heap_blks_hit::text", "FROM io"],
  "buffers.heap_read": ["heap_blks_read::text", "FROM io"],
  "buffers.index_hit": ["coalesce(idx_blks_hit, 0)::text", "FROM io"],
  "buffers.index_read": ["coalesce(idx_blks_read, 0)::text", "FROM io"],
  "wal.records": ["wal_records::text", "FROM pg_stat_wal"],
  "wal.fpi": ["wal_fpi::text", "FROM pg_stat_wal"],
  "wal.bytes": ["wal_bytes::text", "FROM pg_stat_wal"],
  checkpoints: ["(num_timed + num_requested)::text", "FROM pg_stat_checkpointer"],
  "wal.lsn": ["pg_wal_lsn_diff(pg_current_wal_insert_lsn(), '0/0')::text", ""],
  "size.table": ["pg_relation_size($1::regclass)::text", ""],
} as const;
export type PgTableCounter = keyof typeof PG_TABLE_COUNTER_SQL;

/** Each index's size (a level, not a counter), and the WAL records of the timed window by type (pg_walinspect). */
export type IndexSizeKey = `size.index.${string}`;
export type WalRecordKey = `walrec.${string}`;

export type PgIndexWriteCounterKey = PgTableCounter | IndexSizeKey | "server.statement_ms";
export const isPgIndexWriteCounterKey = keyGuard<PgIndexWriteCounterKey>(
  [...(Object.keys(PG_TABLE_COUNTER_SQL) as PgTableCounter[]), "server.statement_ms"],
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

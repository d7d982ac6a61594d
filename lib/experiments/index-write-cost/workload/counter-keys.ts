/** The counters a trial records, by engine: the adapters write them and the summary reads them by these names. */
import { keyGuard } from "../../../stats/counters";
import { ONE_TABLE_COUNTER_SQL } from "../../../engines/postgres/one-table-counters";

/** PostgreSQL's table counters (SQL value and FROM each), and the table's size. */
export const PG_TABLE_COUNTER_SQL = {
  ...ONE_TABLE_COUNTER_SQL,
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

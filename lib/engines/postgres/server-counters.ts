/**
 * Whole-server counters (WAL, I/O, buffers, checkpoints, temp files) as a flat snapshot, for "what
 * the server did" as after − before. Keys: wal.*, db.*, io.<backend_type>.<object>.<context>.<counter>, …
 */
import type { Client } from "pg";
import { countersFrom, keyGuard, type Counters } from "../../stats/counters";

const DB = "FROM pg_stat_database WHERE datname = current_database()";

/** Each whole-server counter and the SQL that reads it: the value, and where from. */
const SERVER_COUNTER_SQL = [
  ["wal.records", "wal_records::float8", "FROM pg_stat_wal"],
  ["wal.fpi", "wal_fpi::float8", "FROM pg_stat_wal"],
  ["wal.bytes", "wal_bytes::float8", "FROM pg_stat_wal"],
  ["wal.buffers_full", "wal_buffers_full::float8", "FROM pg_stat_wal"],
  ["wal.write", "wal_write::float8", "FROM pg_stat_wal"],
  ["wal.sync", "wal_sync::float8", "FROM pg_stat_wal"],
  ["wal.write_time_ms", "wal_write_time", "FROM pg_stat_wal"],
  ["wal.sync_time_ms", "wal_sync_time", "FROM pg_stat_wal"],
  ["db.xact_commit", "xact_commit::float8", DB],
  ["db.xact_rollback", "xact_rollback::float8", DB],
  ["db.blks_read", "blks_read::float8", DB],
  ["db.blks_hit", "blks_hit::float8", DB],
  ["db.blk_read_time_ms", "blk_read_time", DB],
  ["db.blk_write_time_ms", "blk_write_time", DB],
  ["db.temp_files", "temp_files::float8", DB],
  ["db.temp_bytes", "temp_bytes::float8", DB],
  ["db.tup_inserted", "tup_inserted::float8", DB],
  ["db.tup_updated", "tup_updated::float8", DB],
  ["db.deadlocks", "deadlocks::float8", DB],
  ["checkpointer.timed", "num_timed::float8", "FROM pg_stat_checkpointer"],
  ["checkpointer.requested", "num_requested::float8", "FROM pg_stat_checkpointer"],
  ["checkpointer.buffers_written", "buffers_written::float8", "FROM pg_stat_checkpointer"],
  ["checkpointer.write_time_ms", "write_time", "FROM pg_stat_checkpointer"],
  ["checkpointer.sync_time_ms", "sync_time", "FROM pg_stat_checkpointer"],
  ["bgwriter.buffers_clean", "buffers_clean::float8", "FROM pg_stat_bgwriter"],
  ["bgwriter.buffers_alloc", "buffers_alloc::float8", "FROM pg_stat_bgwriter"],
  ["size.database", "pg_database_size(current_database())::float8", ""],
] as const;

/** pg_stat_io's counters, each as the snapshot names it and the column it comes from. */
const IO_COUNTER_SQL = [
  ["reads", "reads::float8"],
  ["writes", "writes::float8"],
  ["extends", "extends::float8"],
  ["hits", "hits::float8"],
  ["evictions", "evictions::float8"],
  ["fsyncs", "fsyncs::float8"],
  ["read_time_ms", "read_time"],
  ["write_time_ms", "write_time"],
] as const;

export const PG_SERVER_COUNTERS = SERVER_COUNTER_SQL.map(([name]) => name);
export const PG_IO_COUNTERS = IO_COUNTER_SQL.map(([name]) => name);
export type PgIoCounter = (typeof IO_COUNTER_SQL)[number][0];
/** One per pg_stat_io row and counter, where not zero. */
export type PgIoCounterKey = `io.${string}.${string}.${string}.${PgIoCounter}`;
/** Every name `serverCounters` may return. */
export type PgServerCounterKey = (typeof SERVER_COUNTER_SQL)[number][0] | PgIoCounterKey;
export type PgServerCounters = Counters<PgServerCounterKey>;

export const isPgServerCounterKey = keyGuard<PgServerCounterKey>(PG_SERVER_COUNTERS, [
  { prefix: "io.", suffixes: PG_IO_COUNTERS },
]);

const SNAPSHOT_SQL = `
${SERVER_COUNTER_SQL.map(([name, value, from]) => `SELECT '${name}' AS name, ${value} AS value ${from}`).join("\nUNION ALL ")}
UNION ALL
SELECT 'io.' || backend_type || '.' || object || '.' || context || '.' || k, v
FROM pg_stat_io,
  LATERAL (VALUES ${IO_COUNTER_SQL.map(([name, column]) => `('${name}', ${column})`).join(", ")}) AS c(k, v)
WHERE v IS NOT NULL AND v <> 0
`;

/**
 * A snapshot; `flushFrom` is a session whose pending statistics are forced out first (else published ≤ once a second).
 */
export async function serverCounters(client: Client, flushFrom?: Client): Promise<PgServerCounters> {
  // PostgreSQL 17 skips a forced flush without pending relation statistics: reading one catalog row gives it some.
  await (flushFrom ?? client).query("SELECT pg_stat_force_next_flush(), (SELECT oid FROM pg_class LIMIT 1)");
  const { rows } = await client.query<{ name: string; value: number | null }>(SNAPSHOT_SQL);
  return countersFrom(rows, isPgServerCounterKey, "serverCounters");
}

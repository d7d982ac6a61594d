/**
 * Whole-server PostgreSQL counters (WAL, I/O, buffers, checkpoints, temp files) as a flat snapshot,
 * so any experiment can report "what the server did" during a phase as after − before.
 * Keys: wal.*, db.* (current database), io.<backend_type>.<object>.<context>.<counter>,
 * checkpointer.*, bgwriter.*, size.database.
 */
import type { Client } from "pg";
import type { CounterSnapshot } from "../../stats/counters";

const SNAPSHOT_SQL = `
SELECT 'wal.records' AS name, wal_records::float8 AS value FROM pg_stat_wal
UNION ALL SELECT 'wal.fpi', wal_fpi::float8 FROM pg_stat_wal
UNION ALL SELECT 'wal.bytes', wal_bytes::float8 FROM pg_stat_wal
UNION ALL SELECT 'wal.buffers_full', wal_buffers_full::float8 FROM pg_stat_wal
UNION ALL SELECT 'wal.write', wal_write::float8 FROM pg_stat_wal
UNION ALL SELECT 'wal.sync', wal_sync::float8 FROM pg_stat_wal
UNION ALL SELECT 'wal.write_time_ms', wal_write_time FROM pg_stat_wal
UNION ALL SELECT 'wal.sync_time_ms', wal_sync_time FROM pg_stat_wal
UNION ALL SELECT 'db.xact_commit', xact_commit::float8 FROM pg_stat_database WHERE datname = current_database()
UNION ALL SELECT 'db.xact_rollback', xact_rollback::float8 FROM pg_stat_database WHERE datname = current_database()
UNION ALL SELECT 'db.blks_read', blks_read::float8 FROM pg_stat_database WHERE datname = current_database()
UNION ALL SELECT 'db.blks_hit', blks_hit::float8 FROM pg_stat_database WHERE datname = current_database()
UNION ALL SELECT 'db.blk_read_time_ms', blk_read_time FROM pg_stat_database WHERE datname = current_database()
UNION ALL SELECT 'db.blk_write_time_ms', blk_write_time FROM pg_stat_database WHERE datname = current_database()
UNION ALL SELECT 'db.temp_files', temp_files::float8 FROM pg_stat_database WHERE datname = current_database()
UNION ALL SELECT 'db.temp_bytes', temp_bytes::float8 FROM pg_stat_database WHERE datname = current_database()
UNION ALL SELECT 'db.tup_inserted', tup_inserted::float8 FROM pg_stat_database WHERE datname = current_database()
UNION ALL SELECT 'db.tup_updated', tup_updated::float8 FROM pg_stat_database WHERE datname = current_database()
UNION ALL SELECT 'db.deadlocks', deadlocks::float8 FROM pg_stat_database WHERE datname = current_database()
UNION ALL SELECT 'checkpointer.timed', num_timed::float8 FROM pg_stat_checkpointer
UNION ALL SELECT 'checkpointer.requested', num_requested::float8 FROM pg_stat_checkpointer
UNION ALL SELECT 'checkpointer.buffers_written', buffers_written::float8 FROM pg_stat_checkpointer
UNION ALL SELECT 'checkpointer.write_time_ms', write_time FROM pg_stat_checkpointer
UNION ALL SELECT 'checkpointer.sync_time_ms', sync_time FROM pg_stat_checkpointer
UNION ALL SELECT 'bgwriter.buffers_clean', buffers_clean::float8 FROM pg_stat_bgwriter
UNION ALL SELECT 'bgwriter.buffers_alloc', buffers_alloc::float8 FROM pg_stat_bgwriter
UNION ALL SELECT 'size.database', pg_database_size(current_database())::float8
UNION ALL
SELECT 'io.' || backend_type || '.' || object || '.' || context || '.' || k, v
FROM pg_stat_io,
  LATERAL (VALUES ('reads', reads::float8), ('writes', writes::float8), ('extends', extends::float8),
                  ('hits', hits::float8), ('evictions', evictions::float8), ('fsyncs', fsyncs::float8),
                  ('read_time_ms', read_time), ('write_time_ms', write_time)) AS c(k, v)
WHERE v IS NOT NULL AND v <> 0
`;

/**
 * A snapshot of the server's counters. `flushFrom` (optional) is a session whose own pending
 * statistics are forced out first: backends publish them at most once a second otherwise.
 */
export async function serverCounters(client: Client, flushFrom?: Client): Promise<CounterSnapshot> {
  // PostgreSQL 17 skips even a forced flush when the session has no pending relation statistics
  // (a stream of `SELECT 1` has none): reading one catalog row gives it some.
  await (flushFrom ?? client).query("SELECT pg_stat_force_next_flush(), (SELECT oid FROM pg_class LIMIT 1)");
  const { rows } = await client.query<{ name: string; value: number | null }>(SNAPSHOT_SQL);
  const snapshot: Record<string, number> = {};
  for (const row of rows) if (row.value !== null) snapshot[row.name] = Number(row.value);
  return snapshot;
}

/** Sums the io.* counters of a delta into totals per counter kind and backend type, for tables. */
export function ioTotals(delta: Readonly<Record<string, number>>): Record<string, number> {
  const totals: Record<string, number> = {};
  for (const [key, value] of Object.entries(delta)) {
    if (!key.startsWith("io.")) continue;
    const parts = key.split(".");
    const backend = parts[1];
    const counter = parts[parts.length - 1];
    totals[`${backend}.${counter}`] = (totals[`${backend}.${counter}`] ?? 0) + value;
  }
  return totals;
}

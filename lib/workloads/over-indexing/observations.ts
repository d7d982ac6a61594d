/**
 * What the server says about a round: per-table row and block counters, table and index sizes,
 * and pg_stat_statements per statement of the transaction (calls, time, blocks, WAL).
 */
import type { Client } from "pg";
import { serverCounters, type PgServerCounterKey } from "../../engines/postgres/server-counters";
import { countersFrom, keyGuard, type Counters } from "../../stats/counters";

/** Per table: each counter and its column (s: pg_stat_user_tables, io: pg_statio_user_tables). */
const TABLE_COUNTER_SQL = [
  ["n_tup_ins", "s.n_tup_ins"],
  ["n_tup_upd", "s.n_tup_upd"],
  ["n_tup_hot_upd", "s.n_tup_hot_upd"],
  ["heap_blks_hit", "io.heap_blks_hit"],
  ["heap_blks_read", "io.heap_blks_read"],
  ["idx_blks_hit", "io.idx_blks_hit"],
  ["idx_blks_read", "io.idx_blks_read"],
  ["autovacuum_count", "s.autovacuum_count"],
  ["autoanalyze_count", "s.autoanalyze_count"],
] as const;
type TableCounter = (typeof TABLE_COUNTER_SQL)[number][0];
/** `table.<name>.<counter>`: the name is any user table's (the four inventory tables in practice). */
type TableCounterKey = `table.${string}.${TableCounter}`;
/** What a round of 03 records: the whole server's counters and the per-table ones. */
export type OverIndexingCounterKey = PgServerCounterKey | TableCounterKey;

const isTableCounterKey = keyGuard<TableCounterKey>(
  [],
  [{ prefix: "table.", suffixes: TABLE_COUNTER_SQL.map(([k]) => k) }],
);

const TABLE_SQL = `
SELECT 'table.' || s.relname || '.' || k AS name, v::float8 AS value
FROM pg_stat_user_tables s JOIN pg_statio_user_tables io USING (relid),
  LATERAL (VALUES ${TABLE_COUNTER_SQL.map(([k, column]) => `('${k}', ${column})`).join(", ")}) AS c(k, v)
WHERE v IS NOT NULL`;

/** Table size (heap, TOAST, free-space and visibility maps) per table, and every index's size. */
const SIZES_SQL = `
SELECT 'table.' || relname AS name, pg_table_size(relid)::float8 AS bytes FROM pg_stat_user_tables
UNION ALL
SELECT 'index.' || relname || '.' || indexrelname, pg_relation_size(indexrelid)::float8 FROM pg_stat_user_indexes`;

export async function roundCounters(client: Client): Promise<Counters<OverIndexingCounterKey>> {
  const server = await serverCounters(client);
  const { rows } = await client.query<{ name: string; value: number }>(TABLE_SQL);
  return { ...server, ...countersFrom(rows, isTableCounterKey, "03 table counters") };
}

/** `table.<name>` and `index.<table>.<index>` → bytes. */
export async function relationSizes(client: Client): Promise<Record<string, number>> {
  const { rows } = await client.query<{ name: string; bytes: number }>(SIZES_SQL);
  return Object.fromEntries(rows.map((r) => [r.name, Number(r.bytes)]));
}

export interface StatementStats {
  /** The normalised statement, whitespace collapsed, first 100 characters. */
  readonly query: string;
  readonly calls: number;
  readonly totalMs: number;
  readonly meanMs: number;
  readonly rows: number;
  readonly sharedHit: number;
  readonly sharedRead: number;
  readonly sharedDirtied: number;
  readonly sharedWritten: number;
  readonly walRecords: number;
  readonly walFpi: number;
  readonly walBytes: number;
}

/** Clears pg_stat_statements, so a round's rows are that round's alone. */
export async function resetStatements(client: Client): Promise<void> {
  await client.query("SELECT pg_stat_statements_reset()");
}

/** The transaction's statements (BEGIN, the two WITH … statements, COMMIT) in this database. */
export async function statementStats(client: Client): Promise<StatementStats[]> {
  const { rows } = await client.query<Record<string, string>>(`
    SELECT left(regexp_replace(query, '\\s+', ' ', 'g'), 100) AS query, calls::text, total_exec_time::text AS total,
      mean_exec_time::text AS mean, rows::text, shared_blks_hit::text AS hit, shared_blks_read::text AS read,
      shared_blks_dirtied::text AS dirtied, shared_blks_written::text AS written,
      wal_records::text, wal_fpi::text, wal_bytes::text
    FROM pg_stat_statements
    WHERE dbid = (SELECT oid FROM pg_database WHERE datname = current_database())
      AND query ~* '^\\s*(BEGIN|COMMIT|WITH)'
    ORDER BY total_exec_time DESC`);
  return rows.map((r) => ({
    query: r.query,
    calls: Number(r.calls),
    totalMs: Number(r.total),
    meanMs: Number(r.mean),
    rows: Number(r.rows),
    sharedHit: Number(r.hit),
    sharedRead: Number(r.read),
    sharedDirtied: Number(r.dirtied),
    sharedWritten: Number(r.written),
    walRecords: Number(r.wal_records),
    walFpi: Number(r.wal_fpi),
    walBytes: Number(r.wal_bytes),
  }));
}

/** WAL records of one kind (resource manager / record type) in a window. */
export interface WalRecordStats {
  readonly count: number;
  /** Record bytes plus full-page-image bytes. */
  readonly bytes: number;
  readonly fpiBytes: number;
}

/** `pg_walinspect` in this database, if the server has it (the embedded contrib and the docker image do). */
export async function enableWalInspect(client: Client): Promise<string | undefined> {
  try {
    await client.query("CREATE EXTENSION IF NOT EXISTS pg_walinspect");
    return undefined;
  } catch (error) {
    return error instanceof Error ? error.message : String(error);
  }
}

/**
 * The WAL position now: where the next record goes (start of a window), or how far WAL is flushed
 * (end of one: pg_walinspect reads only flushed WAL, and every commit of the window is flushed).
 */
export async function currentWalLsn(client: Client, flushed = false): Promise<string> {
  const fn = flushed ? "pg_current_wal_flush_lsn" : "pg_current_wal_lsn";
  const { rows } = await client.query<{ lsn: string }>(`SELECT ${fn}()::text AS lsn`);
  return rows[0].lsn;
}

/**
 * WAL written between two LSNs, counted by record type ("Btree/INSERT_LEAF", "Heap/HOT_UPDATE", …)
 * from the WAL itself (pg_walinspect): a count of what the server did, where per-table counters
 * times index counts would only be a model.
 */
export async function walRecordsBetween(
  client: Client,
  start: string,
  end: string,
): Promise<Record<string, WalRecordStats>> {
  const { rows } = await client.query<{ kind: string; n: string; bytes: string; fpi: string }>(
    `SELECT "resource_manager/record_type" AS kind, count::text AS n, combined_size::text AS bytes, fpi_size::text AS fpi
     FROM pg_get_wal_stats($1::pg_lsn, $2::pg_lsn, true) WHERE count > 0`,
    [start, end],
  );
  return Object.fromEntries(
    rows.map((r) => [r.kind, { count: Number(r.n), bytes: Number(r.bytes), fpiBytes: Number(r.fpi) }]),
  );
}

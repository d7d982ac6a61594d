import type { Client } from "pg";
import type { PgTableCounterKey } from "../../../engines/postgres/table-counters";

export { relationSizes, tableCounters as roundCounters } from "../../../engines/postgres/table-counters";
export { enableWalInspect, type WalRecordStats } from "../../../engines/postgres/wal-records";

export type OverIndexingCounterKey = PgTableCounterKey;

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

/** So that a round's rows are that round's alone. */
export async function resetStatements(client: Client): Promise<void> {
  await client.query("SELECT pg_stat_statements_reset()");
}

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

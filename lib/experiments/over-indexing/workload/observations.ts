import type { Client } from "pg";

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

export async function statementStats(client: Client): Promise<StatementStats[]> {
  const { rows } = await client.query<Record<string, string>>(`
    SELECT left(regexp_replace(query, '\\s+', ' ', 'g'), 100) AS query, calls::text, total_exec_time::text AS "totalMs",
      mean_exec_time::text AS "meanMs", rows::text, shared_blks_hit::text AS "sharedHit", shared_blks_read::text AS "sharedRead",
      shared_blks_dirtied::text AS "sharedDirtied", shared_blks_written::text AS "sharedWritten",
      wal_records::text AS "walRecords", wal_fpi::text AS "walFpi", wal_bytes::text AS "walBytes"
    FROM pg_stat_statements
    WHERE dbid = (SELECT oid FROM pg_database WHERE datname = current_database())
      AND query ~* '^\\s*(BEGIN|COMMIT|WITH)'
    ORDER BY total_exec_time DESC`);
  return rows.map(
    ({ query, ...n }) =>
      ({ query, ...Object.fromEntries(Object.entries(n).map(([k, v]) => [k, Number(v)])) }) as StatementStats,
  );
}

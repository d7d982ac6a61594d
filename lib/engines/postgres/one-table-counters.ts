/** One table's counters around a timed window, read from a session of its own (01's and 07's tables). */
import type { Client } from "pg";
import type { ConnectionInfo } from "../../targets/types";
import { countersFrom, type Counters } from "../../stats/counters";
import { ignored } from "../../runtime/debug";
import { connect } from "./connect";

/** Each counter's SQL value and its FROM (t: the table's activity, io: its blocks). */
export const ONE_TABLE_COUNTER_SQL = {
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
} as const;

/** One row per counter of `sql` for the table named $1, then `${indexPrefix}<index>`: each index's size. */
export const oneTableCountersSql = (sql: Readonly<Record<string, readonly [string, string]>>, indexPrefix: string) => `
WITH t AS (SELECT * FROM pg_stat_user_tables WHERE relname = $1),
     io AS (SELECT * FROM pg_statio_user_tables WHERE relname = $1)
${Object.entries(sql)
  .map(([name, [value, from]]) => `SELECT '${name}' AS name, ${value} AS value ${from}`)
  .join("\nUNION ALL ")}
UNION ALL SELECT '${indexPrefix}' || indexrelname, pg_relation_size(indexrelid)::text
  FROM pg_stat_user_indexes WHERE relname = $1
`;

/** The counters `sql` reads for `table` on `reader`, `writer`'s statistics forced out first (else ≤ once a second). */
export async function readTableCounters<K extends string>(
  o: { readonly reader: Client; readonly writer: Client; readonly sql: string; readonly table: string },
  isKey: (name: string) => name is K,
  collector: string,
): Promise<Counters<K>> {
  await o.writer.query("SELECT pg_stat_force_next_flush()");
  const { rows } = await o.reader.query<{ name: string; value: string | null }>(o.sql, [o.table]);
  return countersFrom(rows, isKey, collector);
}

/** `n` sessions on `connection`; if one cannot open, the ones opened are ended. */
export async function connectAll(connection: ConnectionInfo, n: number): Promise<Client[]> {
  const clients: Client[] = [];
  try {
    while (clients.length < n) clients.push(await connect(connection));
    return clients;
  } catch (error) {
    for (const c of clients) await c.end().catch(ignored("end a client after a failed open"));
    throw error;
  }
}

/** CREATE EXTENSION where allowed; false (its figures left out) where not installed, preloaded or permitted. */
export async function tryExtension(client: Client, name: string): Promise<boolean> {
  try {
    await client.query(`CREATE EXTENSION IF NOT EXISTS ${name}`);
    if (name === "pg_stat_statements") await client.query("SELECT 1 FROM pg_stat_statements LIMIT 1");
    return true;
  } catch {
    return false;
  }
}

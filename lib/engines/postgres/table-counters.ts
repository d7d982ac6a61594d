/**
 * Per-table row and block counters and table/index sizes beside the whole-server ones, for workloads writing several
 * tables.
 */
import type { Client } from "pg";
import { serverCounters, type PgServerCounterKey } from "./server-counters";
import { countersFrom, keyGuard, type Counters } from "../../stats/counters";

/** Each counter and its column (s: pg_stat_user_tables, io: pg_statio_user_tables). */
const TABLE_COUNTER_SQL = [
  ["n_tup_ins", "s.n_tup_ins"],
  ["n_tup_upd", "s.n_tup_upd"],
  ["n_tup_del", "s.n_tup_del"],
  ["n_tup_hot_upd", "s.n_tup_hot_upd"],
  ["n_tup_newpage_upd", "s.n_tup_newpage_upd"],
  ["heap_blks_hit", "io.heap_blks_hit"],
  ["heap_blks_read", "io.heap_blks_read"],
  ["idx_blks_hit", "io.idx_blks_hit"],
  ["idx_blks_read", "io.idx_blks_read"],
  ["autovacuum_count", "s.autovacuum_count"],
  ["autoanalyze_count", "s.autoanalyze_count"],
] as const;
export type TableCounter = (typeof TABLE_COUNTER_SQL)[number][0];
/** `table.<name>.<counter>`: the name is any user table's. */
export type TableCounterKey = `table.${string}.${TableCounter}`;
export type PgTableCounterKey = PgServerCounterKey | TableCounterKey;

const isTableCounterKey = keyGuard<TableCounterKey>(
  [],
  [{ prefix: "table.", suffixes: TABLE_COUNTER_SQL.map(([k]) => k) }],
);

const TABLE_SQL = `
SELECT 'table.' || s.relname || '.' || k AS name, v::float8 AS value
FROM pg_stat_user_tables s JOIN pg_statio_user_tables io USING (relid),
  LATERAL (VALUES ${TABLE_COUNTER_SQL.map(([k, column]) => `('${k}', ${column})`).join(", ")}) AS c(k, v)
WHERE v IS NOT NULL`;

/** Table size (heap, TOAST, FSM, VM) per table, and every index's size. */
const SIZES_SQL = `
SELECT 'table.' || relname AS name, pg_table_size(relid)::float8 AS bytes FROM pg_stat_user_tables
UNION ALL
SELECT 'index.' || relname || '.' || indexrelname, pg_relation_size(indexrelid)::float8 FROM pg_stat_user_indexes`;

export async function tableCounters(client: Client): Promise<Counters<PgTableCounterKey>> {
  const server = await serverCounters(client);
  const { rows } = await client.query<{ name: string; value: number }>(TABLE_SQL);
  return { ...server, ...countersFrom(rows, isTableCounterKey, "table counters") };
}

/** `table.<name>` and `index.<table>.<index>` → bytes. */
export async function relationSizes(client: Client): Promise<Record<string, number>> {
  const { rows } = await client.query<{ name: string; bytes: number }>(SIZES_SQL);
  return Object.fromEntries(rows.map((r) => [r.name, Number(r.bytes)]));
}

/** What the schema holds, read from the lab's copy of it: tables and their indexes. */
import type { Client } from "pg";

export interface IndexInfo {
  readonly name: string;
  readonly table: string;
  /** Columns the index reads: its keys, and those of its expressions and predicate (pg_depend). */
  readonly columns: readonly string[];
  readonly definition: string;
  /** Backs a key, a constraint, a foreign key's lookups, or is unique: the lab does not drop it. */
  readonly constraint: boolean;
  readonly backs?: string;
  readonly unique: boolean;
  readonly bytes: number;
}

export async function listIndexes(client: Client): Promise<IndexInfo[]> {
  // JSON's nulls are stripped: an index that backs nothing has no `backs`.
  const { rows } = await client.query<{ info: IndexInfo }>(`
    SELECT json_strip_nulls(json_build_object('name', i.relname, 'table', t.relname,
      'columns', coalesce((SELECT array_agg(DISTINCT a.attname::text ORDER BY a.attname::text) FROM pg_attribute a
        WHERE a.attrelid = x.indrelid AND a.attnum > 0 AND (a.attnum = ANY (x.indkey) OR a.attnum IN (
          SELECT d.refobjsubid FROM pg_depend d
          WHERE d.classid = 'pg_class'::regclass AND d.objid = x.indexrelid
            AND d.refclassid = 'pg_class'::regclass AND d.refobjid = x.indrelid))), '{}'),
      'definition', pg_get_indexdef(x.indexrelid), 'constraint', b.backs IS NOT NULL, 'backs', b.backs,
      'unique', x.indisunique, 'bytes', pg_relation_size(x.indexrelid))) AS info
    FROM pg_index x JOIN pg_class i ON i.oid = x.indexrelid JOIN pg_class t ON t.oid = x.indrelid
      JOIN pg_namespace n ON n.oid = t.relnamespace,
      LATERAL (SELECT coalesce((SELECT string_agg(CASE c.contype WHEN 'p' THEN 'the primary key ' WHEN 'u' THEN 'the unique constraint '
          WHEN 'x' THEN 'the exclusion constraint ' ELSE 'the foreign key ' END || c.conname ||
          CASE WHEN c.contype = 'f' THEN ' of ' || c.conrelid::regclass::text || ' (its checks look rows up through it)' ELSE '' END,
          '; ' ORDER BY c.contype DESC, c.conname)
        FROM pg_constraint c WHERE c.conindid = x.indexrelid AND c.contype IN ('p', 'u', 'x', 'f')),
        CASE WHEN x.indisunique THEN 'a uniqueness rule (a unique index)' END) AS backs) b
    WHERE n.nspname NOT IN ('pg_catalog', 'information_schema') AND n.nspname NOT LIKE 'pg_toast%'
    ORDER BY t.relname, i.relname`);
  return rows.map((r) => r.info);
}

export async function listTables(client: Client): Promise<string[]> {
  const { rows } = await client.query<{ name: string }>(
    `SELECT CASE WHEN schemaname = 'public' THEN quote_ident(relname) ELSE quote_ident(schemaname) || '.' || quote_ident(relname) END AS name
     FROM pg_stat_user_tables ORDER BY 1`,
  );
  return rows.map((r) => r.name);
}

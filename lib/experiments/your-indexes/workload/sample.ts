/**
 * Rows from the reader's own server (`sampleFrom`), copied into the lab's template with COPY, so
 * the indexes are judged on real value distributions; and how the source uses its indexes
 * (pg_stat_user_indexes.idx_scan, since stats_reset). The source is only read: every statement
 * there runs in one READ ONLY transaction, which the server itself refuses to let write.
 */
import { pipeline } from "node:stream/promises";
import { Client } from "pg";
import { from as copyFrom, to as copyTo } from "pg-copy-streams";
import { connectAdmin, PlaintextRefusedError } from "../../../targets/external/external-target";
import { ignored } from "../../../runtime/debug";
import { redactText } from "../../../targets/uri";
import type { StartedServer } from "../../../targets/types";
import { withDatabase } from "./databases";

/** The source could not be read: says why (the URI's password never appears). */
export class SourceError extends Error {
  override readonly name = "SourceError";
}

export interface SourceIndexUsage {
  readonly table: string;
  readonly index: string;
  readonly idxScan: number;
  /** PostgreSQL ≥ 16: when the index was last scanned. */
  readonly lastIdxScan?: string;
}

export interface SourceInfo {
  /** The URI without its password. */
  readonly source: string;
  readonly version: string;
  /** Since when the source's counters count (pg_stat_database.stats_reset; absent: since the cluster was created). */
  readonly statsReset?: string;
  readonly indexes: readonly SourceIndexUsage[];
  readonly rowsCopied: Readonly<Record<string, number>>;
}

const message = (e: unknown) => (e instanceof Error ? e.message : String(e));

/** Columns the lab's table takes from a copy: all but generated ones, in its own order. */
async function copyColumns(lab: Client, table: string): Promise<string[]> {
  const { rows } = await lab.query<{ c: string }>(
    `SELECT quote_ident(attname) AS c FROM pg_attribute
     WHERE attrelid = $1::regclass AND attnum > 0 AND NOT attisdropped AND attgenerated = '' ORDER BY attnum`,
    [table],
  );
  return rows.map((r) => r.c);
}

/**
 * Copies up to `rows` rows of each of `tables` (a Bernoulli sample, so not only the first pages)
 * from the source into `database` on the lab's server. Foreign keys are not checked during the
 * copy (session_replication_role = replica): a sample of each table does not hold every row its
 * keys point to. Sequences are set past the copied keys, so the workload's inserts do not collide.
 */
export async function sampleFromSource(
  uri: string,
  tables: readonly string[],
  rows: number,
  server: StartedServer,
  database: string,
  signal?: AbortSignal,
): Promise<SourceInfo> {
  const shown = redactText(uri);
  // The external target's rules: libpq's reading of the URI (sslmode, sslrootcert, service file,
  // .pgpass, PG* variables) and no plaintext to another host unless the URI itself says sslmode=disable.
  let source: Client;
  try {
    ({ client: source } = await connectAdmin(uri, { applicationName: "dblab-sample (read only)" }));
  } catch (error) {
    const why = error instanceof PlaintextRefusedError ? "refused" : "cannot connect to";
    throw new SourceError(`sampleFrom: ${why} ${shown}: ${redactText(message(error))}`, { cause: error });
  }
  try {
    await source.query("BEGIN ISOLATION LEVEL REPEATABLE READ READ ONLY");
    const version = (await source.query<{ v: string }>("SELECT current_setting('server_version') AS v")).rows[0].v;
    const rowsCopied: Record<string, number> = {};
    await withDatabase(server, database, async (lab) => {
      await lab.query("SET session_replication_role = replica");
      for (const table of tables) {
        signal?.throwIfAborted();
        const found = await source.query<{ n: string | null }>(
          "SELECT (SELECT greatest(reltuples, 0)::bigint FROM pg_class WHERE oid = to_regclass($1))::text AS n",
          [table],
        );
        if (found.rows[0].n === null)
          throw new SourceError(`sampleFrom: ${shown} has no table ${table} (the schema file has it)`);
        const estimate = Number(found.rows[0].n);
        const columns = (await copyColumns(lab, table)).join(", ");
        const percent = estimate > 0 ? Math.min(100, (100 * rows * 1.2) / estimate) : 100;
        const select = `SELECT ${columns} FROM ${table} TABLESAMPLE BERNOULLI (${percent}) LIMIT ${rows}`;
        try {
          await pipeline(
            source.query(copyTo(`COPY (${select}) TO STDOUT`)),
            lab.query(copyFrom(`COPY ${table} (${columns}) FROM STDIN`)),
          );
        } catch (error) {
          throw new SourceError(`sampleFrom: copying ${table} from ${shown} failed: ${message(error)}`, {
            cause: error,
          });
        }
        const n = await lab.query<{ n: string }>(`SELECT count(*)::text AS n FROM ${table}`);
        rowsCopied[table] = Number(n.rows[0].n);
        // Identity and serial columns: next values past the copied ones.
        const sequences = await lab.query<{ col: string; seq: string }>(
          `SELECT quote_ident(a.attname) AS col, s AS seq FROM pg_attribute a, LATERAL pg_get_serial_sequence($1, a.attname) AS s
           WHERE a.attrelid = $1::regclass AND a.attnum > 0 AND NOT a.attisdropped AND s IS NOT NULL`,
          [table],
        );
        for (const r of sequences.rows)
          await lab.query(`SELECT setval($1, coalesce((SELECT max(${r.col}) FROM ${table}), 0) + 1, false)`, [r.seq]);
      }
    });
    const usage = await source.query<{ table: string; index: string; scans: string; last: string | null }>(
      `SELECT relname AS table, indexrelname AS index, idx_scan::text AS scans, to_jsonb(s) ->> 'last_idx_scan' AS last
       FROM pg_stat_user_indexes s ORDER BY relname, indexrelname`,
    );
    const reset = await source.query<{ r: string | null }>(
      "SELECT stats_reset::text AS r FROM pg_stat_database WHERE datname = current_database()",
    );
    return {
      source: shown,
      version,
      ...(reset.rows[0]?.r ? { statsReset: reset.rows[0].r } : {}),
      indexes: usage.rows.map((r) => ({
        table: r.table,
        index: r.index,
        idxScan: Number(r.scans),
        ...(r.last ? { lastIdxScan: r.last } : {}),
      })),
      rowsCopied,
    };
  } catch (error) {
    if (error instanceof SourceError) throw error;
    throw new SourceError(`sampleFrom: reading ${shown} failed: ${message(error)}`, { cause: error });
  } finally {
    await source.query("ROLLBACK").catch(ignored("sampleFrom: ROLLBACK on the source"));
    await source.end().catch(ignored("sampleFrom: closing the source"));
  }
}

/**
 * The loaded database is built once, as a template; each round gets a FILE_COPY clone of it, then
 * its level's indexes. That gives every round the same rows on the same pages, which the seed got
 * by restoring a dump before every round.
 */
import type { StartedServer } from "../../targets/types";
import { cancellable, withClient as withConnection } from "../../engines/postgres/connect";
import { cloneDatabase, dropDatabases as dropAll, recreateDatabase } from "../../engines/postgres/template-database";
import type { Client } from "pg";

/** A connection to one of the lab's databases on this server. */
export function withClient<T>(server: StartedServer, database: string, fn: (client: Client) => Promise<T>): Promise<T> {
  return withConnection(server.connection, fn, { database, applicationName: "dblab-admin" });
}
import { loadStatements, samplePercent, type DatasetShape } from "./dataset";
import { COUNT_INDEXES_SQL, CONSTRAINT_INDEXES, createIndexSql, extraIndexesFor, SCHEMA_SQL } from "./schema";

export const TEMPLATE_DATABASE = "dblab_inventory_template";
export const RUN_DATABASE = "dblab_inventory_run";

export interface TemplateInfo {
  readonly shape: DatasetShape;
  /** Seconds per load step ("products", "stock", …, "vacuum analyze"). */
  readonly loadSeconds: Readonly<Record<string, number>>;
  readonly rows: Readonly<Record<string, number>>;
  readonly databaseBytes: number;
  readonly stockPages: number;
  /** TABLESAMPLE SYSTEM percentage the transaction uses (see samplePercent). */
  readonly samplePercent: number;
  readonly constraintIndexes: number;
}

export async function createTemplate(
  server: StartedServer,
  shape: DatasetShape,
  seed: number,
  onStep?: (label: string) => void,
  signal?: AbortSignal,
): Promise<TemplateInfo> {
  await dropAll(server.connection, [RUN_DATABASE]);
  await recreateDatabase(server.connection, TEMPLATE_DATABASE);
  return withClient(server, TEMPLATE_DATABASE, async (c) => {
    await c.query("CREATE EXTENSION IF NOT EXISTS pg_stat_statements");
    await c.query(SCHEMA_SQL);
    const loadSeconds: Record<string, number> = {};
    // A Stop cancels the running load statement on the server (they take tens of seconds each).
    await cancellable(server.connection, c, signal, async () => {
      for (const step of loadStatements(shape, seed)) {
        signal?.throwIfAborted();
        onStep?.(step.label);
        const began = Date.now();
        await c.query(step.sql);
        loadSeconds[step.label] = (Date.now() - began) / 1000;
      }
    });
    const counts = await c.query<{ t: string; n: string }>(
      `SELECT 'products' AS t, count(*)::text AS n FROM products UNION ALL SELECT 'warehouses', count(*)::text FROM warehouses
       UNION ALL SELECT 'stock', count(*)::text FROM stock UNION ALL SELECT 'stock_movements', count(*)::text FROM stock_movements`,
    );
    const info = await c.query<{ db: string; pages: number }>(
      "SELECT pg_database_size(current_database())::text AS db, (pg_relation_size('stock') / current_setting('block_size')::int)::int AS pages",
    );
    const idx = await c.query<{ n: number }>(COUNT_INDEXES_SQL);
    if (idx.rows[0].n !== CONSTRAINT_INDEXES) {
      throw new Error(`the schema has ${idx.rows[0].n} indexes from its constraints, expected ${CONSTRAINT_INDEXES}`);
    }
    const pages = Number(info.rows[0].pages);
    return {
      shape,
      loadSeconds,
      rows: Object.fromEntries(counts.rows.map((r) => [r.t, Number(r.n)])),
      databaseBytes: Number(info.rows[0].db),
      stockPages: pages,
      samplePercent: samplePercent(pages),
      constraintIndexes: idx.rows[0].n,
    };
  });
}

export interface PreparedRound {
  readonly cloneSeconds: number;
  readonly indexSeconds: number;
  /** Indexes on the four tables, counted in pg_indexes after the level's were built. */
  readonly indexCount: number;
}

/** A fresh clone of the template with `level` indexes; throws if pg_indexes does not count `level`. */
export async function prepareRound(server: StartedServer, level: number, maintenanceWorkMemMB: number): Promise<PreparedRound> {
  const began = Date.now();
  await cloneDatabase(server.connection, TEMPLATE_DATABASE, RUN_DATABASE);
  const cloned = Date.now();
  const indexCount = await withClient(server, RUN_DATABASE, async (c) => {
    await c.query(`SET maintenance_work_mem = '${maintenanceWorkMemMB}MB'`);
    for (const index of extraIndexesFor(level)) await c.query(createIndexSql(index));
    const { rows } = await c.query<{ n: number }>(COUNT_INDEXES_SQL);
    // The round starts from a clean checkpoint: index builds' dirty pages are not the run's to write.
    await c.query("CHECKPOINT");
    return rows[0].n;
  });
  if (indexCount !== level) throw new Error(`level ${level}: pg_indexes counts ${indexCount} indexes on the four tables`);
  return { cloneSeconds: (cloned - began) / 1000, indexSeconds: (Date.now() - cloned) / 1000, indexCount };
}

export async function dropDatabases(server: StartedServer): Promise<void> {
  await dropAll(server.connection, [RUN_DATABASE, TEMPLATE_DATABASE]);
}

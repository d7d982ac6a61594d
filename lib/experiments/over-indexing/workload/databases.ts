/**
 * The loaded database is built once as a template; each round gets a FILE_COPY clone of it, then
 * its level's indexes: the same rows on the same pages, as the seed got by restoring a dump.
 */
import { databasePrefix } from "../../../targets/run-names";
import type { StartedServer } from "../../../targets/types";
import { cancellable, withClient as withConnection } from "../../../engines/postgres/connect";
import { cloneDatabase, dropDatabases as dropAll, recreateDatabase } from "../../../engines/postgres/template-database";
import type { Client } from "pg";
import { enableWalInspect } from "./observations";
import { loadStatements, samplePercent, type DatasetShape } from "./dataset";
import {
  ADD_FOREIGN_KEYS_SQL,
  COUNT_FOREIGN_KEYS_SQL,
  COUNT_INDEXES_SQL,
  DROP_FOREIGN_KEYS_SQL,
  FOREIGN_KEYS,
  CONSTRAINT_INDEXES,
  createIndexSql,
  extraIndexesFor,
  indexesBetween,
  indexName,
  SCHEMA_SQL,
  type ExtraIndex,
} from "./schema";

export function withClient<T>(server: StartedServer, database: string, fn: (client: Client) => Promise<T>): Promise<T> {
  return withConnection(server.connection, fn, { database, applicationName: "dblab-admin" });
}

/** The loaded data's template on this server (under the run's prefix on a shared one). */
export const templateDatabase = (server: StartedServer): string => `${databasePrefix(server)}_inventory_template`;
/** Two: a round's clone may be made while the round before still reads its counters (run-trials.ts). */
export const runDatabase = (server: StartedServer, slot: RunSlot = 0): string =>
  `${databasePrefix(server)}_inventory_run${slot ? "_b" : ""}`;
export type RunSlot = 0 | 1;

export interface TemplateInfo {
  readonly shape: DatasetShape;
  readonly loadSeconds: Readonly<Record<string, number>>;
  readonly rows: Readonly<Record<string, number>>;
  readonly databaseBytes: number;
  readonly stockPages: number;
  readonly samplePercent: number;
  readonly constraintIndexes: number;
  readonly walInspect: boolean;
  readonly walInspectError?: string;
}

export async function createTemplate(
  server: StartedServer,
  shape: DatasetShape,
  seed: number,
  onStep?: (label: string) => void,
  signal?: AbortSignal,
): Promise<TemplateInfo> {
  // A clone of an earlier load would carry its data: gone with it.
  await dropAll(server.connection, [runDatabase(server, 0), runDatabase(server, 1)]);
  await recreateDatabase(server.connection, templateDatabase(server));
  return withClient(server, templateDatabase(server), async (c) => {
    await c.query("CREATE EXTENSION IF NOT EXISTS pg_stat_statements");
    // In the template, so every clone has it: each round's B-tree inserts are then counted from its WAL.
    const walInspectError = await enableWalInspect(c);
    await c.query(SCHEMA_SQL);
    await c.query(DROP_FOREIGN_KEYS_SQL);
    const loadSeconds: Record<string, number> = {};
    // Back before VACUUM (ANALYZE): the load still ends vacuumed and analysed.
    const steps = loadStatements(shape, seed).flatMap((step) =>
      step.label === "vacuum analyze" ? [{ label: "foreign keys", sql: ADD_FOREIGN_KEYS_SQL }, step] : [step],
    );
    // A Stop cancels the running load statement on the server.
    await cancellable(server.connection, c, signal, async () => {
      for (const step of steps) {
        signal?.throwIfAborted();
        onStep?.(step.label);
        const began = Date.now();
        await c.query(step.sql);
        loadSeconds[step.label] = (Date.now() - began) / 1000;
      }
    });
    const keys = await c.query<{ n: number }>(COUNT_FOREIGN_KEYS_SQL);
    if (keys.rows[0].n !== FOREIGN_KEYS.length) {
      throw new Error(`the template has ${keys.rows[0].n} validated foreign keys, expected ${FOREIGN_KEYS.length}`);
    }
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
      walInspect: walInspectError === undefined,
      ...(walInspectError ? { walInspectError } : {}),
    };
  });
}

export interface PreparedRound {
  readonly cloneSeconds: number;
  readonly templateLevel: number;
  /** Those of its level above the template's (0 at or below it). */
  readonly indexSeconds: number;
  readonly dropSeconds: number;
  /** The clean CHECKPOINT after the clone, drops and builds, and the index count. */
  readonly checkpointSeconds: number;
  readonly indexCount: number;
}

export const WORKLOAD_DATABASES: readonly string[] = ["inventory_run", "inventory_run_b", "inventory_template"];

async function buildIndexes(c: Client, indexes: readonly ExtraIndex[], maintenanceWorkMemMB: number): Promise<number> {
  const began = Date.now();
  await c.query(`SET maintenance_work_mem = '${maintenanceWorkMemMB}MB'`);
  for (const index of indexes) await c.query(createIndexSql(index));
  return (Date.now() - began) / 1000;
}

/** Once, before the first round, then a checkpoint. */
export async function buildTemplateIndexes(
  server: StartedServer,
  level: number,
  maintenanceWorkMemMB: number,
  signal?: AbortSignal,
): Promise<number> {
  const indexes = extraIndexesFor(level);
  if (!indexes.length) return 0;
  return withClient(server, templateDatabase(server), async (c) => {
    const seconds = await cancellable(server.connection, c, signal, () =>
      buildIndexes(c, indexes, maintenanceWorkMemMB),
    );
    await c.query("CHECKPOINT");
    return seconds;
  });
}

/**
 * The levels nest, so a lower level drops what it lacks, a higher one builds the rest; index builds
 * are deterministic on identical data (why not a build every round: docs/over-indexing.md). The
 * clean checkpoint after: the clone's, drops' and builds' dirty pages are not the round's to write.
 */
export async function prepareRound(
  server: StartedServer,
  level: number,
  maintenanceWorkMemMB: number,
  templateLevel: number,
  database = runDatabase(server),
): Promise<PreparedRound> {
  const cloneSeconds = await cloneDatabase(server.connection, templateDatabase(server), database);
  const prepared = await withClient(server, database, async (c) => {
    const began = Date.now();
    const lacking = level < templateLevel ? indexesBetween(level, templateLevel) : [];
    if (lacking.length) await c.query(`DROP INDEX ${lacking.map(indexName).join(", ")}`);
    const dropped = (Date.now() - began) / 1000;
    const built =
      level > templateLevel ? await buildIndexes(c, indexesBetween(templateLevel, level), maintenanceWorkMemMB) : 0;
    const checked = Date.now();
    await c.query("CHECKPOINT");
    const indexCount = (await c.query<{ n: number }>(COUNT_INDEXES_SQL)).rows[0].n;
    const checkpointSeconds = (Date.now() - checked) / 1000;
    return { cloneSeconds, templateLevel, indexSeconds: built, dropSeconds: dropped, checkpointSeconds, indexCount };
  });
  if (prepared.indexCount !== level)
    throw new Error(`level ${level}: pg_indexes counts ${prepared.indexCount} indexes on the four tables`);
  return prepared;
}

/** Undefined where pg_ls_waldir is not allowed (a role without pg_monitor). */
export async function walAfterLoad(server: StartedServer): Promise<number | undefined> {
  return withClient(server, templateDatabase(server), async (c) => {
    await c.query("CHECKPOINT");
    try {
      const r = await c.query<{ bytes: string }>("SELECT coalesce(sum(size), 0)::text AS bytes FROM pg_ls_waldir()");
      return Number(r.rows[0].bytes);
    } catch {
      return undefined; // not readable here: the plan counts the WAL as if none were on disk yet
    }
  });
}

export async function dropDatabases(server: StartedServer): Promise<void> {
  await dropAll(
    server.connection,
    WORKLOAD_DATABASES.map((suffix) => `${databasePrefix(server)}_${suffix}`),
  );
}

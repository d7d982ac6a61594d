/**
 * The loaded database is built once, as a template; each round gets a FILE_COPY clone of it, then
 * its level's indexes. That gives every round the same rows on the same pages, which the seed got
 * by restoring a dump before every round.
 */
import { databasePrefix } from "../../../targets/run-names";
import type { StartedServer } from "../../../targets/types";
import { cancellable, withClient as withConnection } from "../../../engines/postgres/connect";
import { cloneDatabase, dropDatabases as dropAll, recreateDatabase } from "../../../engines/postgres/template-database";
import type { Client } from "pg";

/** A connection to one of the lab's databases on this server. */
export function withClient<T>(server: StartedServer, database: string, fn: (client: Client) => Promise<T>): Promise<T> {
  return withConnection(server.connection, fn, { database, applicationName: "dblab-admin" });
}
import { enableWalInspect } from "./observations";
import { loadStatements, samplePercent, type DatasetShape } from "./dataset";
import {
  COUNT_INDEXES_SQL,
  CONSTRAINT_INDEXES,
  createIndexSql,
  extraIndexesFor,
  INDEX_LEVELS,
  SCHEMA_SQL,
} from "./schema";

/** The loaded data's template on this server (under the run's prefix on a shared one). */
export const templateDatabase = (server: StartedServer): string => `${databasePrefix(server)}_inventory_template`;
/** The round's clone, the database pgbench runs in. */
export const runDatabase = (server: StartedServer): string => `${databasePrefix(server)}_inventory_run`;

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
  /** Whether clones have pg_walinspect (WAL records by type per round), and why not if they do not. */
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
  // Level templates of an earlier load would carry its data: gone with it.
  await dropAll(server.connection, [
    runDatabase(server),
    ...INDEX_LEVELS.filter((l) => l !== CONSTRAINT_INDEXES).map((l) => levelTemplate(server, l)),
  ]);
  await recreateDatabase(server.connection, templateDatabase(server));
  return withClient(server, templateDatabase(server), async (c) => {
    await c.query("CREATE EXTENSION IF NOT EXISTS pg_stat_statements");
    // In the template, so every clone has it: each round's B-tree inserts are then counted from its WAL.
    const walInspectError = await enableWalInspect(c);
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
      walInspect: walInspectError === undefined,
      ...(walInspectError ? { walInspectError } : {}),
    };
  });
}

export interface PreparedRound {
  readonly cloneSeconds: number;
  /**
   * Seconds spent building the level's indexes for this round: in the first round of a level that
   * keeps a template (it builds the template), and in every round of a level that does not.
   */
  readonly indexSeconds: number;
  /** Indexes on the four tables, counted in pg_indexes of the round's database. */
  readonly indexCount: number;
  /** Whether this round built the level template (else it reused it, or the level keeps none). */
  readonly builtLevelTemplate: boolean;
  /** False where the level keeps no template (disk.ts, planTemplates): the round built its indexes itself. */
  readonly fromLevelTemplate: boolean;
}

/**
 * The template of one level: the loaded data with that level's indexes built (and checkpointed).
 * Level 7 has no index to build: its template is the loaded data's.
 */
export function levelTemplate(server: StartedServer, level: number): string {
  return level === CONSTRAINT_INDEXES ? templateDatabase(server) : `${databasePrefix(server)}_inventory_l${level}`;
}

/** Every database this workload makes on its server, as suffixes of its prefix (ServerUses.databases). */
export const WORKLOAD_DATABASES: readonly string[] = [
  "inventory_run",
  ...INDEX_LEVELS.map((l) => `inventory_l${l}`),
  "inventory_template",
];

async function countIndexes(server: StartedServer, database: string): Promise<number> {
  return withClient(server, database, async (c) => (await c.query<{ n: number }>(COUNT_INDEXES_SQL)).rows[0].n);
}

async function buildIndexes(
  server: StartedServer,
  database: string,
  level: number,
  maintenanceWorkMemMB: number,
): Promise<number> {
  const began = Date.now();
  await withClient(server, database, async (c) => {
    await c.query(`SET maintenance_work_mem = '${maintenanceWorkMemMB}MB'`);
    for (const index of extraIndexesFor(level)) await c.query(createIndexSql(index));
  });
  return (Date.now() - began) / 1000;
}

/**
 * A fresh clone with `level` indexes for one round; throws if pg_indexes does not count `level`.
 * With `keepTemplate`, the first round of a level builds a level template (a clone of the loaded
 * data plus the level's indexes) and every round then clones that template. Index builds are
 * deterministic on identical data, so a clone of a built template is the state a build after each
 * clone gave — measured here: 25 rounds rebuilding 32 indexes each spent more time building than
 * running pgbench (17 s per 39-index build at dataScale 0.02 on a shared 2-core machine). Without
 * it (no room on disk for the template), the round clones the loaded data and builds the indexes in
 * its own database.
 */
export async function prepareRound(
  server: StartedServer,
  level: number,
  maintenanceWorkMemMB: number,
  keepTemplate = true,
): Promise<PreparedRound> {
  if (level !== CONSTRAINT_INDEXES && !keepTemplate) {
    const cloneSeconds = await cloneDatabase(server.connection, templateDatabase(server), runDatabase(server));
    const indexSeconds = await buildIndexes(server, runDatabase(server), level, maintenanceWorkMemMB);
    // The round starts from a clean checkpoint: the clone's and index builds' dirty pages are not the run's to write.
    await withClient(server, runDatabase(server), (c) => c.query("CHECKPOINT"));
    const indexCount = await countIndexes(server, runDatabase(server));
    if (indexCount !== level)
      throw new Error(`level ${level}: pg_indexes counts ${indexCount} indexes on the four tables`);
    return { cloneSeconds, indexSeconds, indexCount, builtLevelTemplate: false, fromLevelTemplate: false };
  }
  const template = levelTemplate(server, level);
  const exists = await withClient(
    server,
    templateDatabase(server),
    async (c) => (await c.query("SELECT 1 FROM pg_database WHERE datname = $1", [template])).rowCount === 1,
  );
  let indexSeconds = 0;
  if (!exists) {
    await cloneDatabase(server.connection, templateDatabase(server), template);
    indexSeconds = await buildIndexes(server, template, level, maintenanceWorkMemMB);
  }
  // The round starts from a clean checkpoint: the clone's and index builds' dirty pages are not the run's to write.
  const cloneSeconds = await cloneDatabase(server.connection, template, runDatabase(server), { checkpoint: true });
  const indexCount = await countIndexes(server, runDatabase(server));
  if (indexCount !== level)
    throw new Error(`level ${level}: pg_indexes counts ${indexCount} indexes on the four tables`);
  return { cloneSeconds, indexSeconds, indexCount, builtLevelTemplate: !exists, fromLevelTemplate: true };
}

/**
 * After the load: a CHECKPOINT (the clones would make one anyway), then the bytes of WAL the server
 * keeps on disk (pg_ls_waldir: the load's WAL, recycled, not freed); undefined where the function is
 * not allowed (an external server's role without pg_monitor).
 */
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

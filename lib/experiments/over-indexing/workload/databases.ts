/**
 * The loaded database is built once as a template; each round gets a FILE_COPY clone of it, then
 * its level's indexes: the same rows on the same pages, as the seed got by restoring a dump.
 */
import type { StartedServer } from "../../../targets/types";
import { cancellable } from "../../../engines/postgres/connect";
import type { Client } from "pg";
import { templateClones, withAdmin } from "../../../workloads/fresh-copies";
import { enableWalInspect } from "../../../engines/postgres/wal-records";
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
  TABLES,
  type ExtraIndex,
} from "./schema";

/** Two run databases: a round's clone may be made while the round before still reads its counters (run-trials.ts). */
const DATABASES = templateClones("inventory_template", ["inventory_run", "inventory_run_b"]);
export type RunSlot = 0 | 1;
export const { template: templateDatabase, databases: WORKLOAD_DATABASES, dropAll: dropDatabases } = DATABASES;
export const runDatabase = (server: StartedServer, slot: RunSlot = 0): string => DATABASES.run(server, slot);

export type TemplateInfo = Awaited<ReturnType<typeof createTemplate>>;

export async function createTemplate(
  server: StartedServer,
  shape: DatasetShape,
  seed: number,
  onStep?: (label: string) => void,
  signal?: AbortSignal,
) {
  await DATABASES.recreate(server);
  return withAdmin(server, templateDatabase(server), async (c) => {
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
    if (keys.rows[0].n !== FOREIGN_KEYS.length)
      throw new Error(`the template has ${keys.rows[0].n} validated foreign keys, expected ${FOREIGN_KEYS.length}`);
    const counts = await c.query<{ t: string; n: string }>(
      TABLES.map((t) => `SELECT '${t}' AS t, count(*)::text AS n FROM ${t}`).join(" UNION ALL "),
    );
    const info = await c.query<{ db: string; pages: number }>(
      "SELECT pg_database_size(current_database())::text AS db, (pg_relation_size('stock') / current_setting('block_size')::int)::int AS pages",
    );
    const idx = await c.query<{ n: number }>(COUNT_INDEXES_SQL);
    if (idx.rows[0].n !== CONSTRAINT_INDEXES)
      throw new Error(`the schema has ${idx.rows[0].n} indexes from its constraints, expected ${CONSTRAINT_INDEXES}`);
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

export type PreparedRound = Awaited<ReturnType<typeof prepareRound>>;

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
  return withAdmin(server, templateDatabase(server), async (c) => {
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
  slot: RunSlot = 0,
) {
  const cloneSeconds = await DATABASES.clone(server, slot);
  const prepared = await withAdmin(server, runDatabase(server, slot), async (c) => {
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
    // indexSeconds: those of its level above the template's (0 at or below it); checkpointSeconds: with the count.
    return { cloneSeconds, templateLevel, indexSeconds: built, dropSeconds: dropped, checkpointSeconds, indexCount };
  });
  if (prepared.indexCount !== level)
    throw new Error(`level ${level}: pg_indexes counts ${prepared.indexCount} indexes on the four tables`);
  return prepared;
}

/** Undefined where pg_ls_waldir is not allowed (a role without pg_monitor). */
export async function walAfterLoad(server: StartedServer): Promise<number | undefined> {
  return withAdmin(server, templateDatabase(server), async (c) => {
    await c.query("CHECKPOINT");
    try {
      const r = await c.query<{ bytes: string }>("SELECT coalesce(sum(size), 0)::text AS bytes FROM pg_ls_waldir()");
      return Number(r.rows[0].bytes);
    } catch {
      return undefined; // not readable here: the plan counts the WAL as if none were on disk yet
    }
  });
}

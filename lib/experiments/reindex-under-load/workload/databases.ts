/**
 * Identical starting state for every run: pgbench's tables are generated once into a template
 * database, and each run gets a fresh copy (`CREATE DATABASE … TEMPLATE … STRATEGY FILE_COPY`),
 * which is what the seed's `pgbench -i` before every run achieved, in seconds instead of a minute.
 */
import type { Client } from "pg";
import { withClient } from "../../../engines/postgres/connect";
import { cloneDatabase, dropDatabases as dropAll, recreateDatabase } from "../../../engines/postgres/template-database";
import { databasePrefix } from "../../../targets/run-names";
import type { StartedServer } from "../../../targets/types";
import { initPgbench, type InitResult, type PgbenchRunner } from "../../../workloads/pgbench";

/** pgbench's generated tables, copied for every run (under the run's prefix on a shared server). */
export const templateDatabase = (server: StartedServer): string => `${databasePrefix(server)}_pgbench_template`;
/** The run's copy, the database pgbench and the REINDEX run in. */
export const runDatabase = (server: StartedServer): string => `${databasePrefix(server)}_pgbench_run`;

/** The three primary keys the seed reindexed, in the order it named the tables. */
export const PGBENCH_PRIMARY_KEYS = ["pgbench_accounts_pkey", "pgbench_branches_pkey", "pgbench_tellers_pkey"] as const;

/** A connection to the server's default database (or `database`) as the lab's admin session. */
export function withAdmin<T>(server: StartedServer, fn: (client: Client) => Promise<T>, database?: string): Promise<T> {
  return withClient(server.connection, fn, { database, applicationName: "dblab-admin" });
}

export interface TemplateInfo {
  readonly init: InitResult;
  readonly databaseBytes: number;
  readonly accountsRows: number;
  readonly indexBytes: Readonly<Record<string, number>>;
  /** pg_stat_statements is available in the run databases (the server preloads it). */
  readonly statements: boolean;
}

/** Creates the template with `pgbench -i` and freezes it against connections (it is only copied). */
export async function createTemplate(
  server: StartedServer,
  scale: number,
  steps: string,
  runner: PgbenchRunner,
  signal?: AbortSignal,
): Promise<TemplateInfo> {
  await dropAll(server.connection, [runDatabase(server)]);
  await recreateDatabase(server.connection, templateDatabase(server));
  const init = await initPgbench(server, { scale, steps, database: templateDatabase(server), signal }, runner);
  return withAdmin(
    server,
    async (c) => {
      // In the template, so every clone has it; a server without the library loaded simply lacks it.
      const statements = await c
        .query("CREATE EXTENSION IF NOT EXISTS pg_stat_statements")
        .then(() => c.query("SELECT 1 FROM pg_stat_statements LIMIT 1"))
        .then(() => true)
        .catch(() => false);
      const size = await c.query<{ db: string; rows: string }>(
        "SELECT pg_database_size(current_database())::text AS db, (SELECT count(*) FROM pgbench_accounts)::text AS rows",
      );
      const idx = await c.query<{ name: string; bytes: string }>(
        "SELECT indexrelname AS name, pg_relation_size(indexrelid)::text AS bytes FROM pg_stat_user_indexes WHERE relname LIKE 'pgbench_%'",
      );
      return {
        init,
        databaseBytes: Number(size.rows[0].db),
        accountsRows: Number(size.rows[0].rows),
        indexBytes: Object.fromEntries(idx.rows.map((r) => [r.name, Number(r.bytes)])),
        statements,
      };
    },
    templateDatabase(server),
  );
}

/** A fresh run database copied from the template, from a clean checkpoint as after the seed's init and restart. */
export function cloneRunDatabase(server: StartedServer): Promise<number> {
  return cloneDatabase(server.connection, templateDatabase(server), runDatabase(server), { checkpoint: true });
}

/** Every database this workload makes on its server, as suffixes of its prefix (ServerUses.databases). */
export const WORKLOAD_DATABASES: readonly string[] = ["pgbench_run", "pgbench_template"];

export async function dropDatabases(server: StartedServer): Promise<void> {
  await dropAll(server.connection, [runDatabase(server), templateDatabase(server)]);
}

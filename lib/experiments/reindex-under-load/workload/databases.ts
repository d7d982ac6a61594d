/** pgbench's tables are generated once into a template and each run gets a FILE_COPY clone: the seed's
 * `pgbench -i` before every run, in seconds instead of a minute. */
import type { Client } from "pg";
import { withClient } from "../../../engines/postgres/connect";
import { cloneDatabase, dropDatabases as dropAll, recreateDatabase } from "../../../engines/postgres/template-database";
import { databasePrefix } from "../../../targets/run-names";
import type { StartedServer } from "../../../targets/types";
import { initPgbench, type PgbenchRunner } from "../../../workloads/pgbench";

const templateDatabase = (server: StartedServer): string => `${databasePrefix(server)}_pgbench_template`;
export const runDatabase = (server: StartedServer): string => `${databasePrefix(server)}_pgbench_run`;

/** The three primary keys the seed reindexed, in the order it named the tables. */
export const PGBENCH_PRIMARY_KEYS = ["pgbench_accounts_pkey", "pgbench_branches_pkey", "pgbench_tellers_pkey"] as const;

export function withAdmin<T>(server: StartedServer, fn: (client: Client) => Promise<T>, database?: string): Promise<T> {
  return withClient(server.connection, fn, { database, applicationName: "dblab-admin" });
}

export type TemplateInfo = Awaited<ReturnType<typeof createTemplate>>;

/** Frozen against connections: it is only copied. */
export async function createTemplate(
  server: StartedServer,
  scale: number,
  steps: string,
  runner: PgbenchRunner,
  signal?: AbortSignal,
) {
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

/** From a clean checkpoint, as after the seed's init and restart. */
export const cloneRunDatabase = (server: StartedServer): Promise<number> =>
  cloneDatabase(server.connection, templateDatabase(server), runDatabase(server), { checkpoint: true });

export const WORKLOAD_DATABASES: readonly string[] = ["pgbench_run", "pgbench_template"];

export const dropDatabases = (server: StartedServer): Promise<void> =>
  dropAll(server.connection, [runDatabase(server), templateDatabase(server)]);

/**
 * The seed's "restore, restart, run" per trial, as 03 and 04 do it: the loaded data once as a template database,
 * each trial on a FILE_COPY clone of it, the server restarted before the trial.
 */
import type { Client } from "pg";
import { withClient } from "../engines/postgres/connect";
import { cloneDatabase, dropDatabases, recreateDatabase } from "../engines/postgres/template-database";
import { databasePrefix } from "../targets/run-names";
import type { StartedServer } from "../targets/types";
import { errorMessage } from "../runtime/error-message";

/** A session of the lab's own on one of the run's databases. */
export const withAdmin = <T>(server: StartedServer, database: string, fn: (c: Client) => Promise<T>): Promise<T> =>
  withClient(server.connection, fn, { database, applicationName: "dblab-admin" });

/** The databases by their suffix after the run's prefix: the template, and the run databases (slots) cloned from it. */
export function templateClones(template: string, runs: readonly string[]) {
  const named = (server: StartedServer, suffix: string) => `${databasePrefix(server)}_${suffix}`;
  const run = (server: StartedServer, slot = 0) => named(server, runs[slot]);
  return {
    /** What the server spec's `uses.databases` lists. */
    databases: [...runs, template] as readonly string[],
    template: (server: StartedServer) => named(server, template),
    run,
    /** An empty template; the run databases go first: a clone of an earlier template would carry its data. */
    recreate: async (server: StartedServer) => {
      await dropDatabases(
        server.connection,
        runs.map((r) => named(server, r)),
      );
      await recreateDatabase(server.connection, named(server, template));
    },
    /** Returns the seconds taken. */
    clone: (server: StartedServer, slot = 0, checkpoint = false) =>
      cloneDatabase(server.connection, named(server, template), run(server, slot), { checkpoint }),
    dropAll: (server: StartedServer) =>
      dropDatabases(
        server.connection,
        [...runs, template].map((s) => named(server, s)),
      ),
  };
}

/** A restart before a trial; a server that cannot restart (an external one) gives its reason and the trial goes on. */
export async function restartServer(server: StartedServer): Promise<{ restartSeconds: number; failed?: string }> {
  const began = Date.now();
  try {
    await server.restart();
    return { restartSeconds: (Date.now() - began) / 1000 };
  } catch (error) {
    return {
      restartSeconds: (Date.now() - began) / 1000,
      failed: errorMessage(error),
    };
  }
}

/**
 * Identical starting state, cheaply: load a database once, then give every round a copy made with
 * `CREATE DATABASE … TEMPLATE … STRATEGY FILE_COPY` (seconds, where the seeds restored a dump).
 * FILE_COPY copies the files and checkpoints instead of WAL-logging every block (WAL_LOG, the
 * default since 15), which would leave gigabytes of WAL for the round's checkpointer.
 */
import type { ConnectionInfo } from "../../targets/types";
import { withClient } from "./connect";

const IDENTIFIER = /^[a-z_][a-z0-9_]{0,62}$/;

function checked(name: string): string {
  if (!IDENTIFIER.test(name)) throw new Error(`"${name}" is not a database name the lab creates`);
  return name;
}

const admin = { applicationName: "dblab-admin" };

/** Drops (if present) and creates an empty database. */
export async function recreateDatabase(connection: ConnectionInfo, name: string): Promise<void> {
  await withClient(
    connection,
    async (c) => {
      await c.query(`DROP DATABASE IF EXISTS ${checked(name)} WITH (FORCE)`);
      await c.query(`CREATE DATABASE ${checked(name)}`);
    },
    admin,
  );
}

/** A fresh `target` copied from `template`; returns seconds taken. Ends with a CHECKPOINT when asked. */
export async function cloneDatabase(
  connection: ConnectionInfo,
  template: string,
  target: string,
  options: { readonly checkpoint?: boolean } = {},
): Promise<number> {
  const started = Date.now();
  await withClient(
    connection,
    async (c) => {
      await c.query(`DROP DATABASE IF EXISTS ${checked(target)} WITH (FORCE)`);
      await c.query(`CREATE DATABASE ${checked(target)} TEMPLATE ${checked(template)} STRATEGY FILE_COPY`);
      if (options.checkpoint) await c.query("CHECKPOINT");
    },
    admin,
  );
  return (Date.now() - started) / 1000;
}

export async function dropDatabases(connection: ConnectionInfo, names: readonly string[]): Promise<void> {
  await withClient(
    connection,
    async (c) => {
      for (const name of names) await c.query(`DROP DATABASE IF EXISTS ${checked(name)} WITH (FORCE)`);
    },
    admin,
  );
}

/**
 * Identical starting state, cheaply: load a database once, then copy it per round with `CREATE
 * DATABASE … TEMPLATE … STRATEGY FILE_COPY`, which checkpoints instead of WAL-logging every block.
 */
import { labDatabaseComment } from "../../targets/external/external-target";
import type { ConnectionInfo } from "../../targets/types";
import type { Client } from "pg";
import { withClient } from "./connect";

const IDENTIFIER = /^[a-z_][a-z0-9_]{0,62}$/;

function checked(name: string): string {
  if (!IDENTIFIER.test(name)) throw new Error(`"${name}" is not a database name the lab creates`);
  return name;
}

const admin = { applicationName: "dblab-admin" };

/**
 * Every database made here carries the lab's owner comment, so on a shared server the next run (or
 * `npm run clean`) drops a SIGKILLed run's leftovers. A clone does not copy the comment: each is marked.
 */
async function mark(c: Client, name: string): Promise<void> {
  await c.query(`COMMENT ON DATABASE ${checked(name)} IS '${labDatabaseComment().replace(/'/g, "''")}'`);
}

/** Drops (if present) and creates an empty database. */
export async function recreateDatabase(connection: ConnectionInfo, name: string): Promise<void> {
  await withClient(
    connection,
    async (c) => {
      await c.query(`DROP DATABASE IF EXISTS ${checked(name)} WITH (FORCE)`);
      await c.query(`CREATE DATABASE ${checked(name)}`);
      await mark(c, name);
    },
    admin,
  );
}

/** A fresh `target` copied from `template`; returns seconds taken. */
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
      await mark(c, target);
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

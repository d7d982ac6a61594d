/**
 * Identical starting state, cheaply: load a database once, then give every round a copy made with
 * `CREATE DATABASE … TEMPLATE … STRATEGY FILE_COPY` (seconds, where the seeds restored a dump).
 * FILE_COPY copies the files and checkpoints instead of WAL-logging every block (WAL_LOG, the
 * default since 15), which would leave gigabytes of WAL for the round's checkpointer.
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
 * Every database made here carries the lab's comment with its owner's pid, as the external target's
 * own database does: on a shared server a run killed with SIGKILL cannot drop its templates and
 * clones, and the next run there (or `npm run clean`) drops every lab database whose owner is gone.
 * A clone does not copy the comment, so each is marked as it is made.
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

/**
 * Names a run gives what it creates on a server, carrying the run's id, so that several runs at
 * once on one shared server (an external PostgreSQL) never touch each other's databases.
 */
import type { StartedServer } from "./types";

/** PostgreSQL's identifier limit (NAMEDATALEN − 1). */
const MAX_IDENTIFIER = 63;
/** The longest suffix a workload appends to the prefix ("_inventory_template"). */
const LONGEST_SUFFIX = "_inventory_template".length;
/** At most this much of the run id, so that prefix + the longest suffix fit in an identifier. */
const MAX_TAG = MAX_IDENTIFIER - "dblab_".length - LONGEST_SUFFIX - 10;

/**
 * A run id as an unquoted SQL identifier part and a container-name part: lower case, `_` for any
 * other character, the notebook's name cut to its number ("20261201T205500_03-over-indexing_ab12"
 * → "20261201t205500_03_ab12"). A longer id (DBLAB_RUN_ID) keeps its start and its random end.
 */
export function runTag(runId: string): string {
  const s = runId
    .toLowerCase()
    .replace(/_(\d\d)-[a-z-]+_/, "_$1_")
    .replace(/[^a-z0-9]+/g, "_")
    .replace(/^_+|_+$/g, "");
  if (s.length <= MAX_TAG) return s;
  const tail = s.slice(-8);
  return `${s.slice(0, MAX_TAG - tail.length - 1)}_${tail}`;
}

/** The run's own database on a shared server, and the start of every other database it makes there. */
export function runDatabasePrefix(runId: string): string {
  return `dblab_${runTag(runId)}`;
}

/**
 * The start of the names of the databases a workload makes on this server: the run's database's
 * name where the server is shared (it carries the run's id), "dblab" on a server the run has to itself.
 */
export function databasePrefix(server: Pick<StartedServer, "databasePrefix">): string {
  return server.databasePrefix ?? "dblab";
}

/** A LIKE pattern for the names under a prefix (`<prefix>_…`), its wildcards escaped. */
export function likePrefix(prefix: string): string {
  return `${prefix.replace(/[\\_%]/g, (c) => `\\${c}`)}\\_%`;
}

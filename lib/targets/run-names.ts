/** Names of what a run creates on a server carry the run's id, so runs sharing a server never collide. */
import type { StartedServer } from "./types";

/** PostgreSQL's identifier limit (NAMEDATALEN − 1). */
const MAX_IDENTIFIER = 63;
/** The longest suffix a workload appends ("_inventory_template"). */
const LONGEST_SUFFIX = "_inventory_template".length;
const MAX_TAG = MAX_IDENTIFIER - "dblab_".length - LONGEST_SUFFIX - 10;

/**
 * A run id as an unquoted SQL identifier part and container-name part: lower case, `_` for other
 * characters, the notebook's name cut to its number; a long id keeps its start and random end.
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

/** Prefix of a workload's databases: the run's database name on a shared server, else "dblab". */
export function databasePrefix(server: Pick<StartedServer, "databasePrefix">): string {
  return server.databasePrefix ?? "dblab";
}

/** A LIKE pattern for the names under a prefix, wildcards escaped. */
export function likePrefix(prefix: string): string {
  return `${prefix.replace(/[\\_%]/g, (c) => `\\${c}`)}\\_%`;
}

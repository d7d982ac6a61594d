/** Names carry the run's id, so runs sharing a server never collide. */
import type { StartedServer } from "./types";

/** NAMEDATALEN − 1. */
const MAX_IDENTIFIER = 63;
/** "_inventory_template". */
const LONGEST_SUFFIX = "_inventory_template".length;
const MAX_TAG = MAX_IDENTIFIER - "dblab_".length - LONGEST_SUFFIX - 10;

/** Lower case, `_` for other characters; a long id keeps its start and random end. */
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

export function runDatabasePrefix(runId: string): string {
  return `dblab_${runTag(runId)}`;
}

/** On a shared server the run's database name, else "dblab". */
export function databasePrefix(server: Pick<StartedServer, "databasePrefix">): string {
  return server.databasePrefix ?? "dblab";
}

/** Wildcards escaped. */
export function likePrefix(prefix: string): string {
  return `${prefix.replace(/[\\_%]/g, (c) => `\\${c}`)}\\_%`;
}

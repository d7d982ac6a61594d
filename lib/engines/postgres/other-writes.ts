/**
 * Whether other databases wrote during a timed window, whose WAL counts the whole server (docs/external-servers.md).
 */
import type { Client } from "pg";

/** Rows written so far: the session's own database, and every other one. */
export interface DatabaseWrites {
  readonly own: number;
  readonly others: Readonly<Record<string, number>>;
}

/** A writer wrote more than this share of the window's own rows (not zero: the server's upkeep writes a few rows). */
export const OTHER_WRITES_SHARE = 0.01;

/**
 * pg_stat_database's row writes per database; stats reach the view within a second, so read "after" once clients are
 * gone.
 */
export async function databaseWrites(client: Client): Promise<DatabaseWrites> {
  const { rows } = await client.query<{ name: string; own: boolean; written: string }>(
    `SELECT datname AS name, datname = current_database() AS own,
            (tup_inserted + tup_updated + tup_deleted)::text AS written
       FROM pg_stat_database WHERE datname IS NOT NULL`,
  );
  return {
    own: Number(rows.find((r) => r.own)?.written ?? 0),
    others: Object.fromEntries(rows.filter((r) => !r.own).map((r) => [r.name, Number(r.written)])),
  };
}

/** Other databases past OTHER_WRITES_SHARE between two readings (a new one counts from zero). */
export function writtenElsewhere(before: DatabaseWrites, after: DatabaseWrites): string[] {
  const own = Math.max(0, after.own - before.own);
  return Object.entries(after.others)
    .filter(([name, n]) => n - (before.others[name] ?? 0) > OTHER_WRITES_SHARE * own)
    .map(([name]) => name)
    .sort();
}

export function sharedWalNote(key: string, databases: readonly string[]): string {
  const shown = databases.slice(0, 3).join(", ") + (databases.length > 3 ? ` and ${databases.length - 3} more` : "");
  return (
    `WAL figures of ${key} left out: other databases wrote during its window (${shown}), and the server's WAL ` +
    `counters and pg_walinspect see every database's WAL`
  );
}

/**
 * Whether other databases of the server wrote during a timed window. pg_stat_wal and pg_walinspect
 * count the whole server's WAL, so on a server shared with another run (or any other writer) a
 * window's WAL figures are not this run's alone: measured with two 06 runs beside one 03 run on
 * one server, every window overlapped another run's pgbench.
 */
import type { Client } from "pg";

/** Rows inserted, updated and deleted so far, per database other than the session's own. */
export type DatabaseWrites = Readonly<Record<string, number>>;

/**
 * pg_stat_database's tup_inserted + tup_updated + tup_deleted of every other database. Read-only
 * sessions (the lab's liveness and activity probes) move none of them. A busy backend's counts
 * reach the view within about a second (PostgreSQL 15+ flushes pending statistics at most once a
 * second), so a writer that stopped just before the window can still be named: the check errs
 * toward leaving figures out, never toward keeping another run's WAL.
 */
export async function otherDatabaseWrites(client: Client): Promise<DatabaseWrites> {
  const { rows } = await client.query<{ name: string; written: string }>(
    `SELECT datname AS name, (tup_inserted + tup_updated + tup_deleted)::text AS written
       FROM pg_stat_database WHERE datname IS NOT NULL AND datname <> current_database()`,
  );
  return Object.fromEntries(rows.map((r) => [r.name, Number(r.written)]));
}

/**
 * The databases whose writes grew between two readings, sorted. One created meanwhile counts from
 * zero (another run's clone); one dropped meanwhile cannot be read and is not named.
 */
export function writtenElsewhere(before: DatabaseWrites, after: DatabaseWrites): string[] {
  return Object.entries(after)
    .filter(([name, n]) => n > (before[name] ?? 0))
    .map(([name]) => name)
    .sort();
}

/** The note a run keeps for a window whose WAL figures it left out. */
export function sharedWalNote(key: string, databases: readonly string[]): string {
  const shown = databases.slice(0, 3).join(", ") + (databases.length > 3 ? ` and ${databases.length - 3} more` : "");
  return (
    `WAL figures of ${key} left out: other databases wrote during its window (${shown}), and the server's WAL ` +
    `counters and pg_walinspect see every database's WAL`
  );
}

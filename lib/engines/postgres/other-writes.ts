/**
 * Whether other databases of the server wrote during a timed window. pg_stat_wal and pg_walinspect
 * count the whole server's WAL, so on a server shared with another run (or any other writer) a
 * window's WAL figures are not this run's alone: measured with two 06 runs beside one 03 run on
 * one server, every window overlapped another run's pgbench.
 */
import type { Client } from "pg";

/** Rows inserted, updated and deleted so far: the session's own database, and every other one. */
export interface DatabaseWrites {
  readonly own: number;
  readonly others: Readonly<Record<string, number>>;
}

/**
 * Another database counts as a writer in the window when it wrote more than this share of the
 * rows the window's own database wrote. Not zero: the server's own upkeep writes a few catalog rows
 * anywhere at any time (an autoanalyze of the lab's speed-probe table updates pg_statistic), and
 * its WAL is a few kB against a window's MBs; another run's pgbench writes thousands of rows.
 */
export const OTHER_WRITES_SHARE = 0.01;

/**
 * pg_stat_database's tup_inserted + tup_updated + tup_deleted, per database. Read-only sessions
 * (the lab's liveness and activity probes) move none of them. A busy backend's counts reach the
 * view within about a second (PostgreSQL 15+ flushes pending statistics at most once a second),
 * and an exited one's at its exit, so read the "after" once the window's clients are gone.
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

/**
 * The other databases that wrote more than OTHER_WRITES_SHARE of the window's own rows between two
 * readings, sorted. One created meanwhile counts from zero (another run's clone); one dropped
 * meanwhile cannot be read and is not named; a reading that went down (a statistics reset) is no write.
 */
export function writtenElsewhere(before: DatabaseWrites, after: DatabaseWrites): string[] {
  const own = Math.max(0, after.own - before.own);
  return Object.entries(after.others)
    .filter(([name, n]) => n - (before.others[name] ?? 0) > OTHER_WRITES_SHARE * own)
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

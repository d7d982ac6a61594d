/**
 * The WAL of a timed window, counted by record type with pg_walinspect: what the server wrote
 * (B-tree leaf inserts, page splits, heap records), where per-table counters times index counts
 * would only be a model.
 */
import { randomBytes } from "node:crypto";
import type { Client } from "pg";
import { ignored } from "../../runtime/debug";
import type { ConnectionInfo } from "../../targets/types";
import { connect, endClient } from "./connect";

/** WAL records of one kind (resource manager / record type) in a window. */
export interface WalRecordStats {
  readonly count: number;
  /** Record bytes plus full-page-image bytes. */
  readonly bytes: number;
  readonly fpiBytes: number;
}

/** `pg_walinspect` in this database, if the server has it (the embedded contrib and the docker image do). */
export async function enableWalInspect(client: Client): Promise<string | undefined> {
  try {
    await client.query("CREATE EXTENSION IF NOT EXISTS pg_walinspect");
    return undefined;
  } catch (error) {
    return error instanceof Error ? error.message : String(error);
  }
}

/**
 * The WAL position now: where the next record goes (start of a window), or how far WAL is flushed
 * (end of one: pg_walinspect reads only flushed WAL, and every commit of the window is flushed).
 */
export async function currentWalLsn(client: Client, flushed = false): Promise<string> {
  const fn = flushed ? "pg_current_wal_flush_lsn" : "pg_current_wal_lsn";
  const { rows } = await client.query<{ lsn: string }>(`SELECT ${fn}()::text AS lsn`);
  return rows[0].lsn;
}

/**
 * WAL written between two LSNs, counted by record type ("Btree/INSERT_LEAF", "Heap/HOT_UPDATE", …)
 * from the WAL itself (pg_walinspect): a count of what the server did, where per-table counters
 * times index counts would only be a model.
 */
export async function walRecordsBetween(
  client: Client,
  start: string,
  end: string,
): Promise<Record<string, WalRecordStats>> {
  const { rows } = await client.query<{ kind: string; n: string; bytes: string; fpi: string }>(
    `SELECT "resource_manager/record_type" AS kind, count::text AS n, combined_size::text AS bytes, fpi_size::text AS fpi
     FROM pg_get_wal_stats($1::pg_lsn, $2::pg_lsn, true) WHERE count > 0`,
    [start, end],
  );
  return Object.fromEntries(
    rows.map((r) => [r.kind, { count: Number(r.n), bytes: Number(r.bytes), fpiBytes: Number(r.fpi) }]),
  );
}

/** pg_walinspect's error for a window whose first segments a checkpoint already removed. */
export function isWalRemoved(error: unknown): boolean {
  return /has already been removed/.test(error instanceof Error ? error.message : String(error));
}

/**
 * The WAL from now on, kept on the server until released: a temporary physical replication slot
 * that reserves WAL at once. A checkpoint inside a timed window removes the window's first
 * segments before pg_walinspect can read them: 01 at `full` (a 1M-row UPDATE with 5 indexes writes
 * past max_wal_size) failed with "requested WAL segment pg_wal/…F5 has already been removed".
 * Only a checkpoint removes segments, and a trial with a checkpoint in its window is flagged
 * already, so the slot changes nothing an unflagged trial measures. Temporary: the server drops it
 * when the session ends, so a run killed mid-trial leaves no slot holding WAL on a shared server.
 */
export class WalHold {
  private constructor(
    private readonly client: Client,
    readonly slot: string,
  ) {}

  /**
   * Takes the hold, or says why the server will not give it (no REPLICATION privilege on a managed
   * server, wal_level = minimal, every slot in use): the window is then counted without it, and
   * its count is missing if a checkpoint removes its WAL first.
   */
  static async take(client: Client): Promise<WalHold | string> {
    const slot = `dblab_wal_${randomBytes(6).toString("hex")}`;
    try {
      await client.query("SELECT pg_create_physical_replication_slot($1, true, true)", [slot]);
      return new WalHold(client, slot);
    } catch (error) {
      return error instanceof Error ? error.message : String(error);
    }
  }

  /** Gives the WAL back to the server's checkpoints. */
  async release(): Promise<void> {
    await this.client.query("SELECT pg_drop_replication_slot($1)", [this.slot]);
  }
}

/**
 * A window's WAL held on a session of its own, for windows that other sessions write (pgbench's
 * clients, between a connection before the window and one after it). `fn` calls `hold()` after
 * the window's CHECKPOINT and before it reads the window's start LSN; the hold ends with `fn`:
 * released, and its session closed, which drops a temporary slot even where the release failed.
 * `hold()` gives why the server refused the hold, or undefined. On a server shared with other runs
 * their checkpoints recycle WAL too (measured: two 06 smoke runs beside one 03 run, "requested WAL
 * segment … has already been removed" before a round ended), not only the window's own.
 */
export async function withWindowWal<T>(
  connection: ConnectionInfo,
  fn: (hold: () => Promise<string | undefined>) => Promise<T>,
): Promise<T> {
  let client: Client | undefined;
  let held: WalHold | undefined;
  try {
    return await fn(async () => {
      client ??= await connect(connection, { applicationName: "dblab-wal-hold" });
      const hold = await WalHold.take(client);
      if (typeof hold === "string") return hold;
      held = hold;
      return undefined;
    });
  } finally {
    if (held) await held.release().catch(ignored("postgres: release a window's WAL hold"));
    if (client) await endClient(client);
  }
}

/**
 * One timed window's WAL at a time on one session: `open` just before the window holds its WAL
 * (WalHold), `count` after it reads the window's records and lets the WAL go. A server that
 * refuses the hold is not asked again: `refused` says why.
 */
export class WalWindows {
  private hold: WalHold | undefined;
  refused: string | undefined;

  constructor(private readonly client: Client) {}

  async open(): Promise<void> {
    await this.release();
    if (this.refused !== undefined) return;
    const hold = await WalHold.take(this.client);
    if (typeof hold === "string") this.refused = hold;
    else this.hold = hold;
  }

  /** walRecordCountRows for the window, then the hold released. */
  async count(from: number, to: number): Promise<{ readonly name: string; readonly value: string }[] | undefined> {
    try {
      return await walRecordCountRows(this.client, from, to);
    } finally {
      await this.release();
    }
  }

  async release(): Promise<void> {
    const hold = this.hold;
    this.hold = undefined;
    await hold?.release();
  }
}

/**
 * WAL record counts by type between two positions given as bytes since 0/0 (the counters'
 * `wal.lsn`), as `walrec.<type>` counter rows, once the WAL is flushed past `to`: pg_walinspect
 * reads only flushed WAL, and with synchronous_commit = off the WAL writer flushes the tail within
 * wal_writer_delay (200 ms by default), so this waits for it rather than forcing a flush. Undefined
 * when it is not flushed within `waitMs`, or when a checkpoint removed the window's WAL (no
 * WalHold): the figures are left out, the trial stands.
 */
export async function walRecordCountRows(
  client: Client,
  from: number,
  to: number,
  waitMs = 5_000,
): Promise<{ readonly name: string; readonly value: string }[] | undefined> {
  const deadline = Date.now() + waitMs;
  for (;;) {
    const { rows } = await client.query<{ flushed: string }>(
      "SELECT pg_wal_lsn_diff(pg_current_wal_flush_lsn(), '0/0')::text AS flushed",
    );
    if (Number(rows[0]?.flushed ?? 0) >= to) break;
    if (Date.now() > deadline) return undefined;
    await new Promise((r) => setTimeout(r, 50));
  }
  try {
    const { rows } = await client.query<{ type: string; n: string }>(
      `SELECT "resource_manager/record_type" AS type, count::text AS n
         FROM pg_get_wal_stats('0/0'::pg_lsn + $1::numeric, '0/0'::pg_lsn + $2::numeric, true) WHERE count > 0`,
      [from, to],
    );
    return rows.map((r) => ({ name: `walrec.${r.type}`, value: r.n }));
  } catch (error) {
    if (isWalRemoved(error)) return undefined;
    throw error;
  }
}

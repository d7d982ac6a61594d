/** The WAL of a timed window counted by record type with pg_walinspect: what the server wrote, not a model. */
import { randomBytes } from "node:crypto";
import type { Client } from "pg";
import { ignored } from "../../runtime/debug";
import type { ConnectionInfo } from "../../targets/types";
import { connect, endClient } from "./connect";

export interface WalRecordStats {
  readonly count: number;
  /** Record bytes plus full-page-image bytes. */
  readonly bytes: number;
  readonly fpiBytes: number;
}

export async function enableWalInspect(client: Client): Promise<string | undefined> {
  try {
    await client.query("CREATE EXTENSION IF NOT EXISTS pg_walinspect");
    return undefined;
  } catch (error) {
    return error instanceof Error ? error.message : String(error);
  }
}

/** The insert position (a window's start) or the flushed one (its end: pg_walinspect reads only flushed WAL). */
export async function currentWalLsn(client: Client, flushed = false): Promise<string> {
  const fn = flushed ? "pg_current_wal_flush_lsn" : "pg_current_wal_lsn";
  const { rows } = await client.query<{ lsn: string }>(`SELECT ${fn}()::text AS lsn`);
  return rows[0].lsn;
}

/** WAL between two LSNs by record type ("Btree/INSERT_LEAF", …). */
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
 * The WAL from now on, held by a temporary replication slot so a checkpoint cannot remove the window's
 * first segments before they are read (docs/external-servers.md); a checkpointed window is flagged anyway.
 */
export class WalHold {
  private constructor(
    private readonly client: Client,
    readonly slot: string,
  ) {}

  /** Takes the hold, or says why the server refuses it. */
  static async take(client: Client): Promise<WalHold | string> {
    const slot = `dblab_wal_${randomBytes(6).toString("hex")}`;
    try {
      await client.query("SELECT pg_create_physical_replication_slot($1, true, true)", [slot]);
      return new WalHold(client, slot);
    } catch (error) {
      return error instanceof Error ? error.message : String(error);
    }
  }

  async release(): Promise<void> {
    await this.client.query("SELECT pg_drop_replication_slot($1)", [this.slot]);
  }
}

/** A window's WAL held on its own session from after the CHECKPOINT to the end of `fn` (closing it drops the slot). */
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

/** One window's WAL at a time on one session; a refusal is not asked again. */
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
 * Record counts by type between two positions as `walrec.<type>` rows, once the WAL writer flushed
 * past `to`; undefined when not flushed in time or removed (the trial stands).
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

/** The WAL of a timed window counted by record type with pg_walinspect: what the server wrote, not a model. */
import { randomBytes } from "node:crypto";
import type { Client } from "pg";
import { ignored } from "../../runtime/debug";
import { countersFrom, keyGuard, sumPresentCounters, type Counters } from "../../stats/counters";
import type { ConnectionInfo } from "../../targets/types";
import { connect, endClient } from "./connect";
import { errorMessage } from "../../runtime/error-message";

export interface WalRecordStats {
  readonly count: number;
  readonly bytes: number;
  readonly fpiBytes: number;
}

export async function enableWalInspect(client: Client): Promise<string | undefined> {
  try {
    await client.query("CREATE EXTENSION IF NOT EXISTS pg_walinspect");
    return undefined;
  } catch (error) {
    return errorMessage(error);
  }
}

/** End: the flushed position, as pg_walinspect reads only flushed WAL. */
export async function currentWalLsn(client: Client, flushed = false): Promise<string> {
  const fn = flushed ? "pg_current_wal_flush_lsn" : "pg_current_wal_lsn";
  const { rows } = await client.query<{ lsn: string }>(`SELECT ${fn}()::text AS lsn`);
  return rows[0].lsn;
}

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

/** The B-tree record types that each carry one new leaf entry (a split carries the entry that caused it). */
export const BTREE_ENTRY_TYPES = ["INSERT_LEAF", "INSERT_POST", "SPLIT_L", "SPLIT_R"] as const;

const ENTRY_TYPES_SQL = BTREE_ENTRY_TYPES.map((t) => `'${t}'`).join(", ");

/**
 * Each B-tree's own leaf entries in a window, by index name in the session's database: its INSERT_LEAF,
 * INSERT_POST and SPLIT_L/R records (a split carries the entry that caused it), counted once on their first
 * block. An index absent from the result received none. PostgreSQL ≥ 16 (pg_get_wal_block_info).
 */
export async function btreeEntriesBetween(client: Client, start: string, end: string): Promise<Record<string, number>> {
  // Grouped by file before the catalog lookup: one lookup per index, not per record.
  const { rows } = await client.query<{ name: string; n: string }>(
    `WITH b AS (
       SELECT reltablespace, relfilenode, count(*) AS n FROM pg_get_wal_block_info($1::pg_lsn, $2::pg_lsn, false)
       WHERE resource_manager = 'Btree' AND record_type IN (${ENTRY_TYPES_SQL})
         AND block_id = 0 AND reldatabase = (SELECT oid FROM pg_database WHERE datname = current_database())
       GROUP BY 1, 2)
     SELECT c.relname AS name, sum(b.n)::text AS n
     FROM b JOIN pg_class c ON c.oid = pg_filenode_relation(b.reltablespace, b.relfilenode) GROUP BY c.relname`,
    [start, end],
  );
  return Object.fromEntries(rows.map((r) => [r.name, Number(r.n)]));
}

export function isWalRemoved(error: unknown): boolean {
  return /has already been removed/.test(errorMessage(error));
}

/** A temporary replication slot keeps a checkpoint from removing the window's first segments. */
export class WalHold {
  private constructor(
    private readonly client: Client,
    readonly slot: string,
  ) {}

  static async take(client: Client): Promise<WalHold | string> {
    const slot = `dblab_wal_${randomBytes(6).toString("hex")}`;
    try {
      await client.query("SELECT pg_create_physical_replication_slot($1, true, true)", [slot]);
      return new WalHold(client, slot);
    } catch (error) {
      return errorMessage(error);
    }
  }

  async release(): Promise<void> {
    await this.client.query("SELECT pg_drop_replication_slot($1)", [this.slot]);
  }
}

/** Closing the session drops the slot. */
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

/** A window's WAL records by type, as counters (walRecordCountRows names them). */
export type WalRecordKey = `walrec.${string}`;
export const isWalRecordKey = keyGuard<WalRecordKey>([], [{ prefix: "walrec." }]);

/** A refusal is not asked again. `walinspect`: whether the server has pg_walinspect; without it nothing is held. */
export class WalWindows {
  private hold: WalHold | undefined;
  refused: string | undefined;

  constructor(
    private readonly client: Client,
    private readonly walinspect = true,
  ) {}

  async open(): Promise<void> {
    await this.release();
    if (!this.walinspect || this.refused !== undefined) return;
    const hold = await WalHold.take(this.client);
    if (typeof hold === "string") this.refused = hold;
    else this.hold = hold;
  }

  async count(from: number, to: number): Promise<{ readonly name: string; readonly value: string }[] | undefined> {
    try {
      await flushWal(this.client);
      return await walRecordCountRows(this.client, from, to);
    } finally {
      await this.release();
    }
  }

  /**
   * The records between two WAL positions (bytes since 0/0) as counters; undefined without pg_walinspect, for an
   * unknown or empty window, or where the count did not come (`collector` names a refused counter's source).
   */
  async records(
    from: number | undefined,
    to: number | undefined,
    collector: string,
  ): Promise<Counters<WalRecordKey> | undefined> {
    if (!this.walinspect || from === undefined || to === undefined || to <= from) return undefined;
    const rows = await this.count(from, to);
    return rows ? countersFrom(rows, isWalRecordKey, collector) : undefined;
  }

  async release(): Promise<void> {
    const hold = this.hold;
    this.hold = undefined;
    await hold?.release();
  }
}

/**
 * Flushes the WAL written so far: pg_walinspect reads flushed WAL only, and under synchronous_commit = off the tail
 * waits for the WAL writer. A commit flushes only if its transaction wrote WAL (a bare xid's commit stays
 * asynchronous), so this one writes a logical message. Where the server refuses it, the count polls the flush.
 */
export async function flushWal(client: Client): Promise<void> {
  try {
    await client.query(
      "BEGIN; SET LOCAL synchronous_commit = on; SELECT pg_logical_emit_message(true, 'dblab', 'flush'); COMMIT",
    );
  } catch {
    await client.query("ROLLBACK").catch(ignored("postgres: end a refused WAL flush"));
  }
}

/** Undefined when not flushed in time or removed (the trial stands). */
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

/** The `walrec.<type>` counters of `types` summed; undefined if the trial counted no WAL record (no pg_walinspect). */
export function walRecordCount(c: Counters, types: readonly string[]): number | undefined {
  if (sumPresentCounters(c, "walrec.") === undefined) return undefined;
  return types.reduce((a, t) => a + (c[`walrec.${t}`] ?? 0), 0);
}

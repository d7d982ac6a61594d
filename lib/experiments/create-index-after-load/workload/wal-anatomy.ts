/**
 * A phase's WAL decoded by record type (pg_walinspect), e.g. one Heap/INSERT plus one
 * Btree/INSERT_LEAF per row for an indexed load, versus a few XLOG/FPI records carrying whole index
 * pages for CREATE INDEX. The WAL must still be on disk when it is read: the caller holds it with
 * a temporary replication slot (WalHold), so that a checkpoint during the phase does not recycle it.
 */
import type { TrialSession } from "./session";

export interface WalRecordType {
  /** "resource manager/record type", e.g. "Heap/INSERT". */
  readonly type: string;
  readonly count: number;
  readonly recordBytes: number;
  /** Bytes of full-page images carried by these records. */
  readonly fpiBytes: number;
}

export async function ensureWalinspect(session: TrialSession): Promise<void> {
  await session.query("CREATE EXTENSION IF NOT EXISTS pg_walinspect");
}

export async function walRecordTypes(
  session: TrialSession,
  startLsn: string,
  endLsn: string,
): Promise<WalRecordType[]> {
  const rows = await session.query<Record<string, string | number>>(
    `SELECT "resource_manager/record_type" AS type, count, record_size, fpi_size
       FROM pg_get_wal_stats($1::pg_lsn, $2::pg_lsn, true)
      WHERE count > 0
      ORDER BY count DESC`,
    [startLsn, endLsn],
  );
  return rows.map((r) => ({
    type: String(r.type),
    count: Number(r.count),
    recordBytes: Number(r.record_size),
    fpiBytes: Number(r.fpi_size),
  }));
}

/**
 * 02's data directory at its peak: the headline table with its index (the seed's 100M rows: 3.4 GiB
 * of heap, a 2.1 GiB grown index: 36 + 22 B a row), CREATE INDEX's sort spilling about its keys
 * again to base/pgsql_tmp, WAL up to max_wal_size, and the WAL a decoding trial holds until it is
 * read (a temporary replication slot: an indexed load writes ~140 B of WAL a row, 14 GB for 100M).
 */
import type { CreateIndexAfterLoadParams } from "./params";
import { bytesText, type DiskNeed } from "../../targets/disk-need";

const TABLE_ROW_BYTES = 36 + 22;
const SORT_ROW_BYTES = 24;
const WAL_ROW_BYTES = 140;
const BASE_BYTES = 200 * 2 ** 20;

export function diskNeed(p: CreateIndexAfterLoadParams): DiskNeed {
  const rows = Math.max(p.rows, ...p.rowSweep);
  const wal = p.maxWalSizeMB * 2 ** 20 * 1.1;
  const kept = p.walAnatomyRows * WAL_ROW_BYTES;
  return {
    bytes: rows * (TABLE_ROW_BYTES + SORT_ROW_BYTES) + wal + kept + BASE_BYTES,
    what:
      `${rows.toLocaleString("en-US")} rows × (${TABLE_ROW_BYTES} B of table and index + ${SORT_ROW_BYTES} B of sort ` +
      `spill) + max_wal_size ${bytesText(wal)} + ${bytesText(kept)} of WAL kept for decoding + ` +
      `${bytesText(BASE_BYTES)} of server`,
  };
}

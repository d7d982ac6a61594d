/** Page arithmetic before a server starts: COPY leaves BLCKSZ × (100 − ff) / 100 free (RelationGetBufferForTuple). */
import type { FillfactorHotParams } from "../params";
import { bytesText, type DiskNeed } from "../../../targets/disk-need";

export const BLOCK_BYTES = 8192;
const [PAGE_HEADER_BYTES, LINE_POINTER_BYTES, TUPLE_HEADER_BYTES, BIGINT_COLUMNS] = [24, 4, 24, 3];

const maxAlign = (n: number) => Math.ceil(n / 8) * 8;

/** The aligned tuple and its line pointer. */
export function versionBytes(padBytes: number): number {
  const pad = padBytes < 127 ? 1 + padBytes : 4 + padBytes;
  return maxAlign(TUPLE_HEADER_BYTES + 8 * BIGINT_COLUMNS + pad) + LINE_POINTER_BYTES;
}

export function plannedRoom(fillfactor: number, padBytes: number) {
  const v = versionBytes(padBytes);
  const usable = BLOCK_BYTES - PAGE_HEADER_BYTES;
  const reserved = Math.floor((BLOCK_BYTES * (100 - fillfactor)) / 100);
  const rowsPerPage = Math.max(1, Math.floor((usable - reserved) / v));
  const freeBytesPerPage = usable - rowsPerPage * v;
  return { rowsPerPage, freeBytesPerPage, versionBytes: v, ratio: freeBytesPerPage / (rowsPerPage * v) };
}

/** The largest fillfactor whose loaded pages have room for a new version of every row (ratio ≥ 1). */
export function fillfactorForOneVersion(padBytes: number): number {
  for (let ff = 100; ff >= 10; ff--) if (plannedRoom(ff, padBytes).ratio >= 1) return ff;
  return 10;
}

/** Sorted build: 16-byte tuple, 4-byte line pointer, 90 % full. */
const INDEX_ROW_BYTES = 20;
const [MAX_WAL_BYTES, BASE_BYTES, WAL_RECORD_BYTES] = [2 ** 30, 200 * 2 ** 20, 100];

/** The peak: the lowest fillfactor's table twice, its B-trees doubled, WAL up to max_wal_size + the held pass's. */
export function diskNeed(p: FillfactorHotParams): DiskNeed {
  const ff = Math.min(...p.fillfactors);
  const room = plannedRoom(ff, p.padBytes);
  const heap = 2 * Math.ceil(p.rows / room.rowsPerPage) * 8192;
  const indexes = 2 * 2 * p.rows * INDEX_ROW_BYTES;
  const pass = (heap + indexes) / 2 + p.rows * WAL_RECORD_BYTES;
  return {
    bytes: heap + indexes + MAX_WAL_BYTES + pass + BASE_BYTES,
    what:
      `${p.rows.toLocaleString("en-US")} rows at ${room.rowsPerPage} a page (fillfactor ${ff}) × 2 versions + ` +
      `2 indexes × ${INDEX_ROW_BYTES} B a row × 2 + max_wal_size ${bytesText(MAX_WAL_BYTES)} + a pass's WAL held until ` +
      `counted ${bytesText(pass)} + ${bytesText(BASE_BYTES)} of server`,
  };
}

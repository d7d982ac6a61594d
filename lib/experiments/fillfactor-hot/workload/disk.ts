/**
 * 07's peak: one table at the lowest fillfactor, every row updated once, its B-trees doubled by a
 * non-HOT pass, WAL up to max_wal_size plus the held pass's, at most a full-page image a page.
 */
import type { FillfactorHotParams } from "../params";
import { plannedRoom } from "./page-model";
import { bytesText, type DiskNeed } from "../../../targets/disk-need";

/** Sorted build: 16-byte tuple, 4-byte line pointer, 90 % full. */
const INDEX_ROW_BYTES = 20;
const MAX_WAL_BYTES = 2 ** 30;
const BASE_BYTES = 200 * 2 ** 20;
const WAL_RECORD_BYTES = 100;

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

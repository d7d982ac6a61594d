/**
 * 07's data directory at its peak: one table at the lowest fillfactor run, every row updated once
 * (a second version of each, on the page or off it), its two B-trees doubled by a non-HOT pass,
 * and WAL up to the default max_wal_size, plus the pass's WAL, held until counted (WalWindows): at
 * most a full-page image of every page (heap and both indexes once) and ~100 B a row's record. One
 * table exists at a time (each trial drops the last).
 */
import type { FillfactorHotParams } from "../params";
import { plannedRoom } from "./page-model";
import { bytesText, type DiskNeed } from "../../../targets/disk-need";

/** A bigint B-tree built by sort holds ~ 20 B a row (16-byte tuple, 4-byte line pointer, 90 % full). */
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

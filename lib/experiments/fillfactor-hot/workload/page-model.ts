/**
 * 07's heap page arithmetic, for the plan before any server starts; the integration test checks it
 * against the measured `room.*`. COPY leaves BLCKSZ × (100 − fillfactor) / 100 free
 * (RelationGetBufferForTuple); an UPDATE stays on the page whenever its free space holds the new
 * version, whatever the fillfactor (heap_update).
 */

export const BLOCK_BYTES = 8192;
const PAGE_HEADER_BYTES = 24;
const LINE_POINTER_BYTES = 4;
const TUPLE_HEADER_BYTES = 24;
const BIGINT_COLUMNS = 3;

const maxAlign = (n: number) => Math.ceil(n / 8) * 8;

/** The aligned tuple and its line pointer. */
export function versionBytes(padBytes: number): number {
  const pad = padBytes < 127 ? 1 + padBytes : 4 + padBytes;
  return maxAlign(TUPLE_HEADER_BYTES + 8 * BIGINT_COLUMNS + pad) + LINE_POINTER_BYTES;
}

export interface PageRoom {
  readonly rowsPerPage: number;
  readonly freeBytesPerPage: number;
  readonly versionBytes: number;
  readonly ratio: number;
}

export function plannedRoom(fillfactor: number, padBytes: number): PageRoom {
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

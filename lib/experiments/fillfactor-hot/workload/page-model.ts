/**
 * The heap page arithmetic of 07's table, for the plan (what a run with these parameters will be
 * able to decide, before any server starts). The run measures the same quantities on the loaded
 * table (table.ts, `room.*`); the integration test checks the two agree.
 *
 * A row is a 24-byte tuple header (4 columns, no nulls: 23 bytes, MAXALIGNed), three bigints and
 * the text `pad` (a 1-byte varlena header below 127 bytes, else 4), MAXALIGNed to 8, plus its 4-byte
 * line pointer. COPY fills a page while the free space left stays at least BLCKSZ × (100 −
 * fillfactor) / 100 (RelationGetBufferForTuple); an UPDATE puts its new version on the same page
 * whenever the page's free space holds it, whatever the fillfactor (heap_update).
 */

export const BLOCK_BYTES = 8192;
/** PageHeaderData. */
const PAGE_HEADER_BYTES = 24;
const LINE_POINTER_BYTES = 4;
const TUPLE_HEADER_BYTES = 24;
const BIGINT_COLUMNS = 3;

const maxAlign = (n: number) => Math.ceil(n / 8) * 8;

/** Bytes one version of a row takes on its page: the aligned tuple and its line pointer. */
export function versionBytes(padBytes: number): number {
  const pad = padBytes < 127 ? 1 + padBytes : 4 + padBytes;
  return maxAlign(TUPLE_HEADER_BYTES + 8 * BIGINT_COLUMNS + pad) + LINE_POINTER_BYTES;
}

export interface PageRoom {
  readonly rowsPerPage: number;
  readonly freeBytesPerPage: number;
  readonly versionBytes: number;
  /** Free bytes per page ÷ the bytes a new version of every row on it needs. */
  readonly ratio: number;
}

/** The room a freshly loaded page has, by the arithmetic above. */
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

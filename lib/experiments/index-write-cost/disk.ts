/**
 * 01's data directory at its peak: the largest table with every index, each row updated once (two
 * versions), WAL up to max_wal_size, and one timed window's WAL held until counted (WalWindows).
 */
import type { IndexWriteCostParams } from "./params";
import { bytesText, type DiskNeed } from "../../targets/disk-need";

const HEAP_ROW_BYTES = 84;
const INDEX_ROW_BYTES = 32;
const MAX_WAL_BYTES = 2 ** 30;
const BASE_BYTES = 200 * 2 ** 20;
const WAL_HEAP_RECORD_BYTES = 100;
const WAL_INDEX_RECORD_BYTES = 60;

export function diskNeed(p: IndexWriteCostParams): DiskNeed {
  const rows = Math.max(...p.rowCounts);
  const fill = Math.min(...p.fillfactors) / 100;
  const indexes = 1 + Math.max(...p.extraIndexes);
  const table = 2 * rows * (HEAP_ROW_BYTES / fill + INDEX_ROW_BYTES * indexes);
  const window = table / 2 + rows * (WAL_HEAP_RECORD_BYTES + WAL_INDEX_RECORD_BYTES * indexes);
  return {
    bytes: table + MAX_WAL_BYTES + window + BASE_BYTES,
    what:
      `${rows.toLocaleString("en-US")} rows × (${HEAP_ROW_BYTES} B ÷ fillfactor ${fill} + ${indexes} indexes × ` +
      `${INDEX_ROW_BYTES} B) × 2 versions + max_wal_size ${bytesText(MAX_WAL_BYTES)} + a window's WAL held until ` +
      `counted ${bytesText(window)} + ${bytesText(BASE_BYTES)} of server`,
  };
}

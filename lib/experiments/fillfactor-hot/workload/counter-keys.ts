/**
 * The counters notebook 07 records per trial: the table's update counters, WAL, checkpoints and
 * sizes (deltas over the timed pass), the WAL's records by type (pg_walinspect), and the room the
 * loaded pages had (levels measured before the pass). The workload's SQL and the summary read them
 * by these names.
 */
import { keyGuard } from "../../../stats/counters";

/** Deltas over the timed pass, one SQL expression each (table.ts); `bytes.heap`: the heap's growth. */
export const PASS_COUNTERS = [
  "table.n_tup_upd",
  "table.n_tup_hot_upd",
  "table.n_tup_newpage_upd",
  "table.autovacuum_count",
  "wal.records",
  "wal.fpi",
  "wal.bytes",
  "checkpoints",
  "wal.lsn",
  "bytes.heap",
] as const;
export type PassCounter = (typeof PASS_COUNTERS)[number];

/**
 * Levels of the freshly loaded table (pgstattuple, else pg_column_size): rows and free bytes per
 * heap page, the bytes a new version of one row takes on a page (its aligned tuple and line
 * pointer), and `room.ratio` = free bytes per page ÷ (rows per page × bytes per new version): the
 * share of the page's rows whose new version the page has room for.
 */
export const ROOM_LEVELS = [
  "room.rows_per_page",
  "room.free_bytes_per_page",
  "room.version_bytes",
  "room.ratio",
] as const;
export type RoomLevel = (typeof ROOM_LEVELS)[number];

/**
 * `bytes.index.<index>`: each index's bytes, as `bytes.heap` is the heap's. Not `size.*`, which
 * counterDelta keeps as a level: over the pass these are the bytes it added.
 */
export type IndexSizeKey = `bytes.index.${string}`;
/** `walrec.<resource manager>/<record type>`: WAL records of the pass (pg_walinspect). */
export type WalRecordKey = `walrec.${string}`;

export type FillfactorHotCounterKey = PassCounter | RoomLevel | IndexSizeKey | WalRecordKey;

export const isPassCounterKey = keyGuard<PassCounter | IndexSizeKey>(PASS_COUNTERS, [{ prefix: "bytes.index." }]);
export const isWalRecordKey = keyGuard<WalRecordKey>([], [{ prefix: "walrec." }]);

/** B-tree WAL records that each carry one new leaf entry (a split carries the entry that caused it). */
export const INDEX_ENTRY_RECORDS = [
  "Btree/INSERT_LEAF",
  "Btree/INSERT_POST",
  "Btree/SPLIT_L",
  "Btree/SPLIT_R",
] as const;

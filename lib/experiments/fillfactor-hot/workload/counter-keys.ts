/** The counter names notebook 07's SQL and its summary share. */
import { keyGuard } from "../../../stats/counters";

/** Deltas over the timed pass (table.ts). */
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

/** `room.ratio`: the share of the loaded page's rows whose new version the page has room for. */
export const ROOM_LEVELS = [
  "room.rows_per_page",
  "room.free_bytes_per_page",
  "room.version_bytes",
  "room.ratio",
] as const;
export type RoomLevel = (typeof ROOM_LEVELS)[number];

/** Not `size.*`, which counterDelta keeps as a level: over the pass these are the bytes it added. */
export type IndexSizeKey = `bytes.index.${string}`;
export type WalRecordKey = `walrec.${string}`;

export type FillfactorHotCounterKey = PassCounter | RoomLevel | IndexSizeKey | WalRecordKey;

export const isPassCounterKey = keyGuard<PassCounter | IndexSizeKey>(PASS_COUNTERS, [{ prefix: "bytes.index." }]);
export const isWalRecordKey = keyGuard<WalRecordKey>([], [{ prefix: "walrec." }]);

/** Each carries one new leaf entry (a split carries the entry that caused it). */
export const INDEX_ENTRY_RECORDS = [
  "Btree/INSERT_LEAF",
  "Btree/INSERT_POST",
  "Btree/SPLIT_L",
  "Btree/SPLIT_R",
] as const;

/**
 * 04's data directory at its peak: the pgbench template and the run's copy (pgbench -i: ~16 MB per
 * scale unit, accounts and its key), the new key REINDEX CONCURRENTLY builds beside the old one
 * (~2.2 MB per scale unit), and WAL up to the default max_wal_size.
 */
import type { ReindexUnderLoadParams } from "./params";
import { bytesText, type DiskNeed } from "../../targets/disk-need";

const SCALE_BYTES = 16 * 2 ** 20;
const KEY_BYTES = 2.2 * 2 ** 20;
const MAX_WAL_BYTES = 1.1 * 2 ** 30;
const BASE_BYTES = 200 * 2 ** 20;

export function diskNeed04(p: ReindexUnderLoadParams): DiskNeed {
  const data = p.scale * (2 * SCALE_BYTES + KEY_BYTES);
  return {
    bytes: data + MAX_WAL_BYTES + BASE_BYTES,
    what:
      `scale ${p.scale} × (2 × ${bytesText(SCALE_BYTES)} + a rebuilt key ${bytesText(KEY_BYTES)}) + max_wal_size ` +
      `${bytesText(MAX_WAL_BYTES)} + ${bytesText(BASE_BYTES)} of server`,
  };
}

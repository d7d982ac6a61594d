/**
 * 03's data directory at its peak: the template and the round's clone (the seed's 11 GB at scale 1,
 * "初始数据集大小约为 11 GB"), what a round adds (a transaction grows tables and indexes by up to
 * ~9 kB with 39 indexes; at most the seed's ~1,500 TPS), and WAL: every round starts from a restart,
 * whose shutdown checkpoint frees older WAL down to min_wal_size (kept for recycling), so the peak
 * is the larger of min_wal_size and two rounds' WAL (~8 kB a transaction), never more than the run
 * writes in all.
 */
import type { OverIndexingParams } from "./params";
import { bytesText, type DiskNeed } from "../../targets/disk-need";

const SEED_DATA_BYTES = 11 * 2 ** 30;
const GROWTH_PER_TX = 9 * 1024;
const WAL_PER_TX = 8 * 1024;
const TPS_BOUND = 1500;
const BASE_BYTES = 200 * 2 ** 20;

export function diskNeed03(p: OverIndexingParams): DiskNeed {
  const data = p.dataScale * SEED_DATA_BYTES;
  const growth = p.durationSeconds * TPS_BOUND * GROWTH_PER_TX;
  const rounds = p.maxRepeats * p.indexLevels.length;
  const roundWal = p.durationSeconds * TPS_BOUND * WAL_PER_TX;
  // min_wal_size as server-settings sets it: a quarter of max_wal_size, at least 1 GB.
  const minWal = Math.max(1, Math.floor(p.maxWalSizeGB / 4)) * 2 ** 30;
  const wal = Math.min(rounds * roundWal, Math.max(minWal, 2 * roundWal));
  return {
    bytes: 2 * data + growth + wal + BASE_BYTES,
    what:
      `template and clone 2 × ${bytesText(data)} + a round's growth ${bytesText(growth)} + WAL ${bytesText(wal)} + ` +
      `${bytesText(BASE_BYTES)} of server`,
  };
}

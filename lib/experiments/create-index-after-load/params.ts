/** Parameters of the notebook, per profile, their checks, and the data directory they need. */
import { KEY_ORDERS } from "./workload/sql";
import { LIMIT_PARAMS } from "../target-params";
import type { ProfileName } from "../../params/profiles";
import { bytesText, type DiskNeed } from "../../targets/disk-need";
import { declareParams, integer, integers, listOf, number, type ParamsOf } from "../../params/declare";
import { ParameterError } from "../../params/validate";

// PostgreSQL's own limits: maintenance_work_mem ≥ 1 MB; max_wal_size ≥ two 16 MB segments; shared_buffers in
// whole MB; codes are written as 'C' and 5 digits.
const MAX_WORK_MEM_MB = 2_097_151;
export const CreateIndexAfterLoadParams = declareParams({
  ...LIMIT_PARAMS,
  rows: integer("Rows of the headline comparison (the seed: 100,000,000)."),
  repeats: integer("Trials per method at `rows`, a fresh table each (the seed: 2)."),
  rowSweep: integers("Row counts of the size sweep (both methods, random keys); `rows` is always part of it."),
  sweepRepeats: integer("Trials per sweep point that is not the headline (sizes, key order, sort memory, workers)."),
  keyOrders: listOf(
    KEY_ORDERS,
    'Key orders to load at `rows`: "random" is the seed\'s; "sorted" loads the same codes in ascending order.',
    { repeated: "drop" },
  ),
  memorySweepMB: integers("maintenance_work_mem values, MB, of the CREATE INDEX sweep (session SET per build).", {
    max: MAX_WORK_MEM_MB,
    repeated: "drop",
  }),
  workerSweep: integers("max_parallel_maintenance_workers values of the CREATE INDEX sweep (session SET per build).", {
    min: 0,
    max: 8,
    repeated: "drop",
  }),
  cacheRows: integer(
    "Rows of optional pairs on a second server whose shared_buffers is `cacheSharedBuffersMB`: shown (counters, " +
      "I/O by backend), judged by no claim; 0 = none. The OS page cache is not limited.",
    { min: 0 },
  ),
  cacheSharedBuffersMB: integer("shared_buffers of the second server of the `cacheRows` pairs, MB.", {
    max: 1_048_576,
  }),
  densityRows: integer(
    "Rows and distinct codes of the pairs that decide claim (4), the index's density: `repeats` pairs at " +
      "`densityRows` rows over `densityCodes` codes, so that rows per code is the seed's ~10,000 (100M rows over " +
      "10,001 codes); 0 = (4) on the headline pair.",
    { min: 0 },
  ),
  densityCodes: integer("Distinct codes of claim (4)'s pairs: densityRows ÷ densityCodes is its rows per code.", {
    max: 100_000,
  }),
  walAnatomyRows: integer(
    "Rows of the extra pair of trials whose WAL is decoded by record type (pg_walinspect); 0 = skip.",
    { min: 0 },
  ),
  randomSeed: number("setseed() value before every load, so every trial writes the same codes.", {
    min: -1,
    max: 1,
    hint: "a setseed() value",
  }),
  maintenanceWorkMemMB: integer(
    "maintenance_work_mem, MB (the seed ran PostgreSQL's defaults, with track_io_timing and track_wal_io_timing on).",
    { max: MAX_WORK_MEM_MB },
  ),
  maxParallelMaintenanceWorkers: integer(
    "max_parallel_maintenance_workers of the server (workers a CREATE INDEX may use).",
    { min: 0, max: 8 },
  ),
  sharedBuffersMB: integer("shared_buffers, MB.", { min: 16, max: 1_048_576 }),
  maxWalSizeMB: integer("max_wal_size, MB.", { min: 32, max: 1_073_741_823 }),
  checkpointTimeoutS: integer("checkpoint_timeout, seconds.", { min: 30, max: 86_400 }),
  settleMs: integer(
    "Longest wait after each phase for the WAL writer's and checkpointer's late counters to report (it ends as soon as they have).",
    { min: 0, max: 60_000 },
  ),
});
export type CreateIndexAfterLoadParams = ParamsOf<typeof CreateIndexAfterLoadParams>;

/** PostgreSQL 17's defaults, which the seed's local server most likely ran with, and what every profile shares. */
const SEED_SERVER = {
  target: "auto",
  keyOrders: ["random", "sorted"],
  workerSweep: [0, 2],
  randomSeed: 0.42,
  maintenanceWorkMemMB: 64,
  maxParallelMaintenanceWorkers: 2,
  sharedBuffersMB: 128,
  maxWalSizeMB: 1024,
  checkpointTimeoutS: 300,
  cpus: 2,
  // The small-buffers pairs are available by `--set`, run by no profile (docs/create-index-after-load.md).
  cacheRows: 0,
  cacheSharedBuffersMB: 16,
  // The seed ran 2; 5 paired repeats are the fewest whose interval can decide its 2.54× (claim 1b).
  repeats: 5,
  sweepRepeats: 1,
} as const;

// Why each profile's sizes are what they are: docs/create-index-after-load.md.
export const CREATE_INDEX_AFTER_LOAD_PROFILES: Readonly<Record<ProfileName, CreateIndexAfterLoadParams>> = {
  smoke: {
    ...SEED_SERVER,
    rows: 20_000,
    rowSweep: [5_000],
    memorySweepMB: [1, 64],
    walAnatomyRows: 20_000,
    densityRows: 0,
    densityCodes: 10_001,
    settleMs: 100,
    memoryGiB: 2,
  },
  default: {
    ...SEED_SERVER,
    rows: 3_000_000,
    rowSweep: [10_000, 100_000, 1_000_000],
    memorySweepMB: [4, 64, 1024],
    walAnatomyRows: 1_000_000,
    // (4) at the seed's rows per code: 1M rows over 100 codes are 10,000, the seed's 100M over 10,001.
    densityRows: 1_000_000,
    densityCodes: 100,
    settleMs: 500,
    memoryGiB: 4,
  },
  full: {
    ...SEED_SERVER,
    rows: 100_000_000,
    rowSweep: [1_000_000, 10_000_000, 30_000_000],
    memorySweepMB: [4, 64, 1024, 4096],
    // Decoding a tenth of the seed's WAL says the same per row.
    walAnatomyRows: 10_000_000,
    // The headline is the seed's 100M rows, 10,001 codes, 128 MB shared_buffers: (3) and (4) on it.
    densityRows: 0,
    densityCodes: 10_001,
    settleMs: 1000,
    memoryGiB: 8,
  },
};

/** Checks a profile's values merged with a reader's overrides (each as declared, then with each other). */
export function checkParams(given: CreateIndexAfterLoadParams): CreateIndexAfterLoadParams {
  const p = CreateIndexAfterLoadParams.check(given);
  if (!p.keyOrders.includes("random")) {
    throw new ParameterError(
      `keyOrders must include "random" (the seed's order, used by the headline and every sweep); got ${JSON.stringify(p.keyOrders)}`,
    );
  }
  return p;
}

/** Bytes per row of the table with its grown index, of CREATE INDEX's sort spill, and of an indexed load's WAL. */
const [TABLE_ROW_BYTES, SORT_ROW_BYTES, WAL_ROW_BYTES, BASE_BYTES] = [36 + 22, 24, 140, 200 * 2 ** 20];

/** At its peak: the table with its index, the sort's spill, WAL up to max_wal_size, and the WAL held for decoding. */
export function diskNeed(p: CreateIndexAfterLoadParams): DiskNeed {
  const rows = Math.max(p.rows, ...p.rowSweep);
  const wal = p.maxWalSizeMB * 2 ** 20 * 1.1;
  const kept = p.walAnatomyRows * WAL_ROW_BYTES;
  return {
    bytes: rows * (TABLE_ROW_BYTES + SORT_ROW_BYTES) + wal + kept + BASE_BYTES,
    what:
      `${rows.toLocaleString("en-US")} rows × (${TABLE_ROW_BYTES} B of table and index + ${SORT_ROW_BYTES} B of sort ` +
      `spill) + max_wal_size ${bytesText(wal)} + ${bytesText(kept)} of WAL kept for decoding + ` +
      `${bytesText(BASE_BYTES)} of server`,
  };
}

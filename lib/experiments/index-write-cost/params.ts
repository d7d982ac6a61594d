/** Parameters of notebook 01 (index write cost), per profile, their checks, and the data directory they need. */
import { ENGINES } from "../../targets/types";
import { OPERATIONS, FIELD_COUNT } from "./workload/operations";
import { LIMIT_PARAMS } from "../target-params";
import type { ProfileName } from "../../params/profiles";
import { declareParams, integer, integers, listOf, type ParamsOf } from "../../params/declare";
import { ParameterError, repeatsWithCap } from "../../params/validate";
import { bytesText, type DiskNeed } from "../../targets/disk-need";

export const IndexWriteCostParams = declareParams({
  ...LIMIT_PARAMS,
  engines: listOf(ENGINES, "Databases to measure: postgresql and/or mongodb."),
  rowCounts: integers("Rows per trial (the seed: 10k, 100k, 1M)."),
  // A size in rowCounts runs the whole matrix, (b)'s conditions included: checkParams drops it here.
  growthRows: integers(
    "Sizes run only for claim (b), the growth of the ratio from the compared size to 1M rows: INSERT and the " +
      "5-field UPDATE with 0 and 5 extra indexes (the four conditions (b)'s statistic uses), nothing else. " +
      "Claims (a) and (c) are judged at the largest of `rowCounts`.",
    { empty: true },
  ),
  extraIndexes: integers(
    "Extra single-field secondary indexes: 0 (primary key only), 1 (field1), 5 (field1..field5).",
    { min: 0, max: FIELD_COUNT },
  ),
  operations: listOf(
    OPERATIONS,
    "Write operations timed: INSERT, UPDATE of a non-indexed field, of one indexed field, of five indexed fields.",
  ),
  repeats: integer("Trials per condition (the seed: 5)."),
  maxRepeats: integer(
    "Adaptive design: while a headline claim (a, c) is inconclusive after `repeats`, add one more repeat of the " +
      "largest size's conditions, up to `maxRepeats` and while the run has taken less than `budgetSeconds`. The " +
      "run records which of the three stopped it. `maxRepeats = repeats`: no adding.",
  ),
  budgetSeconds: integer("Seconds the run may take before the adaptive design adds no more repeats."),
  batchSize: integer("Rows per driver call (the seed: 1,000)."),
  seed: integer("PRNG seed for field values and the update order (the seed: 42)."),
  fillfactors: integers(
    "Heap fillfactor(s) of the PostgreSQL table, percent. The first is used for every operation; further values " +
      "sweep the non-indexed UPDATE (whose HOT share depends on free page space).",
    { min: 10, max: 100 },
  ),
  cacheGiB: integer("PostgreSQL shared_buffers and MongoDB WiredTiger cache, GiB (the seed: 1 and 1)."),
});
export type IndexWriteCostParams = ParamsOf<typeof IndexWriteCostParams>;

const SEED_MATRIX = {
  target: "auto",
  engines: ["postgresql", "mongodb"],
  extraIndexes: [0, 1, 5],
  operations: [...OPERATIONS],
  batchSize: 1000,
  seed: 42,
  fillfactors: [100],
  cpus: 2,
  memoryGiB: 3,
  cacheGiB: 1,
} as const;

export const INDEX_WRITE_COST_PROFILES: Readonly<Record<ProfileName, IndexWriteCostParams>> = {
  smoke: {
    ...SEED_MATRIX,
    rowCounts: [2000],
    growthRows: [],
    repeats: 2,
    maxRepeats: 2,
    budgetSeconds: 60,
    batchSize: 500,
  },
  // `default` adds a fillfactor 70 sweep of the non-indexed UPDATE (HOT needs free space). 5 repeats:
  // the min–max of 5 covers the median of the paired ratios with 93.75 % (of 3: 75 %, too little to decide).
  // Claim (b) needs 1M rows, far past a default run's minutes (docs/claims-and-regimes.md, "01's 1M block").
  default: {
    ...SEED_MATRIX,
    rowCounts: [10_000, 100_000],
    growthRows: [],
    repeats: 5,
    // The looks share the stated 90 % (stats/adaptive lookPlan): a second look after 5 needs 9, so 8 adds none.
    maxRepeats: 8,
    budgetSeconds: 200,
    fillfactors: [100, 70],
  },
  // The seed's 5 trials.
  full: {
    ...SEED_MATRIX,
    rowCounts: [10_000, 100_000, 1_000_000],
    growthRows: [],
    repeats: 5,
    maxRepeats: 5,
    budgetSeconds: 7200,
  },
};

/** Checks a profile's values merged with a reader's overrides (each as declared, then with each other). */
export function checkParams(
  given: IndexWriteCostParams,
  overrides: Partial<IndexWriteCostParams>,
): IndexWriteCostParams {
  const p = IndexWriteCostParams.check(given);
  const smallest = Math.min(...p.rowCounts);
  if (p.batchSize > smallest)
    throw new ParameterError(`batchSize (${p.batchSize}) is larger than the smallest row count (${smallest})`);
  const growthRows = p.growthRows.filter((n) => !p.rowCounts.includes(n));
  if (growthRows.some((n) => n < p.batchSize))
    throw new ParameterError(
      `batchSize (${p.batchSize}) is larger than a growthRows size (${Math.min(...growthRows)})`,
    );
  return { ...p, growthRows, ...repeatsWithCap(p, overrides) };
}

const [HEAP_ROW_BYTES, INDEX_ROW_BYTES, WAL_HEAP_RECORD_BYTES, WAL_INDEX_RECORD_BYTES] = [84, 32, 100, 60];
const [MAX_WAL_BYTES, BASE_BYTES] = [2 ** 30, 200 * 2 ** 20];

/**
 * At its peak: the largest table with every index, each row updated once (two versions), WAL up to max_wal_size, and
 * one timed window's WAL held until counted (WalWindows).
 */
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

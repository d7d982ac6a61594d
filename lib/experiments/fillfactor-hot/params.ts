/** Parameters of notebook 07 (fillfactor vs HOT updates), per profile, and their checks. */
import type { LimitParams } from "../define";
import type { ProfileName } from "../../params/profiles";
import { integerListInRange, listOf, ParameterError, positiveInteger } from "../../params/validate";

/** Which column the timed UPDATE pass changes: `counter` is in no index, `k` has a B-tree of its own. */
export const UPDATED_COLUMNS = ["counter", "k"] as const;
export type UpdatedColumn = (typeof UPDATED_COLUMNS)[number];

export interface FillfactorHotParams extends LimitParams {
  /** Rows loaded into each trial's fresh table (every one is updated once by the timed pass). */
  readonly rows: number;
  /**
   * Heap fillfactors, percent (10–100). Claim 1 is judged at 100; claims 2 and 4–6 at the highest
   * one whose pages have room for a new version of every row (51 or lower for the 60-byte pad).
   */
  readonly fillfactors: readonly number[];
  /** Columns the UPDATE pass changes: counter (no index: HOT is possible) and k (indexed: never HOT). */
  readonly columns: readonly UpdatedColumn[];
  /** Bytes of the text column `pad` in every row: with it, the row's width (and so rows per page). */
  readonly padBytes: number;
  /** Rows per UPDATE statement of the pass (an id range, one transaction each); the timed units. */
  readonly batchRows: number;
  /** Rounds: each runs every condition once, in an order of its own (≥ 5 to decide a claim). */
  readonly repeats: number;
  /** PRNG seed of the rounds' condition order. */
  readonly seed: number;
  /** PostgreSQL shared_buffers, MiB: large enough that the table and its indexes stay cached. */
  readonly sharedBuffersMiB: number;
}

const COMMON = {
  target: "auto",
  columns: [...UPDATED_COLUMNS],
  padBytes: 60,
  seed: 7,
  sharedBuffersMiB: 512,
  cpus: 2,
  memoryGiB: 2,
} as const;

export const FILLFACTOR_HOT_PROFILES: Readonly<Record<ProfileName, FillfactorHotParams>> = {
  // Seconds: 2,000 rows are 29 pages at fillfactor 100, enough for the counters to mean something.
  smoke: { ...COMMON, rows: 2000, fillfactors: [100, 50], batchRows: 500, repeats: 2 },
  // 100 (no room), 70 (room for ~43 % of the rows' new versions) and 50 (room for all): the HOT
  // share follows the room. 5 rounds: the min–max of 5 covers the median with 93.75 %.
  default: { ...COMMON, rows: 100_000, fillfactors: [100, 70, 50], batchRows: 10_000, repeats: 5 },
  full: {
    ...COMMON,
    rows: 1_000_000,
    fillfactors: [100, 90, 80, 70, 60, 50],
    batchRows: 10_000,
    repeats: 7,
    sharedBuffersMiB: 1024,
  },
};

/** Checks a profile's values merged with a reader's overrides (target, cpus and memoryGiB: the base). */
export function checkParams(p: FillfactorHotParams): FillfactorHotParams {
  const rows = positiveInteger("rows", p.rows);
  const batchRows = positiveInteger("batchRows", p.batchRows);
  if (batchRows > rows) throw new ParameterError(`batchRows (${batchRows}) is larger than rows (${rows})`);
  const fillfactors = [...new Set(integerListInRange("fillfactors", p.fillfactors, 10, 100))].sort((a, b) => b - a);
  const columns = listOf("columns", p.columns, UPDATED_COLUMNS);
  const padBytes = positiveInteger("padBytes", p.padBytes);
  // Above ~2 kB a row is TOASTed and the page arithmetic of the claims' regime no longer holds.
  if (padBytes > 1000) throw new ParameterError(`padBytes (${padBytes}) must be at most 1000`);
  return {
    ...p,
    rows,
    fillfactors,
    columns: UPDATED_COLUMNS.filter((c) => columns.includes(c)),
    padBytes,
    batchRows,
    repeats: positiveInteger("repeats", p.repeats),
    seed: positiveInteger("seed", p.seed),
    sharedBuffersMiB: positiveInteger("sharedBuffersMiB", p.sharedBuffersMiB),
  };
}

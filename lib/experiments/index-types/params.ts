/** Parameters of notebook 08 (one index of each kind against an INSERT stream and an UPDATE pass), per profile. */
import type { LimitParams } from "../define";
import type { ProfileName } from "../../params/profiles";
import { listOf, ParameterError, positiveInteger } from "../../params/validate";

/** The index each trial's table has besides its primary key: "none" is the table with its primary key only. */
export const INDEX_KINDS = ["none", "btree", "hash", "brin", "gin-fastupdate", "gin-nofastupdate", "partial"] as const;
export type IndexKind = (typeof INDEX_KINDS)[number];
/** insert: the stream of INSERT batches into an empty table; update: one UPDATE pass over the loaded table. */
export const OPERATIONS = ["insert", "update"] as const;
export type Operation = (typeof OPERATIONS)[number];

export interface IndexTypesParams extends LimitParams {
  /** Rows the INSERT stream writes, and the rows the UPDATE pass changes (each once). */
  readonly rows: number;
  /** Rows per statement: each INSERT batch and each UPDATE id range is one statement and one transaction, timed. */
  readonly batchRows: number;
  /** The index kinds run, each on a table of its own ("none": the primary key only). */
  readonly kinds: readonly IndexKind[];
  /** insert: a stream of INSERT batches into the empty table; update: one UPDATE pass of the indexed columns. */
  readonly operations: readonly Operation[];
  /** Every matchEvery-th batch is inside the partial index's predicate (`flagged`); the others are outside it. */
  readonly matchEvery: number;
  /** Rounds: each runs every condition once, in an order of its own (≥ 5 to decide a claim). */
  readonly repeats: number;
  /** PRNG seed of the rounds' condition order. */
  readonly seed: number;
  /** PostgreSQL shared_buffers, MiB: the table and its index stay cached. */
  readonly sharedBuffersMiB: number;
}

const COMMON = {
  target: "auto",
  kinds: [...INDEX_KINDS],
  operations: [...OPERATIONS],
  matchEvery: 10,
  seed: 8,
  sharedBuffersMiB: 256,
  cpus: 2,
  memoryGiB: 2,
} as const;

export const INDEX_TYPES_PROFILES: Readonly<Record<ProfileName, IndexTypesParams>> = {
  smoke: { ...COMMON, rows: 4000, batchRows: 200, repeats: 2 },
  // 100 batches per trial and 14 trials a round within a few minutes on 2 cores; 5 rounds decide a claim.
  default: { ...COMMON, rows: 75_000, batchRows: 750, repeats: 5 },
  full: { ...COMMON, rows: 300_000, batchRows: 1000, repeats: 7, sharedBuffersMiB: 512 },
};

export function checkParams(p: IndexTypesParams): IndexTypesParams {
  const rows = positiveInteger("rows", p.rows);
  const batchRows = positiveInteger("batchRows", p.batchRows);
  if (batchRows > rows) throw new ParameterError(`batchRows (${batchRows}) is larger than rows (${rows})`);
  const kinds = listOf("kinds", p.kinds, INDEX_KINDS);
  const operations = listOf("operations", p.operations, OPERATIONS);
  return {
    ...p,
    rows,
    batchRows,
    kinds: INDEX_KINDS.filter((k) => kinds.includes(k)),
    operations: OPERATIONS.filter((o) => operations.includes(o)),
    matchEvery: positiveInteger("matchEvery", p.matchEvery),
    repeats: positiveInteger("repeats", p.repeats),
    seed: positiveInteger("seed", p.seed),
    sharedBuffersMiB: positiveInteger("sharedBuffersMiB", p.sharedBuffersMiB),
  };
}

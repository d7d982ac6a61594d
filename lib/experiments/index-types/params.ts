/** Parameters of notebook 08 (one index of each kind against an INSERT stream and an UPDATE pass), per profile. */
import { LIMIT_PARAMS } from "../target-params";
import type { ProfileName } from "../../params/profiles";
import { declareParams, integer, listOf, type ParamsOf } from "../../params/declare";
import { ParameterError } from "../../params/validate";

/** The index each trial's table has besides its primary key: "none" is the table with its primary key only. */
export const INDEX_KINDS = ["none", "btree", "hash", "brin", "gin-fastupdate", "gin-nofastupdate", "partial"] as const;
export type IndexKind = (typeof INDEX_KINDS)[number];
/** insert: the stream of INSERT batches into an empty table; update: one UPDATE pass over the loaded table. */
export const OPERATIONS = ["insert", "update"] as const;
export type Operation = (typeof OPERATIONS)[number];

export const IndexTypesParams = declareParams({
  ...LIMIT_PARAMS,
  rows: integer("Rows the INSERT stream writes, and the rows the UPDATE pass changes (each once)."),
  batchRows: integer(
    "Rows per statement: each INSERT batch and each UPDATE id range is one statement and one transaction, timed.",
  ),
  kinds: listOf(INDEX_KINDS, 'The index kinds run, each on a table of its own ("none": the primary key only).', {
    order: "allowed",
  }),
  operations: listOf(
    OPERATIONS,
    "insert: a stream of INSERT batches into the empty table; update: one UPDATE pass of the indexed columns.",
    { order: "allowed" },
  ),
  matchEvery: integer(
    "Every matchEvery-th batch is inside the partial index's predicate (`flagged`); the others are outside it.",
  ),
  repeats: integer("Rounds: each runs every condition once, in an order of its own (≥ 5 to decide a claim)."),
  seed: integer("PRNG seed of the rounds' condition order."),
  sharedBuffersMiB: integer("PostgreSQL shared_buffers, MiB: the table and its index stay cached."),
});
export type IndexTypesParams = ParamsOf<typeof IndexTypesParams>;

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
  // Sized for the question (docs/claims-and-regimes.md, 08): 225,000 rows fill GIN's 4 MB pending list 4 times a
  // stream and make 32 of BRIN's 128-page ranges (workload.ts' row sizes); in 300 batches the 4 flushing ones are over
  // 1 %, so a stream's p99 is one of them; 8 rounds, the fewest whose median interval leaves out the extreme rounds.
  default: { ...COMMON, rows: 225_000, batchRows: 750, repeats: 8 },
  full: { ...COMMON, rows: 300_000, batchRows: 1000, repeats: 8, sharedBuffersMiB: 512 },
};

/** Checks a profile's values merged with a reader's overrides (each as declared, then with each other). */
export function checkParams(given: IndexTypesParams): IndexTypesParams {
  const p = IndexTypesParams.check(given);
  if (p.batchRows > p.rows) throw new ParameterError(`batchRows (${p.batchRows}) is larger than rows (${p.rows})`);
  return p;
}

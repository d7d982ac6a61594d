/** Parameters of notebook 07 (fillfactor vs HOT updates), per profile, and their checks. */
import { LIMIT_PARAMS } from "../target-params";
import type { ProfileName } from "../../params/profiles";
import { declareParams, integer, integers, listOf, type ParamsOf } from "../../params/declare";
import { ParameterError } from "../../params/validate";

/** Which column the timed UPDATE pass changes: `counter` is in no index, `k` has a B-tree of its own. */
export const UPDATED_COLUMNS = ["counter", "k"] as const;
export type UpdatedColumn = (typeof UPDATED_COLUMNS)[number];

export const FillfactorHotParams = declareParams({
  ...LIMIT_PARAMS,
  rows: integer("Rows loaded into each trial's fresh table (every one is updated once by the timed pass)."),
  fillfactors: integers(
    "Heap fillfactors, percent (10–100). Claim 1 is judged at 100; claims 2 and 4–6 at the highest one whose " +
      "pages have room for a new version of every row (51 or lower for the 60-byte pad).",
    { min: 10, max: 100, repeated: "drop", order: "descending" },
  ),
  columns: listOf(
    UPDATED_COLUMNS,
    "Columns the UPDATE pass changes: counter (no index: HOT is possible) and k (indexed: never HOT).",
    { order: "allowed" },
  ),
  // Above ~2 kB a row is TOASTed and the page arithmetic of the claims' regime no longer holds.
  padBytes: integer("Bytes of the text column `pad` in every row: with it, the row's width (and so rows per page).", {
    max: 1000,
  }),
  batchRows: integer("Rows per UPDATE statement of the pass (an id range, one transaction each); the timed units."),
  repeats: integer("Rounds: each runs every condition once, in an order of its own (≥ 5 to decide a claim)."),
  seed: integer("PRNG seed of the rounds' condition order."),
  sharedBuffersMiB: integer("PostgreSQL shared_buffers, MiB: large enough that the table and its indexes stay cached."),
});
export type FillfactorHotParams = ParamsOf<typeof FillfactorHotParams>;

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

/** Checks a profile's values merged with a reader's overrides (each as declared, then with each other). */
export function checkParams(given: FillfactorHotParams): FillfactorHotParams {
  const p = FillfactorHotParams.check(given);
  if (p.batchRows > p.rows) throw new ParameterError(`batchRows (${p.batchRows}) is larger than rows (${p.rows})`);
  return p;
}

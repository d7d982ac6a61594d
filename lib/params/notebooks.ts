/**
 * The notebooks the lab runs headless, and how each one's parameters are checked, so that
 * `npm run reproduce` refuses bad input before any server starts.
 */
import { compareRunsParams } from "./compare-runs";
import { createIndexAfterLoadParams } from "./create-index-after-load";
import { indexWriteCostParams } from "./index-write-cost";
import { overIndexingParams } from "./over-indexing";
import { reindexUnderLoadParams } from "./reindex-under-load";
import { roundTripsParams } from "./round-trips";
import type { ProfileName } from "./profiles";

export interface NotebookEntry {
  /** Two digits, as in `--only 01`. */
  readonly id: string;
  /** Path relative to the project root. */
  readonly file: string;
  readonly title: string;
  /** Resolves (and checks) the parameters; throws ParameterError on bad input. */
  readonly resolve: (profile: ProfileName, overrides: Record<string, unknown>) => object;
  /**
   * Parameters that must be given (`--set`): such a notebook runs only when asked (`--only`) or when
   * one of them is given, and is refused before it starts when one is missing. Notebook 00 needs runs.
   */
  readonly requires?: readonly string[];
}

export const NOTEBOOKS: readonly NotebookEntry[] = [
  {
    id: "01",
    file: "notebooks/01-index-write-cost.ipynb",
    title: "Index write cost: secondary indexes vs INSERT/UPDATE time",
    resolve: (profile, overrides) => indexWriteCostParams(profile, overrides),
  },
  {
    id: "02",
    file: "notebooks/02-create-index-after-load.ipynb",
    title: "CREATE INDEX after bulk load vs loading into an indexed table",
    resolve: (profile, overrides) => createIndexAfterLoadParams(profile, overrides),
  },
  {
    id: "03",
    file: "notebooks/03-over-indexing.ipynb",
    title: "Over-indexing: TPS and latency as indexes grow from 7 to 39",
    resolve: (profile, overrides) => overIndexingParams(profile, overrides),
  },
  {
    id: "04",
    file: "notebooks/04-reindex-under-load.ipynb",
    title: "REINDEX and REINDEX CONCURRENTLY under live pgbench load",
    resolve: (profile, overrides) => reindexUnderLoadParams(profile, overrides),
  },
  {
    id: "05",
    file: "notebooks/05-round-trips.ipynb",
    title: "Round trips and commit latency: same-AZ, cross-AZ, quorum commit",
    resolve: (profile, overrides) => roundTripsParams(profile, overrides),
  },
  // Last, so that `--set runs=["latest of notebook 01", …]` without --only compares runs this reproduce just made.
  {
    id: "00",
    file: "notebooks/00-compare-runs.ipynb",
    title: "Compare runs: did my change make a difference?",
    resolve: (profile, overrides) => compareRunsParams(profile, overrides),
    requires: ["runs"],
  },
];

export function findNotebook(id: string): NotebookEntry {
  const entry = NOTEBOOKS.find((n) => n.id === id || n.file.includes(`/${id}`));
  if (!entry) {
    throw new Error(`No notebook "${id}". Known: ${NOTEBOOKS.map((n) => n.id).join(", ")}`);
  }
  return entry;
}

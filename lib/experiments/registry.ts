/**
 * The notebooks the lab has, in one list: `npm run reproduce`, its parameter checks (bad input is
 * refused before any server starts) and the tests are derived from it. A new experiment is one line
 * here (see docs/adding-a-notebook.md).
 */
import { register, type RegisteredExperiment } from "./contract";
import { experiment as indexWriteCost } from "./index-write-cost";
import { createIndexAfterLoadParams } from "../params/create-index-after-load";
import { overIndexingParams } from "../params/over-indexing";
import { reindexUnderLoadParams } from "../params/reindex-under-load";
import { roundTripsParams } from "../params/round-trips";
import { compareRunsParams } from "../params/compare-runs";

export const EXPERIMENTS: readonly RegisteredExperiment[] = [
  register(indexWriteCost),
  {
    id: "02",
    slug: "02-create-index-after-load",
    file: "notebooks/02-create-index-after-load.ipynb",
    title: "CREATE INDEX after bulk load vs loading into an indexed table",
    resolve: (profile, overrides) => createIndexAfterLoadParams(profile, overrides),
  },
  {
    id: "03",
    slug: "03-over-indexing",
    file: "notebooks/03-over-indexing.ipynb",
    title: "Over-indexing: TPS and latency as indexes grow from 7 to 39",
    resolve: (profile, overrides) => overIndexingParams(profile, overrides),
  },
  {
    id: "04",
    slug: "04-reindex-under-load",
    file: "notebooks/04-reindex-under-load.ipynb",
    title: "REINDEX and REINDEX CONCURRENTLY under live pgbench load",
    resolve: (profile, overrides) => reindexUnderLoadParams(profile, overrides),
  },
  {
    id: "05",
    slug: "05-round-trips",
    file: "notebooks/05-round-trips.ipynb",
    title: "Round trips and commit latency: same-AZ, cross-AZ, quorum commit",
    resolve: (profile, overrides) => roundTripsParams(profile, overrides),
  },
  // Not an experiment: it reads runs. Last, so that `--set runs=["latest of notebook 01", …]`
  // without --only compares runs this reproduce just made.
  {
    id: "00",
    slug: "00-compare-runs",
    file: "notebooks/00-compare-runs.ipynb",
    title: "Compare runs: did my change make a difference?",
    resolve: (profile, overrides) => compareRunsParams(profile, overrides),
    requires: ["runs"],
  },
];

export function findExperiment(id: string): RegisteredExperiment {
  const entry = EXPERIMENTS.find((n) => n.id === id || n.file.includes(`/${id}`));
  if (!entry) throw new Error(`No notebook "${id}". Known: ${EXPERIMENTS.map((n) => n.id).join(", ")}`);
  return entry;
}

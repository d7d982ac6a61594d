/**
 * The notebooks the lab has, in one list: `npm run reproduce`, its parameter checks (bad input is
 * refused before any server starts) and the tests are derived from it. A new experiment is one line
 * here (see docs/adding-a-notebook.md).
 */
import { register, type RegisteredExperiment } from "./contract";
import { experiment as indexWriteCost } from "./index-write-cost";
import { experiment as createIndexAfterLoad } from "./create-index-after-load";
import { experiment as overIndexing } from "./over-indexing";
import { experiment as reindexUnderLoad } from "./reindex-under-load";
import { experiment as roundTrips } from "./round-trips";
import { experiment as yourIndexes } from "./your-indexes";
import { COMPARE_RUNS_DEFAULTS, compareRunsParams } from "../compare/params";

export const EXPERIMENTS: readonly RegisteredExperiment[] = [
  register(indexWriteCost),
  register(createIndexAfterLoad),
  register(overIndexing),
  register(reindexUnderLoad),
  register(roundTrips),
  register(yourIndexes),
  // Not an experiment: it reads runs. Last, so that `--set runs=["latest of notebook 01", …]`
  // without --only compares runs this reproduce just made.
  {
    id: "00",
    slug: "00-compare-runs",
    file: "notebooks/00-compare-runs.ipynb",
    title: "Compare runs: did my change make a difference?",
    resolve: (profile, overrides) => compareRunsParams(profile, overrides),
    profiles: { smoke: COMPARE_RUNS_DEFAULTS, default: COMPARE_RUNS_DEFAULTS, full: COMPARE_RUNS_DEFAULTS },
    requires: ["runs"],
  },
];

export function findExperiment(id: string): RegisteredExperiment {
  const entry = EXPERIMENTS.find((n) => n.id === id || n.file.includes(`/${id}`));
  if (!entry) throw new Error(`No notebook "${id}". Known: ${EXPERIMENTS.map((n) => n.id).join(", ")}`);
  return entry;
}

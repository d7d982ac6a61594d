/**
 * The notebooks the lab has, in one list: `npm run reproduce`, its parameter checks (bad input is
 * refused before any server starts), the ETA and the tests are derived from it. The list itself is
 * notebooks.ts (a new notebook is its lines there; see docs/adding-a-notebook.md), in the order of
 * their ids.
 */
import type { RegisteredExperiment } from "./contract";
import * as notebooks from "./notebooks";
import { COMPARE_RUNS_DEFAULTS, compareRunsParams } from "../compare/params";

export const EXPERIMENTS: readonly RegisteredExperiment[] = [
  ...Object.values(notebooks)
    .map((n) => n.registered)
    .sort((a, b) => a.id.localeCompare(b.id)),
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

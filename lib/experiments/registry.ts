/** One list that reproduce, its parameter checks, the ETA and the tests derive from; entries live in notebooks.ts. */
import type { RegisteredExperiment } from "./contract";
import * as notebooks from "./notebooks";
import { COMPARE_RUNS_DEFAULTS, compareRunsParams } from "../compare/params";

export const EXPERIMENTS: readonly RegisteredExperiment[] = [
  ...Object.values(notebooks)
    .flatMap((n) => ("registered" in n ? [n.registered] : []))
    .sort((a, b) => a.id.localeCompare(b.id)),
  // Last, so that without --only it compares the runs this reproduce just made.
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

/**
 * Notebook 04's public API (`lab.reindexUnderLoad.*`): run the sets, summarise, check the seed's
 * claims, show and save the results.
 */
import { lookPlan } from "../../stats/adaptive";
import { diskNeed04 } from "./disk";
import { REINDEX_UNDER_LOAD_PROFILES, reindexUnderLoadParams, type ReindexUnderLoadParams } from "./params";
import { register, type Experiment } from "../contract";
import type { FaultCells } from "../faults";
import { estimate } from "./eta";
import { writeSummaries } from "./present";
import { NOTEBOOK, run as runReindexUnderLoad, runLengthOf } from "./run";
import { CLAIMS, checkClaims as check, plan04 } from "./claims";

export { DECLARATIONS } from "./claims";
import type { ReindexUnderLoadRun } from "./run";
import { summarise as summariseTrials, type ReindexSummary } from "./summarise";

export { serverSpec, type ReindexUnderLoadRun, type RunControl } from "./run";
export type { ReindexSummary, RunSummary, ModeSummary } from "./summarise";
export {
  showRun,
  showRunTable,
  showCharts,
  showSeedComparison,
  showClaims,
  showWaits,
  showStatements,
  showStopped,
  writeSummaries,
} from "./present";
export { timeline, latencyTimeline, tpsBySet, updateLatencyBySet, waitShares } from "./charts";

/** The run's figures: per run and per mode (medians over sets, ratios to the baselines). */
function summariseRun(run: ReindexUnderLoadRun): ReindexSummary {
  return {
    ...summariseTrials(run.trials, runLengthOf(run), run.params.clients, run.metadata.host.cpus, run.params.scale),
    looks: lookPlan(run.params.sets, run.params.maxSets),
  };
}

/** The fault matrix's cells: the fault at this notebook's most exposed point, where it is most likely met. */
const faults: FaultCells = {
  overrides: ["durationSeconds=6", "sets=2", 'modes=["baseline","reindex"]'],
  point: "pgbench",
  cells: [
    // By name: a dropped link over ssh:// mid-pgbench is 03-linkdrop-ssh's case too (04's notebook is
    // in the default cells through 04-kill9-embedded), and this cell took 134 s of the suite's 20 min.
    { fault: "link-drop", target: "ssh", boundSeconds: 75, byName: true },
    { fault: "link-drop", target: "external", boundSeconds: 75, byName: true },
    { fault: "kill-9", target: "embedded", boundSeconds: 30 },
  ],
};

/** Notebook 04 on the Experiment contract. */
export const experiment: Experiment<ReindexUnderLoadParams, ReindexUnderLoadRun, ReindexSummary> = {
  id: "04",
  slug: NOTEBOOK,
  title: "REINDEX and REINDEX CONCURRENTLY under live pgbench load",
  notebook: "notebooks/04-reindex-under-load.ipynb",
  profiles: REINDEX_UNDER_LOAD_PROFILES,
  params: (profile, overrides = {}) => reindexUnderLoadParams(profile, overrides),
  run: (params, control = {}) => runReindexUnderLoad(params, control),
  summarise: summariseRun,
  // Each claim recomputes itself without the flagged sets (its `sensitivity`).
  claims: (summary) => check(summary),
  disk: diskNeed04,
  save: (run, summary, claims) => writeSummaries(run, summary, claims),
  plan: plan04,
  claimSet: CLAIMS,
  estimate,
  faults,
};

export const { params, run, summarise, claims, save } = experiment;

/** The registry's view of it (lib/experiments/notebooks.ts lists the notebooks). */
export const registered = register(experiment);

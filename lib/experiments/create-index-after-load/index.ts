/**
 * Notebook 02's public API (`lab.createIndexAfterLoad.*`): run the trials, summarise them, check
 * the seed's claims, write the summaries, and show each section.
 */
import { diskNeed02 } from "./disk";
import {
  CREATE_INDEX_AFTER_LOAD_PROFILES,
  createIndexAfterLoadParams,
  type CreateIndexAfterLoadParams,
} from "./params";
import { register, type Experiment } from "../contract";
import type { FaultCells } from "../faults";
import { estimate } from "./eta";
import { RunStore } from "../../results/run-store";
import type { ClaimCheck } from "../../stats/claims";
import type { CreateIndexCondition } from "./workload/plan";
import { CLAIMS, checkClaims, plan02 } from "./claims";
import { writeSummaries } from "./export";
import { NOTEBOOK, runCreateIndexAfterLoad, type CreateIndexAfterLoadRun } from "./run";
import { summarise as summariseTrials, type CreateIndexSummary } from "./summarise";

export { serverSpec, type CreateIndexAfterLoadRun, type RunControl } from "./run";
export { checkClaims, DECLARATIONS } from "./claims";
export { seedFigures } from "./seed";
export { writeSummaries } from "./export";
export {
  headlinePair,
  sizeSweep,
  type CreateIndexSummary,
  type MethodSummary,
  type PairSummary,
  type RepeatPair,
  type BuildSummary,
} from "./summarise";
export {
  showRun,
  showHeadline,
  showRepeats,
  showSeedComparison,
  showCounters,
  showIoByBackend,
  showSizeSweep,
  showKeyOrder,
  showBuildSweep,
  showWalAnatomy,
  showIndexShapes,
  showClaims,
} from "./present";
export { planTrials, type CreateIndexCondition, type Method } from "./workload/plan";
export type { CreateIndexTrial } from "./workload/run-trials";

function save(run: CreateIndexAfterLoadRun, summary: CreateIndexSummary, claims: readonly ClaimCheck[]): string[] {
  const store = RunStore.open<CreateIndexCondition>({ notebook: NOTEBOOK, params: run.params, resumeId: run.runId });
  return writeSummaries(store, summary, claims);
}

/** The fault matrix's cells: the fault at this notebook's most exposed point, where it is most likely met. */
const faults: FaultCells = {
  overrides: [
    "rows=300000",
    "repeats=2",
    "rowSweep=[5000]",
    'keyOrders=["random"]',
    "memorySweepMB=[64]",
    "workerSweep=[0]",
    "walAnatomyRows=0",
  ],
  point: "create-index",
  cells: [
    { fault: "kill-9", target: "embedded", boundSeconds: 30 },
    { fault: "engine-stop", target: "ssh", boundSeconds: 60 },
  ],
};

/** Notebook 02 on the Experiment contract (the summary's headline is the run's own `rows` and settings). */
export const experiment: Experiment<CreateIndexAfterLoadParams, CreateIndexAfterLoadRun, CreateIndexSummary> = {
  id: "02",
  slug: NOTEBOOK,
  title: "CREATE INDEX after bulk load vs loading into an indexed table",
  notebook: "notebooks/02-create-index-after-load.ipynb",
  profiles: CREATE_INDEX_AFTER_LOAD_PROFILES,
  params: (profile, overrides = {}) => createIndexAfterLoadParams(profile, overrides),
  run: (params, control = {}) => runCreateIndexAfterLoad(params, control),
  plan: plan02,
  claimSet: CLAIMS,
  estimate,
  faults,
  summarise: (run) => summariseTrials(run.trials, run.params),
  // Each claim recomputes itself without the flagged repeats (its `sensitivity`).
  claims: (summary) => checkClaims(summary),
  save,
  disk: diskNeed02,
};

export const { params, run, summarise, claims } = experiment;

/** The registry's view of it (lib/experiments/notebooks.ts lists the notebooks). */
export const registered = register(experiment);
export { save };

/**
 * Notebook 03's experiment (`lab.overIndexing.*`): the contract's five steps (params, run, summarise,
 * claims, save), then one call per section of the notebook.
 */
import { diskNeed03 } from "./disk";
import { OVER_INDEXING_PROFILES, overIndexingParams, type OverIndexingParams } from "./params";
import { register, type Experiment } from "../contract";
import type { FaultCells } from "../faults";
import { estimate } from "./eta";
import { recordedServerCpus } from "../server-cpus";
import { CLAIMS, checkClaims as check, plan03 } from "./claims";
import { writeSummaries } from "./present";
import { run as runRounds, type OverIndexingRun } from "./run";
import { summarise as summariseTrials, type OverIndexingSummary } from "./summarise";
import { lookPlan } from "../../stats/adaptive";

/** The fault matrix's cells: the fault at this notebook's most exposed point, where it is most likely met. */
const faults: FaultCells = {
  overrides: ["indexLevels=[7,14]", "durationSeconds=4"],
  point: "pgbench",
  cells: [
    { fault: "sigstop", target: "embedded", boundSeconds: 40, env: { DBLAB_STALL_SECONDS: "5" } },
    { fault: "link-drop", target: "ssh", boundSeconds: 75 },
    { fault: "link-drop", target: "external", boundSeconds: 75 },
    { fault: "kernel-kill", target: "external", boundSeconds: 30, alongside: true },
  ],
};

export const experiment: Experiment<OverIndexingParams, OverIndexingRun, OverIndexingSummary> = {
  id: "03",
  slug: "03-over-indexing",
  title: "Over-indexing: TPS of a write transaction as indexes pile up",
  notebook: "notebooks/03-over-indexing.ipynb",
  profiles: OVER_INDEXING_PROFILES,
  params: (profile, overrides = {}) => overIndexingParams(profile, overrides),
  run: (params, control = {}) => runRounds(params, control),
  // The server the rounds ran on goes into the summary: claims (2) and (4) are placed by it.
  summarise: (run) => ({
    ...summariseTrials(run.trials, run.params.durationSeconds, run.params.clients, run.params.dataScale),
    looks: lookPlan(run.params.repeats, run.params.maxRepeats),
    server: {
      cpus: recordedServerCpus(run.metadata),
      dataBytes: run.template.databaseBytes,
      sharedBuffersMB: run.params.sharedBuffersMB,
    },
  }),
  claims: (summary) => check(summary),
  disk: diskNeed03,
  save: (run, summary, claims) => writeSummaries(run, summary, claims),
  plan: plan03,
  claimSet: CLAIMS,
  estimate,
  faults,
};

export const { params, run, summarise, claims, save } = experiment;

/** The registry's view of it (lib/experiments/notebooks.ts lists the notebooks). */
export const registered = register(experiment);

export { serverSpec, type OverIndexingRun, type RunControl } from "./run";
export type { OverIndexingSummary, RoundSummary, LevelSummary } from "./summarise";
export { DECLARATIONS } from "./claims";
export {
  showRun,
  showLevelTable,
  showCharts,
  showSeedComparison,
  showClaims,
  showExplanation,
  showStatements,
  showStopped,
  writeSummaries,
} from "./present";
export { tpsByLevel, latencyByLevel, storageByLevel, perSecond, workPerTransaction } from "./charts";

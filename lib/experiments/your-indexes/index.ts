/**
 * Notebook 06's experiment (`lab.yourIndexes.*`): what do these indexes cost these writes? The
 * contract's five steps (params, run, summarise, claims, save), then one call per section.
 */
import { YOUR_INDEXES_PROFILES, yourIndexesParams, type YourIndexesParams } from "./params";
import { register, type Experiment } from "../contract";
import type { FaultCells } from "../faults";
import { estimate } from "./eta";
import { checkClaims, CLAIMS, plan06 } from "./claims";
import { writeSummaries } from "./present";
import { run as runRounds, summaryContext, type YourIndexesRun } from "./run";
import { summarise as summariseTrials, type YourIndexesSummary } from "./summarise";

/** The fault matrix's cells: the fault at this notebook's most exposed point, where it is most likely met. */
const faults: FaultCells = {
  // The smoke example (two indexes judged, two rounds of B V B V B): 3-s runs, so the fault lands in one.
  overrides: ["durationSeconds=3"],
  point: "pgbench",
  cells: [
    { fault: "kill-9", target: "embedded", boundSeconds: 30 },
    { fault: "sigterm", target: "embedded", boundSeconds: 45 },
  ],
};

export const experiment: Experiment<YourIndexesParams, YourIndexesRun, YourIndexesSummary> = {
  profiles: YOUR_INDEXES_PROFILES,
  params: yourIndexesParams,
  run: runRounds,
  summarise: (run) => summariseTrials(run.trials, summaryContext(run), run.params.durationSeconds, run.params.clients),
  claims: (summary) => checkClaims(summary),
  plan: plan06,
  claimSet: CLAIMS,
  save: writeSummaries,
  estimate,
  faults,
  id: "06",
  slug: "06-your-indexes",
  title: "Your indexes: what does each one cost your writes?",
  notebook: "notebooks/06-your-indexes.ipynb",
};

export const { params, run, summarise, claims, save } = experiment;

/** The registry's view of it (lib/experiments/notebooks.ts lists the notebooks). */
export const registered = register(experiment);

export { serverSpec, type YourIndexesRun, type RunControl } from "./run";
export type {
  YourIndexesSummary,
  IndexSummary,
  NoiseFloor,
  RunSummary,
  VariantSummary,
  WriteAmplification,
  ReadEffect,
  ReadFigures,
} from "./summarise";
export { judgeIndex, type AmplificationJudgement, type IndexJudgement, type Judgement } from "./claims";
export { decide, costText, slowdownText, DECISIONS, type Decision, type DecisionKind } from "./decision";
export {
  showRun,
  showIndexTable,
  showDecisionTable,
  decisionRows,
  showCharts,
  showClaims,
  showExplanation,
  showSourceUsage,
  showStopped,
  indexRows,
} from "./present";
export { costRanking, tpsByRound, perSecond, readSlowdowns } from "./charts";

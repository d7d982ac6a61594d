/**
 * Notebook 03's public API (`lab.overIndexing.*`): run the rounds, summarise, check the seed's
 * claims, show and save the results.
 */
import type { ClaimCheck } from "../../stats/claims";
import { checkClaims as check } from "./claims";
import type { OverIndexingRun } from "./run";
import { summarise as summariseTrials, type OverIndexingSummary } from "./summarise";

export { run, serverSpec, type OverIndexingRun, type RunControl } from "./run";
export type { OverIndexingSummary, RoundSummary, LevelSummary } from "./summarise";
export { showRun, showLevelTable, showCharts, showSeedComparison, showClaims, showExplanation, showStatements, showStopped, writeSummaries } from "./present";
export { tpsByLevel, latencyByLevel, storageByLevel, perSecond, workPerTransaction } from "./charts";

/** The run's figures: per round and per level (medians over rounds, ratios to 7 indexes). */
export function summarise(run: OverIndexingRun): OverIndexingSummary {
  return summariseTrials(run.trials, run.params.durationSeconds, run.params.clients);
}

export function checkClaims(summary: OverIndexingSummary): ClaimCheck[] {
  return check(summary);
}

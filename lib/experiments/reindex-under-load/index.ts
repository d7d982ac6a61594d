/**
 * Notebook 04's public API (`lab.reindexUnderLoad.*`): run the sets, summarise, check the seed's
 * claims, show and save the results.
 */
import type { ClaimCheck } from "../../stats/claims";
import { checkClaims as check } from "./claims";

export { DECLARATIONS } from "./claims";
import type { ReindexUnderLoadRun } from "./run";
import { summarise as summariseTrials, type ReindexSummary } from "./summarise";

export { run, serverSpec, type ReindexUnderLoadRun, type RunControl } from "./run";
export type { ReindexSummary, RunSummary, ModeSummary } from "./summarise";
export { showRun, showRunTable, showCharts, showSeedComparison, showClaims, showWaits, showStatements, showStopped, writeSummaries } from "./present";
export { timeline, latencyTimeline, tpsBySet, updateLatencyBySet, waitShares } from "./charts";

/** The run's figures: per run and per mode (medians over sets, ratios to the baselines). */
export function summarise(run: ReindexUnderLoadRun): ReindexSummary {
  return summariseTrials(run.trials, run.params.durationSeconds, run.params.clients, run.metadata.host.cpus, run.params.scale);
}

export function checkClaims(summary: ReindexSummary): ClaimCheck[] {
  return check(summary);
}

/**
 * Notebook 05's public API (`lab.roundTrips.*`): run the experiment, summarise it, check the seed's
 * claims, write the summaries, and show each section.
 */
import type { RoundTripsParams } from "../../params/round-trips";
import { RunStore } from "../../results/run-store";
import type { ClaimCheck } from "../../stats/claims";
import type { RoundTripCondition } from "../../workloads/round-trips/trials";
import { writeSummaries } from "./export";
import { NOTEBOOK, runRoundTrips, type RoundTripsRun, type RunControl } from "./run";
import type { RoundTripsSummary } from "./summarise";

export { summarise } from "./summarise";
export type { RoundTripsSummary, CaseSummary, EnvironmentSummary, SweepSummary } from "./summarise";
export { checkClaims } from "./claims";
export type { RoundTripsRun, RunControl } from "./run";
export type { CalibrationRecord } from "./links";
export { loadRun } from "./load";
export {
  showRun,
  showCalibration,
  showRttTable,
  showAutocommitTable,
  showCommitTable,
  showCaseTable,
  showSweepTable,
  showCharts,
  showClaims,
  showExplanation,
  showClosingNote,
} from "./present";
export { elapsedVsRtt, commitLatencyBySyncLevel, autocommitVsOneTransaction } from "./charts";

/** Runs the experiment (servers started and stopped inside). */
export function run(params: RoundTripsParams, control: RunControl = {}): Promise<RoundTripsRun> {
  return runRoundTrips(params, control);
}

/** Writes summary.json and summary.csv into the run's folder; returns their paths. */
export function save(run: RoundTripsRun, summary: RoundTripsSummary, claims: readonly ClaimCheck[]): string[] {
  const store = RunStore.open<RoundTripCondition>({ notebook: NOTEBOOK, params: run.params, resumeId: run.runId });
  return writeSummaries(store, summary, claims);
}

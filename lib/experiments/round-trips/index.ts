/**
 * Notebook 05's experiment (`lab.roundTrips.*`): the contract's five steps (params, run, summarise,
 * claims, save), then one call per section of the notebook.
 */
import { ROUND_TRIPS_PROFILES, roundTripsParams, type RoundTripsParams } from "./params";
import { RunStore } from "../../results/run-store";
import { planText, type ClaimCheck } from "../../stats/claims";
import { register, type Experiment } from "../contract";
import type { FaultCells } from "../faults";
import { estimate } from "./eta";
import { CLAIMS, checkClaims, plan05 } from "./claims";
import type { RoundTripCondition } from "./workload/trials";
import { writeSummaries } from "./export";
import { NOTEBOOK, runRoundTrips, type RoundTripsRun, type RunControl } from "./run";
import { summarise as summariseRun, type RoundTripsSummary } from "./summarise";

export type { RoundTripsSummary, CaseSummary, EnvironmentSummary, SweepSummary } from "./summarise";
export { checkClaims, DECLARATIONS } from "./claims";
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

/** Writes summary.json and summary.csv into the run's folder; returns their paths. */
function saveRun(run: RoundTripsRun, summary: RoundTripsSummary, claims: readonly ClaimCheck[]): string[] {
  const store = RunStore.open<RoundTripCondition>({ notebook: NOTEBOOK, params: run.params, resumeId: run.runId });
  return writeSummaries(store, summary, claims);
}

/** The fault matrix's cells: the fault at this notebook's most exposed point, where it is most likely met. */
const faults: FaultCells = {
  overrides: [
    'environments=["local","quorum-same-az"]',
    'cases=["update_autocommit","update_one_transaction"]',
    "statements=300",
    'syncLevels=["on"]',
    "sweepStandbyRttsMs=[]",
  ],
  point: "quorum",
  cells: [
    { fault: "kill-9", target: "embedded", boundSeconds: 30 },
    // Passes; left out of the default selection to keep the matrix inside its time (~70 s more).
    { fault: "sigterm", target: "embedded", boundSeconds: 45, byName: true },
  ],
};

export const experiment: Experiment<RoundTripsParams, RoundTripsRun, RoundTripsSummary> = {
  id: "05",
  slug: NOTEBOOK,
  title: "Round trips and commit latency: autocommit vs one transaction, near and far",
  notebook: "notebooks/05-round-trips.ipynb",
  profiles: ROUND_TRIPS_PROFILES,
  params: (profile, overrides = {}) => roundTripsParams(profile, overrides),
  run: (params: RoundTripsParams, control: RunControl = {}) => runRoundTrips(params, control, planText(plan05(params))),
  summarise: (run) => summariseRun(run),
  // Claims (b) and (c external) carry their sensitivity to flagged repeats (withoutFlagged in claims.ts).
  claims: (summary, _run) => checkClaims(summary),
  save: saveRun,
  plan: plan05,
  claimSet: CLAIMS,
  estimate,
  faults,
};

export const { params, run, summarise, claims, save } = experiment;

/** The registry's view of it (lib/experiments/notebooks.ts lists the notebooks). */
export const registered = register(experiment);

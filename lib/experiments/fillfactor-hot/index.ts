/**
 * Notebook 07's experiment (`lab.fillfactorHot.*`): the contract's steps, then one call per
 * section of the notebook.
 */
import { register, type Experiment } from "../contract";
import type { FaultCells } from "../faults";
import { CLAIMS, checkClaims, plan07 } from "./claims";
import { diskNeed07 } from "./disk";
import { estimate } from "./eta";
import { writeSummaries } from "./export";
import { FILLFACTOR_HOT_PROFILES, fillfactorHotParams, type FillfactorHotParams } from "./params";
import { NOTEBOOK, runFillfactorHot, type FillfactorHotRun } from "./run";
import { summarise as summariseTrials, type ConditionSummary } from "./summarise";

/**
 * The fault matrix's cell: a SIGTERM while a statement of a trial runs (the pass's UPDATE, or the
 * load's INSERT). 50,000 rows: 8 trials of ~1 s each here, time for the matrix to find the point
 * after the first trial is on disk. Not yet run in the matrix.
 */
const faults: FaultCells = {
  overrides: ["rows=50000", "batchRows=5000"],
  point: "batch",
  cells: [{ fault: "sigterm", target: "embedded", boundSeconds: 45 }],
};

export const experiment: Experiment<FillfactorHotParams, FillfactorHotRun, ConditionSummary[]> = {
  id: "07",
  slug: NOTEBOOK,
  title: "fillfactor vs HOT: free page space, heap-only updates and what they save",
  notebook: `notebooks/${NOTEBOOK}.ipynb`,
  profiles: FILLFACTOR_HOT_PROFILES,
  params: (profile, overrides = {}) => fillfactorHotParams(profile, overrides),
  run: (params, control = {}) => runFillfactorHot(params, control),
  plan: plan07,
  claimSet: CLAIMS,
  estimate,
  faults,
  disk: diskNeed07,
  summarise: (run) => summariseTrials(run.trials),
  claims: (summary, run) => {
    const flagged = new Set(
      summary.flatMap((s) =>
        [...s.outlierRepeats, ...s.disturbedRepeats].map((r) => `${s.fillfactor}/${s.column}/${r}`),
      ),
    ).size;
    return checkClaims(summary, summariseTrials(run.trials, { withoutFlagged: true }), flagged);
  },
  save: (run, summary, claims) => writeSummaries(run, summary, claims),
};

export const { params, run, summarise, claims, save } = experiment;

/** The registry's view of it (lib/experiments/notebooks.ts lists the notebooks). */
export const registered = register(experiment);
export type { FillfactorHotRun } from "./run";
export type { ConditionSummary } from "./summarise";
export { checkClaims } from "./claims";
export { showRun, showSummaryTable, showCharts, showClaims, showExplanation } from "./present";

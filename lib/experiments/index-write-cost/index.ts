/**
 * Notebook 01's experiment (`lab.indexWriteCost.*`): the contract's five steps, then one call per
 * section of the notebook.
 */
import { diskNeed01 } from "./disk";
import { INDEX_WRITE_COST_PROFILES, indexWriteCostParams, type IndexWriteCostParams } from "./params";
import { register, type Experiment } from "../contract";
import type { FaultCells } from "../faults";
import { estimate } from "./eta";
import { CLAIMS, checkClaims, plan01 } from "./claims";
import { flaggedUnits } from "../../stats/claim-statistics";
import { writeSummaries } from "./export";
import { runIndexWriteCost, type IndexWriteCostRun } from "./run";
import { summarise as summariseTrials, type ConditionSummary } from "./summarise";

/** The fault matrix's cells: the fault at this notebook's most exposed point, where it is most likely met. */
const faults: FaultCells = {
  overrides: [
    'engines=["postgresql"]',
    "rowCounts=[20000]",
    "extraIndexes=[0,5]",
    'operations=["insert","update_one_field"]',
  ],
  point: "batch",
  cells: [
    { fault: "sigterm", target: "embedded", boundSeconds: 45 },
    { fault: "kill-9", target: "docker", boundSeconds: 30 },
  ],
};

export const experiment: Experiment<IndexWriteCostParams, IndexWriteCostRun, ConditionSummary[]> = {
  id: "01",
  slug: "01-index-write-cost",
  title: "Index write cost: secondary indexes vs INSERT/UPDATE time",
  notebook: "notebooks/01-index-write-cost.ipynb",
  profiles: INDEX_WRITE_COST_PROFILES,
  params: (profile, overrides = {}) => indexWriteCostParams(profile, overrides),
  run: (params, control = {}) => runIndexWriteCost(params, control),
  plan: plan01,
  estimate,
  faults,
  summarise: (run) => summariseTrials(run.trials),
  claims: (summary, run) => {
    const trials = summary.flatMap((s) =>
      [...new Set([...s.outlierRepeats, ...s.disturbedRepeats])].map((repeat) => ({ s, repeat })),
    );
    const flagged = flaggedUnits(
      "trial",
      trials,
      ({ s, repeat }) => [
        s.outlierRepeats.includes(repeat) ? "outlier" : "",
        s.disturbedRepeats.includes(repeat) ? "checkpoint or autovacuum in its window" : "",
      ],
      ({ s, repeat }) =>
        `${s.engine}/${s.rows}/${s.operation}/idx${s.extraIndexes}/ff${s.fillfactor ?? "-"}/r${repeat}`,
      "No trial was flagged (outlier, checkpoint or autovacuum in its window).",
    );
    const without = { summary: summariseTrials(run.trials, { withoutFlagged: true }), flagged };
    return checkClaims(summary, { unavailable: Object.fromEntries(run.unavailable) }, without);
  },
  claimSet: CLAIMS,
  disk: diskNeed01,
  save: (run, summary, claims) => writeSummaries(run, summary, claims),
};

export const { params, run, summarise, claims, save } = experiment;

/** The registry's view of it (lib/experiments/notebooks.ts lists the notebooks). */
export const registered = register(experiment);
export type { IndexWriteCostRun } from "./run";
export type { ConditionSummary } from "./summarise";
export { checkClaims } from "./claims";
export { showRun, showSummaryTable, showCharts, showSeedComparison, showClaims, showExplanation } from "./present";

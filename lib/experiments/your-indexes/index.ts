/** Notebook 06 (`lab.yourIndexes.*`): what do these indexes cost these writes, and what do they buy the reads? */
import type { ClaimCheck } from "../../stats/claims";
import { defineExperiment } from "../define";
import { asTheLabsQuestions, CLAIMS, claimsFor, withoutFlagged } from "./claims";
import { estimate } from "./eta";
import { checkParams, YOUR_INDEXES_PROFILES } from "./params";
import { decisionRows, indexRows, showSetup } from "./present";
import { readUnused, runRounds, serverSpec, summariseRun } from "./rounds";

export const experiment = defineExperiment({
  slug: "06-your-indexes",
  title: "Your indexes: what does each one cost your writes?",
  profiles: YOUR_INDEXES_PROFILES,
  check: checkParams,
  servers: (p) => [serverSpec(p)],
  before: readUnused,
  work: runRounds,
  summarise: summariseRun,
  claims: CLAIMS,
  claimsFor,
  claimsCaption:
    "Each judged index's three declared claims (two on throughput, one on write amplification), decided on this run",
  without: (_run, summary) => withoutFlagged(summary),
  csvRows: indexRows,
  moreCsv: (s) => ({ "decision.csv": decisionRows(s) }),
  showSetup,
  // The per-second series stay in trials.jsonl; the summary keeps every other figure.
  toJson: (s) => ({ ...s, runs: s.runs.map(({ series: _s, ...rest }) => rest) }),
  eta: estimate,
  // The smoke example (two indexes judged, two rounds of B V B V B) with 3-s runs, so the fault lands in one.
  faults: {
    overrides: ["durationSeconds=3"],
    point: "pgbench",
    cells: [
      { fault: "kill-9", target: "embedded", boundSeconds: 30 },
      { fault: "sigterm", target: "embedded", boundSeconds: 45 },
    ],
  },
});

export const { params, run, open, summarise, claims, save, registered, showRun } = experiment;

export const showClaims = (checks: readonly ClaimCheck[]): void => experiment.showClaims(asTheLabsQuestions(checks));

export type { YourIndexesRun } from "./rounds";
export type { YourIndexesSummary } from "./summarise";
export {
  showIndexTable,
  showDecisionTable,
  showCharts,
  showExplanation,
  showSourceUsage,
  showStopped,
} from "./present";

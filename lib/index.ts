/**
 * The lab's public API for notebooks: `import * as lab from "db-write-lab"` (package.json `exports`; from any
 * folder through the kernel's module path: lib/jupyter/kernel-spec.ts, docs/kernel.md).
 *
 * Folders: targets/ (where a database runs), engines/ (driver adapters), workloads/ (how a workload
 * is timed), results/ (what is recorded), stats/ (how results are summarised), display/ (how results
 * are shown), experiments/ (one folder per notebook: run, summarise, present), params/ (profiles).
 */
export type { ProfileName } from "./params/profiles";
export { PROFILES } from "./params/profiles";
export type { IndexWriteCostParams } from "./params/index-write-cost";

export { setupCharts, plot, chartHtml } from "./display/plotly";
export { showTable, toDataFrame, tableHtml } from "./display/table";
export { show, liveOutput } from "./display/output";
export { showParameters, showRunHeader } from "./display/run-header";
export { progressReporter } from "./display/progress";

export { spread } from "./stats/summary";
export type { ClaimCheck, Verdict, Declaration, Rule } from "./stats/claims";
export { medianInterval, intervalLabel } from "./stats/intervals";
export { publishedFigures } from "./results/reference";
export { RunStore } from "./results/run-store";

export { decideTarget, createTarget } from "./targets/select";
export type { StartedServer, ServerSpec, Target, TargetKind, Engine } from "./targets/types";
export { EmbeddedPostgresTarget } from "./targets/embedded/embedded-postgres";

export * as indexWriteCost from "./experiments/index-write-cost";

export type { CreateIndexAfterLoadParams } from "./params/create-index-after-load";
export * as createIndexAfterLoad from "./experiments/create-index-after-load";
export type { OverIndexingParams } from "./params/over-indexing";
export * as overIndexing from "./experiments/over-indexing";
export type { ReindexUnderLoadParams } from "./params/reindex-under-load";
export * as reindexUnderLoad from "./experiments/reindex-under-load";
export type { RoundTripsParams } from "./params/round-trips";
export * as roundTrips from "./experiments/round-trips";

// Comparing stored runs (notebook 00, `npm run compare`, `npm run runs`).
export type { CompareRunsParams } from "./compare/params";
export { compareRunsParams } from "./compare/params";
export type { Comparison, CompareOptions } from "./compare/compare";
export { compareRuns } from "./compare/compare";
export { compare } from "./compare/present";
export * as compareView from "./compare/present";
export { listRuns } from "./results/stored-runs";

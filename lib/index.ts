/**
 * The lab's public API for notebooks: `import * as lab from "db-write-lab"` (package.json `exports`; from any
 * folder through the kernel's module path: lib/jupyter/kernel-spec.ts, docs/kernel.md).
 *
 * Folders: targets/ (where a database runs), engines/ (driver adapters), workloads/ (how a workload
 * is timed), results/ (what is recorded), stats/ (how results are summarised), display/ (how results
 * are shown), experiments/ (one folder per notebook: run, summarise, present), params/ (profiles).
 */
// Only what notebook cells call and the types they name: the rest of lib/ is imported by path
// inside the project (scripts, tests), so it can change without breaking a notebook.
export type { ProfileName } from "./params/profiles";
export { plot, setupCharts } from "./display/plotly";
export type { PlotlyFigure, PlotlyTrace } from "./display/plotly";
export { showParameters } from "./display/run-header";

export type { IndexWriteCostParams } from "./experiments/index-write-cost/params";
export { showTable } from "./display/table";
export { showVerdictSummary } from "./display/claims";
export { frame } from "./display/frame";
// The frame's types by name, for cells to annotate with: tslab keeps a cell's top-level bindings by
// emitting their declarations, and from a notebook outside the project an inferred danfo type has
// no name it can emit ("cannot be named without a reference to db-write-lab/node_modules/…").
export type { DataFrame as Frame } from "danfojs-node";
export type { DataFrame as FrameView } from "danfojs-node/dist/danfojs-base";

export * as indexWriteCost from "./experiments/index-write-cost";
export type { CreateIndexAfterLoadParams } from "./experiments/create-index-after-load/params";
export * as createIndexAfterLoad from "./experiments/create-index-after-load";
export type { OverIndexingParams } from "./experiments/over-indexing/params";
export * as overIndexing from "./experiments/over-indexing";
export type { ReindexUnderLoadParams } from "./experiments/reindex-under-load/params";
export * as reindexUnderLoad from "./experiments/reindex-under-load";
export type { RoundTripsParams } from "./experiments/round-trips/params";
export * as roundTrips from "./experiments/round-trips";
export type { YourIndexesParams } from "./experiments/your-indexes/params";
export * as yourIndexes from "./experiments/your-indexes";

// Comparing stored runs (notebook 00).
export type { CompareRunsParams } from "./compare/params";
export { compareRunsParams } from "./compare/params";
export { compareRuns } from "./compare/compare";
export * as compareView from "./compare/present";

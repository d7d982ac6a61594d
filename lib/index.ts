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

export { showTable } from "./display/table";
export { showVerdictSummary } from "./display/claims";
export { frame } from "./display/frame";
// The frame's types by name, for cells to annotate with: tslab keeps a cell's top-level bindings by
// emitting their declarations, and from a notebook outside the project an inferred danfo type has
// no name it can emit ("cannot be named without a reference to db-write-lab/node_modules/…").
export type { DataFrame as Frame } from "danfojs-node";
export type { DataFrame as FrameView } from "danfojs-node/dist/danfojs-base";

// Each notebook's namespace and parameters type (lab.indexWriteCost, IndexWriteCostParams, …).
export * from "./experiments/notebooks";

// Comparing stored runs (notebook 00).
export type { CompareRunsParams } from "./compare/params";
export { compareRunsParams } from "./compare/params";
export { compareRuns } from "./compare/compare";
export * as compareView from "./compare/present";

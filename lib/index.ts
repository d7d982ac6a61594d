/** The lab's public API for notebooks: `import * as lab from "db-write-lab"` (docs/kernel.md). */
// Only what notebook cells call and the types they name; the rest of lib/ may change without breaking a notebook.
export type { ProfileName } from "./params/profiles";
export { plot, setupCharts } from "./display/plotly";
export type { PlotlyFigure, PlotlyTrace } from "./display/plotly";
export { showParameters } from "./display/run-header";

export { showTable } from "./display/table";
export { showVerdictSummary } from "./display/claims";
export { frame, showGrouped } from "./display/frame";
// The frame's types by name: tslab re-emits a cell's top-level declarations, and an inferred danfo
// type from outside the project "cannot be named without a reference to db-write-lab/node_modules/…".
export type { DataFrame as Frame } from "danfojs-node";
export type { DataFrame as FrameView } from "danfojs-node/dist/danfojs-base";

export * from "./experiments/notebooks";

export type { CompareRunsParams } from "./compare/params";
export { compareRunsParams } from "./compare/params";
export { compareRuns } from "./compare/compare";
export * as compareView from "./compare/present";

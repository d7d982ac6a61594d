/**
 * Adding a notebook is its two lines here (docs/adding-a-notebook.md); registry.ts derives the rest. The
 * second line is the notebook's declared parameters (value and type): `--help` and docs/parameters.md read them.
 */
export * as indexWriteCost from "./index-write-cost";
export * as createIndexAfterLoad from "./create-index-after-load";
export * as overIndexing from "./over-indexing";
export * as reindexUnderLoad from "./reindex-under-load";
export * as roundTrips from "./round-trips";
export * as yourIndexes from "./your-indexes";
export * as fillfactorHot from "./fillfactor-hot";
export * as indexTypes from "./index-types";
export { IndexWriteCostParams } from "./index-write-cost/params";
export { CreateIndexAfterLoadParams } from "./create-index-after-load/params";
export { OverIndexingParams } from "./over-indexing/params";
export { ReindexUnderLoadParams } from "./reindex-under-load/params";
export { RoundTripsParams } from "./round-trips/params";
export { YourIndexesParams } from "./your-indexes/params";
export { FillfactorHotParams } from "./fillfactor-hot/params";
export { IndexTypesParams } from "./index-types/params";

/** Adding a notebook is its two lines here (docs/adding-a-notebook.md); registry.ts derives the rest. */
export * as indexWriteCost from "./index-write-cost";
export * as createIndexAfterLoad from "./create-index-after-load";
export * as overIndexing from "./over-indexing";
export * as reindexUnderLoad from "./reindex-under-load";
export * as roundTrips from "./round-trips";
export * as yourIndexes from "./your-indexes";
export * as fillfactorHot from "./fillfactor-hot";
export * as indexTypes from "./index-types";
export type { IndexWriteCostParams } from "./index-write-cost/params";
export type { CreateIndexAfterLoadParams } from "./create-index-after-load/params";
export type { OverIndexingParams } from "./over-indexing/params";
export type { ReindexUnderLoadParams } from "./reindex-under-load/params";
export type { RoundTripsParams } from "./round-trips/params";
export type { YourIndexesParams } from "./your-indexes/params";
export type { FillfactorHotParams } from "./fillfactor-hot/params";
export type { IndexTypesParams } from "./index-types/params";

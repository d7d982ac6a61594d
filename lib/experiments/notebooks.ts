/**
 * The notebooks the lab has: each one's namespace (`lab.<name>.…` in a notebook, `lib/index.ts`)
 * and its parameters' type. The registry (registry.ts) derives `npm run reproduce`, the parameter
 * checks, the ETA and the tests from this list: adding a notebook is its two lines here (see
 * docs/adding-a-notebook.md).
 */
export * as indexWriteCost from "./index-write-cost";
export type { IndexWriteCostParams } from "./index-write-cost/params";
export * as createIndexAfterLoad from "./create-index-after-load";
export type { CreateIndexAfterLoadParams } from "./create-index-after-load/params";
export * as overIndexing from "./over-indexing";
export type { OverIndexingParams } from "./over-indexing/params";
export * as reindexUnderLoad from "./reindex-under-load";
export type { ReindexUnderLoadParams } from "./reindex-under-load/params";
export * as roundTrips from "./round-trips";
export type { RoundTripsParams } from "./round-trips/params";
export * as yourIndexes from "./your-indexes";
export type { YourIndexesParams } from "./your-indexes/params";
export * as fillfactorHot from "./fillfactor-hot";
export type { FillfactorHotParams } from "./fillfactor-hot/params";
export * as indexTypes from "./index-types";
export type { IndexTypesParams } from "./index-types/params";

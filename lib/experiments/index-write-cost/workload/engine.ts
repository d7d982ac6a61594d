/**
 * What the index-write-cost workload asks of a database engine. The engine adapters
 * (lib/engines/…) own every driver detail; the workload never builds SQL or BSON itself.
 */
import type { SpeedProbe } from "../../../stats/speed";
import type { Engine } from "../../../targets/types";
import type { Dataset } from "./dataset";
import type { Field, UpdateOperation } from "./operations";

import type { Counters } from "../../../stats/counters";
import type { IndexWriteCounterKey, WalRecordKey } from "./counter-keys";
export { counterDelta } from "../../../stats/counters";

/**
 * Whether an engine's table has a heap fillfactor this workload can sweep (PostgreSQL's HOT needs
 * free page space; a MongoDB collection has no such setting): the plan and the claims read it.
 */
export const HEAP_FILLFACTOR: Readonly<Record<Engine, boolean>> = { postgresql: true, mongodb: false };

export interface IndexWriteEngine {
  readonly engine: Engine;
  /**
   * True where recreate, load and createIndexes run on a session of their own, so they may run
   * while writtenBetween counts the previous window (the next trial's table set up meanwhile).
   */
  readonly setupBesideCount?: boolean;
  /** Drops and recreates the table or collection, empty. `fillfactor` applies where the engine has one. */
  recreate(options: { readonly fillfactor: number }): Promise<void>;
  /** Untimed bulk load of every row (COPY / unordered insertMany). */
  load(dataset: Dataset): Promise<void>;
  /** Untimed: one single-field index per field. */
  createIndexes(fields: readonly Field[]): Promise<void>;
  /** Timed unit: rows [start, end) as one driver call of single-row inserts. */
  insertBatch(dataset: Dataset, start: number, end: number): Promise<void>;
  /** Timed unit: the rows at updateOrder[start..end) as one driver call of single-row updates. */
  updateBatch(dataset: Dataset, operation: UpdateOperation, start: number, end: number): Promise<void>;
  /** Counters that explain the time (tuples, HOT updates, WAL, buffers, index sizes). */
  counters(): Promise<Counters<IndexWriteCounterKey>>;
  /**
   * Untimed, just before the timed part: bring the server to the same state for every trial
   * (PostgreSQL: CHECKPOINT, then wait until no autovacuum worker runs), so that no trial pays for
   * its predecessor's dirty pages. Engines without such a step leave it out.
   */
  quiesce?(): Promise<void>;
  /**
   * The machine's write-path speed state (lib/engines/postgres/speed-probe.ts), measured once per
   * `key` (one repeat's trials share it: each takes a second or two, the probe a tenth of one).
   */
  speed?(key: string): Promise<SpeedProbe | undefined>;
  /**
   * Untimed, after the timed part: what the server wrote between two counter snapshots, measured
   * rather than modelled (PostgreSQL: WAL records by resource manager and type, from pg_walinspect),
   * as counters named `walrec.<type>`. Undefined where the engine or server cannot say.
   */
  writtenBetween?(
    before: Counters<IndexWriteCounterKey>,
    after: Counters<IndexWriteCounterKey>,
  ): Promise<Counters<WalRecordKey> | undefined>;
  close(): Promise<void>;
}

/**
 * What the index-write-cost workload asks of a database engine. The engine adapters
 * (lib/engines/…) own every driver detail; the workload never builds SQL or BSON itself.
 */
import type { Engine } from "../../targets/types";
import type { Dataset } from "./dataset";
import type { Field, UpdateOperation } from "./operations";

/** Server-side counters as flat name → number; a trial records after − before. */
export type CounterSnapshot = Readonly<Record<string, number>>;

export interface IndexWriteEngine {
  readonly engine: Engine;
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
  counters(): Promise<CounterSnapshot>;
  close(): Promise<void>;
}

export function counterDelta(before: CounterSnapshot, after: CounterSnapshot): Record<string, number> {
  const delta: Record<string, number> = {};
  for (const [key, value] of Object.entries(after)) {
    // Sizes are levels, not counters: keep the value after the trial.
    delta[key] = key.startsWith("size.") ? value : value - (before[key] ?? 0);
  }
  return delta;
}

/** What the workload asks of a database engine; the adapters own every driver detail. */
import type { SpeedProbe } from "../../../stats/speed";
import type { Engine } from "../../../targets/types";
import type { Dataset } from "./dataset";
import type { Field, UpdateOperation } from "./operations";

import type { Counters } from "../../../stats/counters";
import type { IndexWriteCounterKey, WalRecordKey } from "./counter-keys";
export { counterDelta } from "../../../stats/counters";

/** Whether an engine's table has a heap fillfactor to sweep (PostgreSQL's HOT needs free page space). */
export const HEAP_FILLFACTOR: Readonly<Record<Engine, boolean>> = { postgresql: true, mongodb: false };

export interface IndexWriteEngine {
  readonly engine: Engine;
  /** True where the setup runs on a session of its own, beside writtenBetween's count of the last window. */
  readonly setupBesideCount?: boolean;
  /** Untimed: drops and recreates the table, empty, at `fillfactor` where the engine has one. */
  recreate(options: { readonly fillfactor: number }): Promise<void>;
  load(dataset: Dataset): Promise<void>;
  createIndexes(fields: readonly Field[]): Promise<void>;
  /** Timed unit: rows [start, end) as one driver call of single-row inserts. */
  insertBatch(dataset: Dataset, start: number, end: number): Promise<void>;
  /** Timed unit: the rows at updateOrder[start..end) as one driver call of single-row updates. */
  updateBatch(dataset: Dataset, operation: UpdateOperation, start: number, end: number): Promise<void>;
  counters(): Promise<Counters<IndexWriteCounterKey>>;
  /** Untimed, before the timed part: the same server state for every trial (PostgreSQL: CHECKPOINT, no autovacuum). */
  quiesce?(): Promise<void>;
  /** The machine's write-path speed, measured once per `key` (a repeat). */
  speed?(key: string): Promise<SpeedProbe | undefined>;
  /** Untimed: WAL records between two snapshots by type (`walrec.<type>`), where the server can say. */
  writtenBetween?(
    before: Counters<IndexWriteCounterKey>,
    after: Counters<IndexWriteCounterKey>,
  ): Promise<Counters<WalRecordKey> | undefined>;
  close(): Promise<void>;
}

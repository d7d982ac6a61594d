/** What the workload asks of a database engine, the rows it hands it and the counters it reads back. */
import prand from "pure-rand";
import type { SpeedProbe } from "../../../stats/speed";
import type { Engine } from "../../../targets/types";
import { keyGuard, type Counters } from "../../../stats/counters";
import { ONE_TABLE_COUNTER_SQL } from "../../../engines/postgres/one-table-counters";
import type { WalRecordKey } from "../../../engines/postgres/wal-records";
import type { MONGO_COLLECTION_LEVELS, MONGO_OPCOUNTERS, MongoWtCounter } from "../../../engines/mongodb/counters";
import { FIELD_COUNT, type Field, type UpdateOperation } from "./operations";

/** Whether an engine's table has a heap fillfactor to sweep (PostgreSQL's HOT needs free page space). */
export const HEAP_FILLFACTOR: Readonly<Record<Engine, boolean>> = { postgresql: true, mongodb: false };

export interface IndexWriteEngine {
  readonly engine: Engine;
  /** True where the setup runs on a session of its own, beside writtenBetween's count of the last window. */
  readonly setupBesideCount?: boolean;
  /** Untimed: drops and recreates the table, empty, at `fillfactor` where the engine has one; no index yet. */
  recreate(options: { readonly fillfactor: number }): Promise<void>;
  load(dataset: Dataset): Promise<void>;
  /** Untimed: the primary key where the engine builds one, then one single-field index per field. */
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

/** Seed 000's rows (id from 1, counter 0, field1..5 pseudo-random) and update order, a function of (rows, seed). */
export interface Dataset {
  readonly rows: number;
  readonly seed: number;
  /** fields[f][i]: field(f+1) of row id i+1, an integer in [0, 2^53) (exact as a JS number, a valid int64). */
  readonly fields: readonly Float64Array[];
  /** Row positions (id - 1) in the order updates address them. */
  readonly updateOrder: Uint32Array;
}

export function makeDataset(rows: number, seed: number): Dataset {
  const rng = prand.xoroshiro128plus(seed);
  const fields = Array.from({ length: FIELD_COUNT }, () => new Float64Array(rows));
  for (let i = 0; i < rows; i++) {
    for (let f = 0; f < FIELD_COUNT; f++) {
      // Two 32-bit draws make one 53-bit value (the high draw masked to 21 bits).
      const high = rng.unsafeNext() & 0x1fffff;
      const low = rng.unsafeNext() >>> 0;
      fields[f][i] = high * 2 ** 32 + low;
    }
  }
  // Its own stream, so the field generator never changes it; Fisher–Yates (pure-rand has no shuffle).
  const orderRng = prand.xoroshiro128plus(seed ^ 0x5eed);
  const updateOrder = new Uint32Array(rows);
  for (let i = 0; i < rows; i++) updateOrder[i] = i;
  for (let i = rows - 1; i > 0; i--) {
    const j = prand.unsafeUniformIntDistribution(0, i, orderRng);
    [updateOrder[i], updateOrder[j]] = [updateOrder[j], updateOrder[i]];
  }
  return { rows, seed, fields, updateOrder };
}

export function* batchRanges(rows: number, batchSize: number): Generator<[number, number]> {
  for (let start = 0; start < rows; start += batchSize) yield [start, Math.min(rows, start + batchSize)];
}

/** PostgreSQL's table counters (SQL value and FROM each), and the table's size. */
export const PG_TABLE_COUNTER_SQL = {
  ...ONE_TABLE_COUNTER_SQL,
  "size.table": ["pg_relation_size($1::regclass)::text", ""],
} as const;
type PgTableCounter = keyof typeof PG_TABLE_COUNTER_SQL;

/** Each index's size (a level, not a counter); WalRecordKey: the WAL records of the timed window by type. */
type IndexSizeKey = `size.index.${string}`;

export type PgIndexWriteCounterKey = PgTableCounter | IndexSizeKey | "server.statement_ms";
export const isPgIndexWriteCounterKey = keyGuard<PgIndexWriteCounterKey>(
  [...(Object.keys(PG_TABLE_COUNTER_SQL) as PgTableCounter[]), "server.statement_ms"],
  [{ prefix: "size.index." }],
);

export type MongoCounterKey =
  | MongoWtCounter
  | `mongo.opcounters.${(typeof MONGO_OPCOUNTERS)[number]}`
  | (typeof MONGO_COLLECTION_LEVELS)[number]
  | IndexSizeKey
  | `mongo.index.${string}.inserts`;

/** The counters a trial records, by engine: the adapters write them and the summary reads them by these names. */
export type IndexWriteCounterKey = PgIndexWriteCounterKey | WalRecordKey | MongoCounterKey;

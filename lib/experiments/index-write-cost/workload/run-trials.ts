/**
 * How a trial of seed 000 is timed: fresh table per trial, untimed setup (load, indexes), then the
 * sum of per-batch driver-call durations (hrtime), raw durations kept; counters around the timed part.
 */
import type { Engine } from "../../../targets/types";
import type { RunStore, TrialRecord } from "../../../results/run-store";
import { batchRanges, makeDataset, type Dataset } from "./dataset";
import { counterDelta, HEAP_FILLFACTOR, type IndexWriteEngine } from "./engine";
import type { IndexWriteCounterKey } from "./counter-keys";
import { indexedFields, type Operation } from "./operations";
import { orderSeed, seededShuffle } from "../../../stats/order";
import { ignored } from "../../../runtime/debug";
import { runTrials, type OrderedTrial } from "../../../workloads/trials";

export interface IndexWriteCondition {
  readonly engine: Engine;
  readonly rows: number;
  readonly extraIndexes: number;
  readonly operation: Operation;
  /** PostgreSQL heap fillfactor; null for engines without one. */
  readonly fillfactor: number | null;
}

/** Its counters are its engine adapter's (counter-keys.ts). */
export type IndexWriteTrial = TrialRecord<IndexWriteCondition, IndexWriteCounterKey> & TrialPhases;

/**
 * Where an ok trial's wall outside its timed batches went, seconds (the run's time account sums them
 * by name): the machine's speed probe, the table's (collection's) recreation, its load (update
 * trials), the index builds, the quiescing (PostgreSQL: CHECKPOINT and the autovacuum wait), the
 * counters read around the batches, the window's WAL counted.
 */
export interface TrialPhases {
  readonly speedSeconds?: number;
  readonly recreateSeconds?: number;
  readonly loadSeconds?: number;
  readonly indexSeconds?: number;
  readonly quiesceSeconds?: number;
  readonly countersSeconds?: number;
  readonly walRecordsSeconds?: number;
}

const since = (t0: bigint) => Number(process.hrtime.bigint() - t0) / 1e9;

export interface TrialPlanOptions {
  readonly engines: readonly Engine[];
  readonly rowCounts: readonly number[];
  /** Sizes that run only GROWTH_OPERATIONS × GROWTH_INDEXES (claim (b)'s conditions), after `rowCounts`. */
  readonly growthRows?: readonly number[];
  readonly extraIndexes: readonly number[];
  readonly operations: readonly Operation[];
  readonly fillfactors: readonly number[];
  readonly repeats: number;
  /** Seeds each repeat's condition order. */
  readonly seed: number;
}

export type PlannedTrial = OrderedTrial<IndexWriteCondition>;

export function conditionKey(c: IndexWriteCondition): string {
  return `${c.engine}/${c.rows}/${c.operation}/idx${c.extraIndexes}/ff${c.fillfactor ?? "-"}`;
}

/**
 * The trial order: sizes in blocks (one data set in memory at a time), repeats inside a block, and
 * within each repeat every condition of that size in an order of its own, shuffled with a seed
 * drawn from the run's seed and the repeat. The seed's harness ran 0 → 1 → 5 indexes and INSERT →
 * updates in the same order every time, which lands slow drift (WAL growth, the page cache, the
 * machine's other work) on the last conditions; a shuffled order spreads it over all of them, and
 * the pairing of conditions within a repeat keeps it out of their ratios.
 */
/** Claim (b)'s conditions: R = t(5 idx)/t(0 idx) of INSERT and of the 5-field UPDATE. */
export const GROWTH_OPERATIONS: readonly Operation[] = ["insert", "update_five_fields"];
export const GROWTH_INDEXES: readonly number[] = [0, 5];

export function planTrials(o: TrialPlanOptions): PlannedTrial[] {
  const plan: PlannedTrial[] = [];
  const growth = (o.growthRows ?? []).filter((n) => !o.rowCounts.includes(n));
  for (const [engineIndex, engine] of o.engines.entries()) {
    const fillfactors = HEAP_FILLFACTOR[engine] ? o.fillfactors : [null];
    for (const rows of [...o.rowCounts, ...growth]) {
      const conditions: IndexWriteCondition[] = [];
      if (growth.includes(rows)) {
        for (const operation of o.operations.filter((op) => GROWTH_OPERATIONS.includes(op)))
          for (const extraIndexes of o.extraIndexes.filter((n) => GROWTH_INDEXES.includes(n)))
            conditions.push({ engine, rows, extraIndexes, operation, fillfactor: fillfactors[0] });
      } else
        for (const fillfactor of fillfactors) {
          // Extra fillfactors are a sweep for the non-indexed update (HOT needs free space on the
          // page); the other operations are measured at the first fillfactor only.
          const operations =
            fillfactor === fillfactors[0] ? o.operations : o.operations.filter((op) => op === "update_nonindexed");
          for (const operation of operations) {
            for (const extraIndexes of o.extraIndexes)
              conditions.push({ engine, rows, extraIndexes, operation, fillfactor });
          }
        }
      for (let repeat = 1; repeat <= o.repeats; repeat++) {
        for (const condition of seededShuffle(conditions, orderSeed(o.seed, repeat, engineIndex * 1_000_003 + rows))) {
          plan.push({ key: `${conditionKey(condition)}/r${repeat}`, condition, repeat, position: plan.length });
        }
      }
    }
  }
  return plan;
}

function elapsedMs(start: bigint): number {
  return Number(process.hrtime.bigint() - start) / 1e6;
}

/** Runs one trial on a fresh table; returns the record (status "ok"), or throws. */
export async function runTrial(
  db: IndexWriteEngine,
  dataset: Dataset,
  planned: PlannedTrial,
  batchSize: number,
  signal?: AbortSignal,
): Promise<IndexWriteTrial> {
  const startedAt = new Date().toISOString();
  const { condition } = planned;
  const fields = indexedFields(condition.extraIndexes);
  let t = process.hrtime.bigint();
  const speed = await db.speed?.(`repeat ${planned.repeat}`);
  const speedSeconds = since(t);
  t = process.hrtime.bigint();
  await db.recreate({ fillfactor: condition.fillfactor ?? 100 });
  const recreateSeconds = since(t);
  t = process.hrtime.bigint();
  if (condition.operation !== "insert") await db.load(dataset);
  const loadSeconds = since(t);
  t = process.hrtime.bigint();
  await db.createIndexes(fields);
  const indexSeconds = since(t);
  t = process.hrtime.bigint();
  await db.quiesce?.();
  const quiesceSeconds = since(t);
  t = process.hrtime.bigint();
  const before = await db.counters();
  let countersSeconds = since(t);
  const unitMs: number[] = [];
  for (const [start, end] of batchRanges(dataset.rows, batchSize)) {
    signal?.throwIfAborted();
    const t0 = process.hrtime.bigint();
    if (condition.operation === "insert") await db.insertBatch(dataset, start, end);
    else await db.updateBatch(dataset, condition.operation, start, end);
    unitMs.push(elapsedMs(t0));
  }
  t = process.hrtime.bigint();
  const after = await db.counters();
  countersSeconds += since(t);
  t = process.hrtime.bigint();
  const written = await db.writtenBetween?.(before, after);
  const walRecordsSeconds = since(t);
  return {
    key: planned.key,
    condition,
    repeat: planned.repeat,
    position: planned.position,
    status: "ok",
    seconds: unitMs.reduce((a, b) => a + b, 0) / 1000,
    unitMs: unitMs.map((ms) => Math.round(ms * 1000) / 1000),
    counters: { ...counterDelta(before, after), ...written },
    startedAt,
    finishedAt: new Date().toISOString(),
    ...(speed ? { speed } : {}),
    speedSeconds,
    recreateSeconds,
    loadSeconds,
    indexSeconds,
    quiesceSeconds,
    countersSeconds,
    walRecordsSeconds,
  };
}

export interface RunOptions {
  readonly plan: readonly PlannedTrial[];
  readonly batchSize: number;
  readonly seed: number;
  readonly store: RunStore<IndexWriteCondition>;
  /** Opens the engine adapter for a condition's engine (one open adapter per engine at a time). */
  readonly open: (engine: Engine) => Promise<IndexWriteEngine>;
  readonly onTrial?: (
    done: number,
    total: number,
    trial: IndexWriteTrial | undefined,
    next: PlannedTrial | undefined,
  ) => void;
  /** Go on with the next trial after a failed one instead of stopping the run. */
  readonly continueOnError?: boolean;
  readonly signal?: AbortSignal;
}

/**
 * Runs the plan through `runTrials` (resume, watchdog, failure record, store): each trial on its
 * engine's adapter, opened on first use and dropped after a failure (its connection may be dead).
 */
export async function runPlan(options: RunOptions): Promise<IndexWriteTrial[]> {
  const datasets = new Map<number, Dataset>();
  const adapters = new Map<Engine, IndexWriteEngine>();
  const datasetFor = (rows: number): Dataset => {
    let loaded = datasets.get(rows);
    if (!loaded) {
      datasets.clear(); // one size in memory at a time: 1M rows are ~50 MB
      loaded = makeDataset(rows, options.seed);
      datasets.set(rows, loaded);
    }
    return loaded;
  };
  const adapterFor = async (engine: Engine): Promise<IndexWriteEngine> => {
    let db = adapters.get(engine);
    if (!db) {
      db = await options.open(engine);
      adapters.set(engine, db);
    }
    return db;
  };
  try {
    return await runTrials(
      options.plan,
      async (planned) =>
        runTrial(
          await adapterFor(planned.condition.engine),
          datasetFor(planned.condition.rows),
          planned,
          options.batchSize,
          options.signal,
        ),
      {
        store: options.store,
        signal: options.signal,
        continueOnError: options.continueOnError,
        watch: (planned) => ({
          engine: planned.condition.engine,
          what: `trial ${planned.key}`,
          group: conditionKey(planned.condition),
        }),
        afterFailure: async (planned) => {
          const engine = planned.condition.engine;
          const db = adapters.get(engine);
          adapters.delete(engine);
          await db?.close();
        },
        onProgress: ({ done, total, last, next }) => options.onTrial?.(done, total, last, next),
      },
    );
  } finally {
    for (const db of adapters.values()) await db.close().catch(ignored("index-write-cost: close an adapter"));
  }
}

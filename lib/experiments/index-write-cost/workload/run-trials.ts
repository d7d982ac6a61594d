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

/** Where an ok trial's wall outside its timed batches went, seconds (the run's time account sums them by name). */
export interface TrialPhases {
  readonly speedSeconds?: number;
  readonly recreateSeconds?: number;
  readonly loadSeconds?: number;
  readonly indexSeconds?: number;
  /** The next trial's table set up while this one's WAL was counted (that trial then records no setup). */
  readonly nextSetupSeconds?: number;
  readonly quiesceSeconds?: number;
  readonly countersSeconds?: number;
  readonly walRecordsSeconds?: number;
}

const since = (t0: bigint) => Number(process.hrtime.bigint() - t0) / 1e9;
/** `f`'s result and its seconds. */
async function timed<T>(f: () => Promise<T> | T): Promise<[T, number]> {
  const t0 = process.hrtime.bigint();
  const result = await f();
  return [result, since(t0)];
}

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
  /** Where the next trial's table can be set up during this one's WAL count (engines with a loader session). */
  ahead?: SetUpAhead,
  next?: { readonly planned: PlannedTrial; readonly dataset: Dataset },
): Promise<IndexWriteTrial> {
  const startedAt = new Date().toISOString();
  const { condition } = planned;
  const [speed, speedSeconds] = await timed(() => db.speed?.(`repeat ${planned.repeat}`));
  // The trial before set this table up while it counted its WAL (the same statements, on the same
  // server; nothing ran on the table since): else it is set up now.
  const setUp = ahead?.take(db, planned, dataset) ? undefined : await setUpTable(db, planned, dataset);
  const [, quiesceSeconds] = await timed(() => db.quiesce?.());
  const [before, beforeSeconds] = await timed(() => db.counters());
  const unitMs: number[] = [];
  for (const [start, end] of batchRanges(dataset.rows, batchSize)) {
    signal?.throwIfAborted();
    const t0 = process.hrtime.bigint();
    if (condition.operation === "insert") await db.insertBatch(dataset, start, end);
    else await db.updateBatch(dataset, condition.operation, start, end);
    unitMs.push(elapsedMs(t0));
  }
  const [after, afterSeconds] = await timed(() => db.counters());
  const countersSeconds = beforeSeconds + afterSeconds;
  // The counters are read: from here this trial reads only the WAL it held, so the next trial's
  // table (a fresh one, this one dropped) is set up meanwhile on the adapter's loader session.
  const t = process.hrtime.bigint();
  let walRecordsSeconds = 0;
  const [written, nextSetupSeconds] = await Promise.all([
    Promise.resolve(db.writtenBetween?.(before, after)).finally(() => (walRecordsSeconds = since(t))),
    ahead && next && !signal?.aborted ? ahead.setUp(db, next.planned, next.dataset) : Promise.resolve(undefined),
  ]);
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
    ...setUp,
    ...(nextSetupSeconds !== undefined ? { nextSetupSeconds } : {}),
    quiesceSeconds,
    countersSeconds,
    walRecordsSeconds,
  };
}

/** A trial's table as its condition asks: recreated at its fillfactor, loaded (update trials), indexed. */
async function setUpTable(
  db: IndexWriteEngine,
  planned: PlannedTrial,
  dataset: Dataset,
): Promise<{ recreateSeconds: number; loadSeconds: number; indexSeconds: number }> {
  const { condition } = planned;
  const [, recreateSeconds] = await timed(() => db.recreate({ fillfactor: condition.fillfactor ?? 100 }));
  const [, loadSeconds] = await timed(() => (condition.operation === "insert" ? undefined : db.load(dataset)));
  const [, indexSeconds] = await timed(() => db.createIndexes(indexedFields(condition.extraIndexes)));
  return { recreateSeconds, loadSeconds, indexSeconds };
}

/** What makes a table: its engine, rows, fillfactor, whether it is loaded, its indexes. */
const tableShape = (p: PlannedTrial) => {
  const c = p.condition;
  return `${c.engine}/${c.rows}/${c.fillfactor ?? 100}/${c.operation === "insert" ? "empty" : "loaded"}/${c.extraIndexes}`;
};

/**
 * The next trial's table set up ahead, on an adapter whose setup runs on a session of its own
 * (`setupBesideCount`), and taken by that trial if it is the one it was made for on that adapter.
 */
export class SetUpAhead {
  private made: { readonly db: IndexWriteEngine; readonly shape: string; readonly dataset: Dataset } | undefined;

  /** Sets up `planned`'s table on `db` if the adapter allows it beside a WAL count; its seconds, or undefined. */
  async setUp(db: IndexWriteEngine, planned: PlannedTrial, dataset: Dataset): Promise<number | undefined> {
    this.made = undefined;
    if (!db.setupBesideCount || planned.condition.engine !== db.engine) return undefined;
    const t0 = process.hrtime.bigint();
    await setUpTable(db, planned, dataset);
    this.made = { db, shape: tableShape(planned), dataset };
    return since(t0);
  }

  /** True if the table on `db` was set up for a trial like `planned`, on the same data; it is then used up. */
  take(db: IndexWriteEngine, planned: PlannedTrial, dataset: Dataset): boolean {
    const made = this.made;
    this.made = undefined;
    return made !== undefined && made.db === db && made.shape === tableShape(planned) && made.dataset === dataset;
  }

  forget(): void {
    this.made = undefined;
  }
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
  // The trial after each that this run will run (a resumed run skips those already on disk).
  const finished = options.store.finishedKeys();
  const todo = options.plan.filter((p) => !finished.has(p.key));
  const ahead = new SetUpAhead();
  try {
    return await runTrials(
      options.plan,
      async (planned) => {
        const db = await adapterFor(planned.condition.engine);
        const dataset = datasetFor(planned.condition.rows);
        const i = todo.findIndex((p) => p.key === planned.key);
        const nextPlanned = i < 0 ? undefined : todo[i + 1];
        // The same size's data is the same object (datasetFor keeps one size): another size is not set up ahead.
        const next =
          nextPlanned?.condition.rows === planned.condition.rows ? { planned: nextPlanned, dataset } : undefined;
        return runTrial(db, dataset, planned, options.batchSize, options.signal, ahead, next);
      },
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
          ahead.forget();
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

/** A trial: a fresh table, untimed setup, then the sum of its batches' driver-call times; counters around them. */
import type { Engine } from "../../../targets/types";
import type { IndexWriteCostParams } from "../params";
import type { RunStore, TrialRecord } from "../../../results/run-store";
import {
  batchRanges,
  HEAP_FILLFACTOR,
  makeDataset,
  type Dataset,
  type IndexWriteCounterKey,
  type IndexWriteEngine,
} from "./engine";
import { indexedFields, type Operation } from "./operations";
import { counterDelta } from "../../../stats/counters";
import { orderSeed, seededShuffle } from "../../../stats/order";
import { ignored } from "../../../runtime/debug";
import { nextNotOnDisk, okTrial, runTrials, type OrderedTrial, type RunTrialsOptions } from "../../../workloads/trials";
import { SetupClock, timeUnits, roundedToMicrosecond, type SecondsOf } from "../../../workloads/timed";

export interface IndexWriteCondition {
  readonly engine: Engine;
  readonly rows: number;
  readonly extraIndexes: number;
  readonly operation: Operation;
  /** PostgreSQL heap fillfactor; null for engines without one. */
  readonly fillfactor: number | null;
}

/** Seconds outside the timed batches by part (the run's time account sums them); `next…`: the next trial's setup. */
type SetupPart = "recreate" | "load" | "index";
type Part = "speed" | SetupPart | `next${Capitalize<SetupPart>}` | "quiesce" | "counters" | "walRecords";
type SetupSeconds = SecondsOf<SetupPart>;

export type IndexWriteTrial = TrialRecord<IndexWriteCondition, IndexWriteCounterKey> & SecondsOf<Part>;

/** The next trial's setup, recorded by the trial that ran it, part by part (`nextLoadSeconds`, …). */
const asNext = (s: SetupSeconds) => ({
  nextRecreateSeconds: s.recreateSeconds,
  nextLoadSeconds: s.loadSeconds,
  nextIndexSeconds: s.indexSeconds,
});

/** `growthRows`: sizes that run only claim (b)'s conditions (INSERT and the 5-field UPDATE at 0 and 5 indexes). */
export type TrialPlanOptions = Pick<
  IndexWriteCostParams,
  "engines" | "rowCounts" | "extraIndexes" | "operations" | "fillfactors" | "repeats" | "seed"
> & { readonly growthRows?: readonly number[] };

export type PlannedTrial = OrderedTrial<IndexWriteCondition>;

export function conditionKey(c: IndexWriteCondition): string {
  return `${c.engine}/${c.rows}/${c.operation}/idx${c.extraIndexes}/ff${c.fillfactor ?? "-"}`;
}

export const GROWTH_OPERATIONS: readonly Operation[] = ["insert", "update_five_fields"];
export const GROWTH_INDEXES: readonly number[] = [0, 5];

/**
 * Sizes in blocks (one data set in memory), repeats inside, each repeat's conditions shuffled by its own seed: a fixed
 * order (the seed's) lands slow drift on the last conditions; pairing within a repeat keeps it out of ratios.
 */
export function planTrials(o: TrialPlanOptions): PlannedTrial[] {
  const plan: PlannedTrial[] = [];
  const growth = (o.growthRows ?? []).filter((n) => !o.rowCounts.includes(n));
  for (const [engineIndex, engine] of o.engines.entries()) {
    const fillfactors = HEAP_FILLFACTOR[engine] ? o.fillfactors : [null];
    for (const rows of [...o.rowCounts, ...growth]) {
      // A growth size runs (b)'s conditions; further fillfactors sweep the non-indexed update (HOT needs page space).
      const g = growth.includes(rows);
      const conditions = (g ? [fillfactors[0]] : fillfactors).flatMap((fillfactor, i) =>
        o.operations
          .filter((op) => (g ? GROWTH_OPERATIONS.includes(op) : i === 0 || op === "update_nonindexed"))
          .flatMap((operation) =>
            o.extraIndexes
              .filter((n) => !g || GROWTH_INDEXES.includes(n))
              .map((extraIndexes): IndexWriteCondition => ({ engine, rows, extraIndexes, operation, fillfactor })),
          ),
      );
      for (let repeat = 1; repeat <= o.repeats; repeat++)
        for (const condition of seededShuffle(conditions, orderSeed(o.seed, repeat, engineIndex * 1_000_003 + rows)))
          plan.push({ key: `${conditionKey(condition)}/r${repeat}`, condition, repeat, position: plan.length });
    }
  }
  return plan;
}

/** Runs one trial on a fresh table; returns the record (status "ok"), or throws. */
export async function runTrial(
  db: IndexWriteEngine,
  dataset: Dataset,
  planned: PlannedTrial,
  batchSize: number,
  signal?: AbortSignal,
  ahead?: SetUpAhead,
  next?: { readonly planned: PlannedTrial; readonly dataset: Dataset },
): Promise<IndexWriteTrial> {
  const startedAt = new Date().toISOString();
  const { condition } = planned;
  const clock = new SetupClock<Part>();
  const speed = await clock.time("speed", async () => db.speed?.(`repeat ${planned.repeat}`));
  // Set up by the trial before while it counted its WAL, or now.
  if (!ahead?.take(db, planned, dataset)) await setUpTable(db, planned, dataset, clock);
  await clock.time("quiesce", async () => db.quiesce?.());
  const before = await clock.time("counters", () => db.counters());
  const unitMs = await timeUnits(
    batchRanges(dataset.rows, batchSize),
    ([start, end]) =>
      condition.operation === "insert"
        ? db.insertBatch(dataset, start, end)
        : db.updateBatch(dataset, condition.operation, start, end),
    { signal },
  );
  const after = await clock.time("counters", () => db.counters());
  // From here this trial only reads the WAL it held: the next trial's table is set up meanwhile.
  const [written, nextSetup] = await Promise.all([
    clock.time("walRecords", async () => db.writtenBetween?.(before, after)),
    ahead && next && !signal?.aborted ? ahead.setUp(db, next.planned, next.dataset) : undefined,
  ]);
  return {
    ...okTrial(planned, unitMs),
    unitMs: roundedToMicrosecond(unitMs),
    counters: { ...counterDelta(before, after), ...written },
    startedAt,
    finishedAt: new Date().toISOString(),
    ...(speed ? { speed } : {}),
    ...clock.record(),
    ...(nextSetup ? asNext(nextSetup) : {}),
  };
}

/** Recreated at its fillfactor, loaded (update trials), indexed. */
async function setUpTable(
  db: IndexWriteEngine,
  { condition }: PlannedTrial,
  dataset: Dataset,
  clock: Pick<SetupClock<SetupPart>, "time">,
): Promise<void> {
  await clock.time("recreate", () => db.recreate({ fillfactor: condition.fillfactor ?? 100 }));
  await clock.time("load", async () => (condition.operation === "insert" ? undefined : db.load(dataset)));
  await clock.time("index", () => db.createIndexes(indexedFields(condition.extraIndexes)));
}

const tableShape = (p: PlannedTrial) => {
  const c = p.condition;
  return `${c.engine}/${c.rows}/${c.fillfactor ?? 100}/${c.operation === "insert" ? "empty" : "loaded"}/${c.extraIndexes}`;
};

/** The next trial's table, set up ahead where the adapter allows (`setupBesideCount`), for a trial of its shape. */
export class SetUpAhead {
  private made: { readonly db: IndexWriteEngine; readonly shape: string; readonly dataset: Dataset } | undefined;

  async setUp(db: IndexWriteEngine, planned: PlannedTrial, dataset: Dataset): Promise<SetupSeconds | undefined> {
    this.made = undefined;
    if (!db.setupBesideCount || planned.condition.engine !== db.engine) return undefined;
    const clock = new SetupClock<SetupPart>();
    await setUpTable(db, planned, dataset, clock);
    this.made = { db, shape: tableShape(planned), dataset };
    return clock.record();
  }

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
  readonly open: (engine: Engine) => Promise<IndexWriteEngine>;
  readonly onProgress?: RunTrialsOptions<IndexWriteCondition, PlannedTrial, IndexWriteTrial>["onProgress"];
  readonly continueOnError?: boolean;
  readonly signal?: AbortSignal;
}

/** Through `runTrials` (resume, watchdog, store); an engine's adapter opened on first use, dropped after a failure. */
export async function runPlan(options: RunOptions): Promise<IndexWriteTrial[]> {
  const adapters = new Map<Engine, IndexWriteEngine>();
  let dataset: Dataset | undefined;
  const nextToRun = nextNotOnDisk(options.plan, options.store);
  const ahead = new SetUpAhead();
  try {
    return await runTrials(
      options.plan,
      async (planned) => {
        const { engine, rows } = planned.condition;
        const db = adapters.get(engine) ?? (await options.open(engine));
        adapters.set(engine, db);
        if (dataset?.rows !== rows) {
          dataset = undefined; // one size in memory at a time: 1M rows are ~50 MB
          dataset = makeDataset(rows, options.seed);
        }
        const nextPlanned = nextToRun(planned);
        // Only the same size is set up ahead (one size is kept in memory).
        const next = nextPlanned?.condition.rows === rows ? { planned: nextPlanned, dataset } : undefined;
        return runTrial(db, dataset, planned, options.batchSize, options.signal, ahead, next);
      },
      {
        ...options,
        watch: ({ key, condition }) => ({
          engine: condition.engine,
          what: `trial ${key}`,
          group: conditionKey(condition),
        }),
        afterFailure: async ({ condition: { engine } }) => {
          ahead.forget();
          const db = adapters.get(engine);
          adapters.delete(engine);
          await db?.close();
        },
      },
    );
  } finally {
    for (const db of adapters.values()) await db.close().catch(ignored("index-write-cost: close an adapter"));
  }
}

/**
 * How a trial of 07 is run: a fresh table at the trial's fillfactor, loaded, indexed, vacuumed and
 * checkpointed (untimed), the room of its pages measured, then one UPDATE pass over every row in id
 * ranges of `batchRows` (each range one statement and one transaction, timed with hrtime), with the
 * counters read around the pass.
 */
import type { RunStore, TrialRecord } from "../../../results/run-store";
import { orderSeed, seededShuffle } from "../../../stats/order";
import { counterDelta } from "../../../stats/counters";
import { ignored } from "../../../runtime/debug";
import { runTrials } from "../../../workloads/trials";
import type { UpdatedColumn } from "../params";
import type { FillfactorHotCounterKey } from "./counter-keys";
import type { HotTable } from "./table";

export interface FillfactorHotCondition {
  readonly fillfactor: number;
  /** The column the pass changes: `counter` (in no index) or `k` (indexed). */
  readonly column: UpdatedColumn;
}

/**
 * Where an ok trial's wall outside its timed pass went, seconds (the run's time account sums them by
 * name): the table's load and index builds, the VACUUM, the CHECKPOINT (with the autovacuum wait), the room's
 * pgstattuple, the counters read around the pass, and the pass's WAL records counted; with the
 * latter, at once, the next trial's table loaded (`nextLoadSeconds`: its own record then has no
 * `loadSeconds`).
 */
export interface TrialPhases {
  readonly loadSeconds?: number;
  readonly nextLoadSeconds?: number;
  readonly vacuumSeconds?: number;
  readonly checkpointSeconds?: number;
  readonly roomSeconds?: number;
  readonly countersSeconds?: number;
  readonly walRecordsSeconds?: number;
}

export type FillfactorHotTrial = TrialRecord<FillfactorHotCondition, FillfactorHotCounterKey> & TrialPhases;

export interface PlannedTrial {
  readonly key: string;
  readonly condition: FillfactorHotCondition;
  readonly repeat: number;
  readonly position: number;
}

export function conditionKey(c: FillfactorHotCondition): string {
  return `ff${c.fillfactor}/${c.column}`;
}

export interface TrialPlanOptions {
  readonly fillfactors: readonly number[];
  readonly columns: readonly UpdatedColumn[];
  readonly repeats: number;
  readonly seed: number;
}

/**
 * Rounds of every condition (fillfactor × column), each round in an order of its own drawn from the
 * run's seed: slow drift (WAL growth, the machine's other load) then lands on all conditions alike,
 * and the paired statistics compare conditions of the same round.
 */
export function planTrials(o: TrialPlanOptions): PlannedTrial[] {
  const conditions = o.fillfactors.flatMap((fillfactor) => o.columns.map((column) => ({ fillfactor, column })));
  const plan: PlannedTrial[] = [];
  for (let repeat = 1; repeat <= o.repeats; repeat++)
    for (const condition of seededShuffle(conditions, orderSeed(o.seed, repeat)))
      plan.push({ key: `${conditionKey(condition)}/r${repeat}`, condition, repeat, position: plan.length });
  return plan;
}

export interface TrialSize {
  readonly rows: number;
  readonly padBytes: number;
  readonly batchRows: number;
}

/** Runs one trial on a fresh table; returns its record (status "ok"), or throws. */
export async function runTrial(
  table: HotTable,
  planned: PlannedTrial,
  size: TrialSize,
  signal?: AbortSignal,
  next?: PlannedTrial,
): Promise<FillfactorHotTrial> {
  const startedAt = new Date().toISOString();
  const { fillfactor, column } = planned.condition;
  // The previous trial loaded this one's table while it counted its WAL: the same statements on the
  // same server, and nothing but a wait between them and this trial's VACUUM and CHECKPOINT.
  const loadedBefore = table.takeLoaded(fillfactor, size.rows, size.padBytes);
  const loadSeconds =
    loadedBefore === undefined ? await table.recreate(fillfactor, size.rows, size.padBytes) : undefined;
  signal?.throwIfAborted();
  const { vacuumSeconds, checkpointSeconds } = await table.quiesce();
  let t = process.hrtime.bigint();
  const room = await table.room();
  const roomSeconds = since(t);
  signal?.throwIfAborted();
  t = process.hrtime.bigint();
  const before = await table.counters();
  let countersSeconds = since(t);
  let walRecordsSeconds = 0;
  const unitMs: number[] = [];
  let updated = 0;
  for (let from = 1; from <= size.rows; from += size.batchRows) {
    signal?.throwIfAborted();
    const t0 = process.hrtime.bigint();
    updated += await table.updateRange(column, from, Math.min(size.rows, from + size.batchRows - 1));
    unitMs.push(Number(process.hrtime.bigint() - t0) / 1e6);
  }
  t = process.hrtime.bigint();
  const after = await table.counters();
  countersSeconds += since(t);
  if (updated !== size.rows) throw new Error(`the pass updated ${updated} rows of ${size.rows}`);
  // The counters are read: from here this trial reads only the WAL it held, so the next trial's
  // table (a fresh one, the old one dropped) is loaded meanwhile on the loader's own session.
  t = process.hrtime.bigint();
  const [records, nextLoadSeconds] = await Promise.all([
    table.walRecords(before["wal.lsn"], after["wal.lsn"]).finally(() => (walRecordsSeconds = since(t))),
    next && !signal?.aborted
      ? table.recreate(next.condition.fillfactor, size.rows, size.padBytes)
      : Promise.resolve(undefined),
  ]);
  return {
    key: planned.key,
    condition: planned.condition,
    repeat: planned.repeat,
    position: planned.position,
    status: "ok",
    seconds: unitMs.reduce((a, b) => a + b, 0) / 1000,
    unitMs: unitMs.map((ms) => Math.round(ms * 1000) / 1000),
    counters: { ...counterDelta(before, after), ...room, ...records },
    ...(loadSeconds !== undefined ? { loadSeconds } : {}),
    ...(nextLoadSeconds !== undefined ? { nextLoadSeconds } : {}),
    vacuumSeconds,
    checkpointSeconds,
    roomSeconds,
    countersSeconds,
    walRecordsSeconds,
    startedAt,
    finishedAt: new Date().toISOString(),
  };
}

const since = (t0: bigint) => Number(process.hrtime.bigint() - t0) / 1e9;

export interface RunOptions {
  readonly plan: readonly PlannedTrial[];
  readonly size: TrialSize;
  readonly store: RunStore<FillfactorHotCondition>;
  readonly open: () => Promise<HotTable>;
  readonly onTrial?: (
    done: number,
    total: number,
    trial: FillfactorHotTrial | undefined,
    next: PlannedTrial | undefined,
  ) => void;
  readonly continueOnError?: boolean;
  readonly signal?: AbortSignal;
}

/**
 * Runs the plan through `runTrials` (resume, watchdog, failure record, store) on one table
 * adapter, reopened after a failure (its connection may be dead).
 */
export async function runPlan(options: RunOptions): Promise<FillfactorHotTrial[]> {
  let table: HotTable | undefined;
  // The trial after `planned` that this run will run (a resumed run skips those already on disk).
  const finished = options.store.finishedKeys();
  const todo = options.plan.filter((p) => !finished.has(p.key));
  const nextToRun = (planned: PlannedTrial) => {
    const i = todo.findIndex((p) => p.key === planned.key);
    return i < 0 ? undefined : todo[i + 1];
  };
  try {
    return await runTrials(
      options.plan,
      async (planned) => {
        table ??= await options.open();
        return runTrial(table, planned, options.size, options.signal, nextToRun(planned));
      },
      {
        store: options.store,
        signal: options.signal,
        continueOnError: options.continueOnError,
        watch: (planned) => ({
          engine: "postgresql",
          what: `UPDATE pass, trial ${planned.key}`,
          group: conditionKey(planned.condition),
        }),
        afterFailure: async () => {
          const dead = table;
          table = undefined;
          await dead?.close();
        },
        onProgress: ({ done, total, last, next }) => options.onTrial?.(done, total, last, next),
      },
    );
  } finally {
    await table?.close().catch(ignored("fillfactor-hot: close the table adapter"));
  }
}

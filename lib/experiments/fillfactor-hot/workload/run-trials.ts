/** 07's trial: a fresh table, untimed setup, then one UPDATE pass in id ranges of `batchRows`, timed. */
import type { TrialRecord } from "../../../results/run-store";
import { counterDelta } from "../../../stats/counters";
import {
  nextNotOnDisk,
  okTrial,
  runTrialsOn,
  shuffledRounds,
  type OrderedTrial,
  type PlanOnOptions,
} from "../../../workloads/trials";
import type { FillfactorHotParams, UpdatedColumn } from "../params";
import type { FillfactorHotCounterKey, HotTable } from "./table";
import { idRanges, timed, timeUnits, roundedToMicrosecond, type SecondsOf } from "../../../workloads/timed";

export interface FillfactorHotCondition {
  readonly fillfactor: number;
  readonly column: UpdatedColumn;
}

/** Phases' seconds, summed by name in the run's time account; the next trial's load runs during the WAL count. */
type Phase = "load" | "nextLoad" | "vacuum" | "checkpoint" | "room" | "counters" | "walRecords";
export type FillfactorHotTrial = TrialRecord<FillfactorHotCondition, FillfactorHotCounterKey> & SecondsOf<Phase>;

export type PlannedTrial = OrderedTrial<FillfactorHotCondition>;

export const conditionKey = (c: FillfactorHotCondition): string => `ff${c.fillfactor}/${c.column}`;

export const planTrials = (
  p: Pick<FillfactorHotParams, "fillfactors" | "columns" | "repeats" | "seed">,
): PlannedTrial[] =>
  shuffledRounds(
    p.fillfactors.flatMap((fillfactor) => p.columns.map((column) => ({ fillfactor, column }))),
    p.repeats,
    p.seed,
    conditionKey,
  );

type TrialSize = Pick<FillfactorHotParams, "rows" | "padBytes" | "batchRows">;

export async function runTrial(
  table: HotTable,
  planned: PlannedTrial,
  size: TrialSize,
  signal?: AbortSignal,
  next?: PlannedTrial,
): Promise<FillfactorHotTrial> {
  const startedAt = new Date().toISOString();
  const { fillfactor, column } = planned.condition;
  const load = (ff: number) => timed(() => table.recreate(ff, size.rows, size.padBytes));
  // Loaded by the previous trial while it counted its WAL: nothing but a wait lies between.
  const loadSeconds = table.takeLoaded(fillfactor, size.rows, size.padBytes) ? undefined : (await load(fillfactor))[1];
  signal?.throwIfAborted();
  const { vacuumSeconds, checkpointSeconds } = await table.quiesce();
  const [room, roomSeconds] = await timed(() => table.room());
  signal?.throwIfAborted();
  const [before, beforeSeconds] = await timed(() => table.counters());
  let updated = 0;
  const unitMs = await timeUnits(
    idRanges(size.rows, size.batchRows),
    async ([from, to]) => {
      updated += await table.updateRange(column, from, to);
    },
    { signal },
  );
  const [after, afterSeconds] = await timed(() => table.counters());
  if (updated !== size.rows) throw new Error(`the pass updated ${updated} rows of ${size.rows}`);
  // From here this trial reads only its held WAL, so the next table loads on the loader's session.
  const [[records, walRecordsSeconds], nextLoad] = await Promise.all([
    timed(() => table.walRecords(before["wal.lsn"], after["wal.lsn"])),
    next && !signal?.aborted ? load(next.condition.fillfactor) : undefined,
  ]);
  return {
    ...okTrial(planned, unitMs),
    unitMs: roundedToMicrosecond(unitMs),
    counters: { ...counterDelta(before, after), ...room, ...records },
    ...(loadSeconds !== undefined ? { loadSeconds } : {}),
    ...(nextLoad ? { nextLoadSeconds: nextLoad[1] } : {}),
    vacuumSeconds,
    checkpointSeconds,
    roomSeconds,
    countersSeconds: beforeSeconds + afterSeconds,
    walRecordsSeconds,
    startedAt,
    finishedAt: new Date().toISOString(),
  };
}

export interface RunOptions extends PlanOnOptions<HotTable, FillfactorHotCondition, PlannedTrial, FillfactorHotTrial> {
  readonly size: TrialSize;
}

export function runPlan(o: RunOptions): Promise<FillfactorHotTrial[]> {
  const nextToRun = nextNotOnDisk(o.plan, o.store);
  return runTrialsOn(
    o.open,
    o.plan,
    (table, planned) => runTrial(table, planned, o.size, o.signal, nextToRun(planned)),
    {
      ...o,
      watch: (planned) => ({
        engine: "postgresql",
        what: `UPDATE pass, trial ${planned.key}`,
        group: conditionKey(planned.condition),
      }),
    },
  );
}

/**
 * Notebook 01's figures, from the raw trials: per condition median and range; the ratio vs the
 * 0-extra-index baseline of the same engine, size, operation and fillfactor, formed per repeat
 * (the two ran in the same repeat, in a shuffled order) and summarised by the exact interval of
 * the median over repeats; the same ratio in server time (pg_stat_statements); and the server
 * counters that explain it, measured (WAL records by type from pg_walinspect, HOT share, sizes).
 */
import { isOk } from "../../results/run-store";
import { medianInterval, outlierFlags, pairedRatios, type Interval } from "../../stats/intervals";
import { groupBy, spread, type TrialSeconds, medianOfFinite } from "../../stats/summary";
import { counterEntries, type Counters as CountersOf } from "../../stats/counters";
import type { IndexWriteCounterKey } from "./workload/counter-keys";
import type { Operation } from "./workload/operations";
import type { Engine } from "../../targets/engines";
import type { IndexWriteCondition, IndexWriteTrial } from "./workload/run-trials";
import { conditionKey } from "./workload/run-trials";

export interface ConditionSummary extends IndexWriteCondition, TrialSeconds {
  /** Median over repeats of (this condition's seconds / the 0-extra-index condition's, same repeat). */
  readonly ratio?: number;
  readonly ratioInterval?: Interval;
  /** The per-repeat ratios behind `ratioInterval` (claims pair them across conditions by repeat). */
  readonly repeatRatios?: readonly { readonly repeat: number; readonly ratio: number }[];
  /** Bounds of `ratioInterval` (for charts). */
  readonly ratioCiLow?: number;
  readonly ratioCiHigh?: number;
  /** The same paired ratio in server time (planning + execution of the timed statements). */
  readonly serverRatioInterval?: Interval;
  /** Server time of the timed statements, ms (median over trials). */
  readonly serverMs?: number;
  /**
   * The client path's weight: time per row outside the server ÷ server time per row (wall ms −
   * server ms, over server ms; median over trials). Work outside the server is the same whatever the
   * indexes, so it pulls a wall-time ratio towards 1: wall ratio = (k + server ratio) ÷ (k + 1).
   */
  readonly clientPerServer?: number;
  /** PostgreSQL: share of updated rows that were HOT (no new index entries). */
  readonly hotShare?: number;
  /** PostgreSQL: WAL records and bytes per row written (median over trials). */
  readonly walRecordsPerRow?: number;
  readonly walBytesPerRow?: number;
  /**
   * Index entries inserted per row, measured, not modelled. PostgreSQL: B-tree leaf insertions
   * counted in the WAL of the timed part (pg_walinspect: Btree INSERT_LEAF + INSERT_POST + SPLIT_L +
   * SPLIT_R records, each carrying one new leaf tuple; the primary key's included). MongoDB:
   * WiredTiger's per-index "insert calls" ($collStats indexDetails), _id's included.
   */
  readonly btreeInsertsPerRow?: number;
  /** B-tree page splits per 1,000 rows (Btree SPLIT_L + SPLIT_R records). */
  readonly btreeSplitsPer1000?: number;
  /** Heap insert/update records per row (Heap INSERT, UPDATE, HOT_UPDATE). */
  readonly heapRecordsPerRow?: number;
  /** Total index size after the trial, bytes (median). */
  readonly indexBytes?: number;
  /** Trials flagged as outliers among this condition's own repeats (OUTLIER_RULE), by repeat. */
  readonly outlierRepeats: readonly number[];
  /** Trials with a checkpoint or an autovacuum/autoanalyze run inside the timed window, by repeat. */
  readonly disturbedRepeats: readonly number[];
}

type Counters = CountersOf<IndexWriteCounterKey>;

function medianOf(trials: readonly IndexWriteTrial[], pick: (c: Counters) => number | undefined): number | undefined {
  return medianOfFinite(trials.map((t) => (t.counters ? pick(t.counters) : undefined)));
}

function indexBytes(c: Counters): number | undefined {
  const sizes = counterEntries(c).filter(([k]) => k.startsWith("size.index."));
  return sizes.length ? sizes.reduce((a, [, v]) => a + v, 0) : undefined;
}

function walrec(c: Counters, ...types: string[]): number | undefined {
  if (!counterEntries(c).some(([k]) => k.startsWith("walrec."))) return undefined;
  return types.reduce((a, t) => a + (c[`walrec.${t}`] ?? 0), 0);
}

function mongoIndexInserts(c: Counters): number | undefined {
  const inserts = counterEntries(c).filter(([k]) => k.startsWith("mongo.index.") && k.endsWith(".inserts"));
  return inserts.length ? inserts.reduce((a, [, v]) => a + v, 0) : undefined;
}

/** Index entries a trial inserted, by each engine's own counters: a new engine does not compile without one. */
const INDEX_INSERTS: Readonly<Record<Engine, (c: Counters) => number | undefined>> = {
  postgresql: (c) => walrec(c, "Btree/INSERT_LEAF", "Btree/INSERT_POST", "Btree/SPLIT_L", "Btree/SPLIT_R"),
  mongodb: mongoIndexInserts,
};

/** A trial whose timed window saw a checkpoint or an autovacuum/autoanalyze of the table. */
export function disturbed(t: IndexWriteTrial): boolean {
  return (t.counters?.["checkpoints"] ?? 0) > 0 || (t.counters?.["table.autovacuum_count"] ?? 0) > 0;
}

export interface SummariseOptions {
  /** Leave out trials flagged as outliers or disturbed: the sensitivity check of the verdicts. */
  readonly withoutFlagged?: boolean;
}

export function summarise(trials: readonly IndexWriteTrial[], options: SummariseOptions = {}): ConditionSummary[] {
  const ok = trials.filter(isOk);
  const failedByKey = groupBy(
    trials.filter((t) => t.status === "failed"),
    (t) => conditionKey(t.condition),
  );
  const allByCondition = groupBy(ok, (t) => conditionKey(t.condition));
  // Flags first, on every finished trial, so the sensitivity run leaves out exactly what is flagged.
  const flagged = new Map<string, { outliers: number[]; disturbed: number[] }>();
  for (const [key, group] of allByCondition) {
    const flags = outlierFlags(group.map((t) => t.seconds));
    flagged.set(key, {
      outliers: group.filter((_, i) => flags[i]).map((t) => t.repeat),
      disturbed: group.filter(disturbed).map((t) => t.repeat),
    });
  }
  const byCondition = new Map<string, typeof ok>();
  for (const [key, group] of allByCondition) {
    const f = flagged.get(key);
    const kept =
      options.withoutFlagged && f
        ? group.filter((t) => !f.outliers.includes(t.repeat) && !f.disturbed.includes(t.repeat))
        : group;
    if (kept.length) byCondition.set(key, kept);
  }
  const byRepeat = (group: readonly (typeof ok)[number][], pick: (t: (typeof ok)[number]) => number | undefined) =>
    new Map(
      group.flatMap((t) => {
        const v = pick(t);
        return v === undefined || !Number.isFinite(v) ? [] : [[t.repeat, v] as const];
      }),
    );
  const serverMs = (t: IndexWriteTrial) => t.counters?.["server.statement_ms"];

  const summaries: ConditionSummary[] = [];
  for (const [key, group] of byCondition) {
    const c = group[0].condition;
    const seconds = group.map((t) => t.seconds);
    const s = spread(seconds);
    const baseline = c.extraIndexes === 0 ? undefined : byCondition.get(conditionKey({ ...c, extraIndexes: 0 }));
    const label = `paired ratios ${c.extraIndexes} / 0 extra indexes, one per repeat`;
    const repeatRatios = baseline
      ? pairedRatios(
          byRepeat(group, (t) => t.seconds),
          byRepeat(baseline, (t) => t.seconds),
        )
      : [];
    const ratioInterval = repeatRatios.length
      ? medianInterval(
          repeatRatios.map((r) => r.ratio),
          label,
        )
      : undefined;
    const serverRatios = baseline ? pairedRatios(byRepeat(group, serverMs), byRepeat(baseline, serverMs)) : [];
    const serverRatioInterval = serverRatios.length
      ? medianInterval(
          serverRatios.map((r) => r.ratio),
          `${label}, server time`,
        )
      : undefined;
    const rows = c.rows;
    const isUpdate = c.operation !== "insert";
    const hotShare = isUpdate
      ? medianOf(group, (k) =>
          k["table.n_tup_upd"] ? (k["table.n_tup_hot_upd"] ?? 0) / k["table.n_tup_upd"] : undefined,
        )
      : undefined;
    const f = flagged.get(key);
    summaries.push({
      ...c,
      trials: group.length,
      failed: failedByKey.get(conditionKey(c))?.length ?? 0,
      medianSeconds: s.median,
      minSeconds: s.min,
      maxSeconds: s.max,
      seconds,
      ratio: c.extraIndexes === 0 ? 1 : ratioInterval?.estimate,
      ratioInterval,
      repeatRatios: baseline ? repeatRatios : undefined,
      ratioCiLow: ratioInterval?.low,
      ratioCiHigh: ratioInterval?.high,
      serverRatioInterval,
      serverMs: medianOf(group, (k) => k["server.statement_ms"]),
      clientPerServer: medianOfFinite(
        group.map((t) => {
          const ms = serverMs(t);
          return ms ? (t.seconds * 1000 - ms) / ms : undefined;
        }),
      ),
      hotShare,
      walRecordsPerRow: medianOf(group, (k) => (k["wal.records"] !== undefined ? k["wal.records"] / rows : undefined)),
      walBytesPerRow: medianOf(group, (k) => (k["wal.bytes"] !== undefined ? k["wal.bytes"] / rows : undefined)),
      btreeInsertsPerRow: medianOf(group, (k) => {
        const n = INDEX_INSERTS[c.engine](k);
        return n === undefined ? undefined : n / rows;
      }),
      btreeSplitsPer1000: medianOf(group, (k) => {
        const n = walrec(k, "Btree/SPLIT_L", "Btree/SPLIT_R");
        return n === undefined ? undefined : (1000 * n) / rows;
      }),
      heapRecordsPerRow: medianOf(group, (k) => {
        const n = walrec(
          k,
          "Heap/INSERT",
          "Heap/INSERT+INIT",
          "Heap/UPDATE",
          "Heap/HOT_UPDATE",
          "Heap/UPDATE+INIT",
          "Heap/HOT_UPDATE+INIT",
        );
        return n === undefined ? undefined : n / rows;
      }),
      indexBytes: medianOf(group, indexBytes),
      outlierRepeats: f?.outliers ?? [],
      disturbedRepeats: f?.disturbed ?? [],
    });
  }
  return summaries;
}

/** One number from the summaries, or undefined. */
export function findSummary(
  summaries: readonly ConditionSummary[],
  where: { engine: string; rows: number; operation: Operation; extraIndexes: number; fillfactor?: number | null },
): ConditionSummary | undefined {
  return summaries.find(
    (s) =>
      s.engine === where.engine &&
      s.rows === where.rows &&
      s.operation === where.operation &&
      s.extraIndexes === where.extraIndexes &&
      (where.fillfactor === undefined || s.fillfactor === where.fillfactor),
  );
}

/** A condition by its size, operation and extra indexes; rows undefined: a size the run does not have. */
export type Cell = readonly [rows: number | undefined, operation: Operation, extraIndexes: number];

/** An engine's condition at the seed's heap: PostgreSQL's fillfactor 100 where it ran, else its first. */
export function conditionAt(
  summaries: readonly ConditionSummary[],
  engine: Engine,
  [rows, operation, extraIndexes]: Cell,
): ConditionSummary | undefined {
  const mine = summaries.filter((s) => s.engine === engine);
  const fillfactor = mine.some((s) => s.fillfactor === 100) ? 100 : (mine[0]?.fillfactor ?? null);
  return rows === undefined ? undefined : findSummary(summaries, { engine, rows, operation, extraIndexes, fillfactor });
}

/** Per-repeat ratios keyed by repeat, to pair them again (pairedRatios): empty when there are none. */
export function byRepeat(ratios: readonly { readonly repeat: number; readonly ratio: number }[] | undefined) {
  return new Map((ratios ?? []).map((r) => [r.repeat, r.ratio]));
}

/** The sizes at which the whole matrix ran: a growth size runs only INSERT and the 5-field UPDATE. */
export function matrixSizes(summaries: readonly ConditionSummary[]): number[] {
  const sizes = summaries.filter((s) => s.operation === "update_one_field").map((s) => s.rows);
  return [...new Set(sizes)].sort((a, b) => a - b);
}

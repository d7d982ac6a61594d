/**
 * Notebook 01's figures, from the raw trials: per condition median and range, ratio of medians vs
 * the 0-extra-index baseline of the same engine, size, operation and fillfactor (with bootstrap CI),
 * and the server counters that explain the ratio (HOT share, index entries, WAL per row).
 */
import { groupBy, ratioOfMedians, spread, type TrialSeconds } from "../../stats/summary";
import type { IndexWriteCondition, IndexWriteTrial } from "../../workloads/index-write-cost/run-trials";
import { conditionKey } from "../../workloads/index-write-cost/run-trials";
import type { Operation } from "../../workloads/index-write-cost/operations";
import { median } from "simple-statistics";

export interface ConditionSummary extends IndexWriteCondition, TrialSeconds {
  /** median / median of the same engine, rows, operation, fillfactor with 0 extra indexes. */
  readonly ratio?: number;
  readonly ratioCiLow?: number;
  readonly ratioCiHigh?: number;
  /** The min–max ranges of this condition and its baseline overlap: the ratio is not conclusive. */
  readonly overlapsBaseline?: boolean;
  /** PostgreSQL: share of updated rows that were HOT (no new index entries). */
  readonly hotShare?: number;
  /** PostgreSQL: WAL records and bytes per row written (median over trials). */
  readonly walRecordsPerRow?: number;
  readonly walBytesPerRow?: number;
  /** New index entries per row: inserts add one per index; non-HOT updates one per index. */
  readonly indexEntriesPerRow?: number;
  /** Total index size after the trial, bytes (median). */
  readonly indexBytes?: number;
}

function medianOf(trials: readonly IndexWriteTrial[], pick: (c: Readonly<Record<string, number>>) => number | undefined): number | undefined {
  const values = trials.map((t) => (t.counters ? pick(t.counters) : undefined)).filter((v): v is number => v !== undefined && Number.isFinite(v));
  return values.length ? median(values) : undefined;
}

function indexBytes(c: Readonly<Record<string, number>>): number | undefined {
  const sizes = Object.entries(c).filter(([k]) => k.startsWith("size.index."));
  return sizes.length ? sizes.reduce((a, [, v]) => a + v, 0) : undefined;
}

export function summarise(trials: readonly IndexWriteTrial[]): ConditionSummary[] {
  const ok = trials.filter((t) => t.status === "ok" && t.seconds !== undefined);
  const failedByKey = groupBy(trials.filter((t) => t.status === "failed"), (t) => conditionKey(t.condition));
  const byCondition = groupBy(ok, (t) => conditionKey(t.condition));
  const summaries: ConditionSummary[] = [];
  for (const group of byCondition.values()) {
    const c = group[0].condition;
    const seconds = group.map((t) => t.seconds!);
    const s = spread(seconds);
    const baseline = byCondition.get(conditionKey({ ...c, extraIndexes: 0 }));
    const ratio = baseline && c.extraIndexes !== 0 ? ratioOfMedians(seconds, baseline.map((t) => t.seconds!)) : undefined;
    const rows = c.rows;
    const isUpdate = c.operation !== "insert";
    const indexes = c.extraIndexes + 1; // + the primary key / _id index
    const hotShare = isUpdate ? medianOf(group, (k) => (k["table.n_tup_upd"] ? (k["table.n_tup_hot_upd"] ?? 0) / k["table.n_tup_upd"] : undefined)) : undefined;
    summaries.push({
      ...c,
      trials: group.length,
      failed: failedByKey.get(conditionKey(c))?.length ?? 0,
      medianSeconds: s.median,
      minSeconds: s.min,
      maxSeconds: s.max,
      seconds,
      ratio: c.extraIndexes === 0 ? 1 : ratio?.ratio,
      ratioCiLow: ratio?.ciLow,
      ratioCiHigh: ratio?.ciHigh,
      overlapsBaseline: ratio?.rangesOverlap,
      hotShare,
      walRecordsPerRow: medianOf(group, (k) => (k["wal.records"] !== undefined ? k["wal.records"] / rows : undefined)),
      walBytesPerRow: medianOf(group, (k) => (k["wal.bytes"] !== undefined ? k["wal.bytes"] / rows : undefined)),
      indexEntriesPerRow:
        c.engine !== "postgresql"
          ? undefined
          : isUpdate
            ? hotShare === undefined
              ? undefined
              : (1 - hotShare) * indexes
            : indexes,
      indexBytes: medianOf(group, indexBytes),
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

/** 08's figures per condition (index kind × operation); per round, the values the claims pair across conditions. */
import { median, quantile } from "simple-statistics";
import { isOk } from "../../results/run-store";
import { outlierFlags } from "../../stats/intervals";
import { groupBy, medianOfFinite, spread, type TrialSeconds } from "../../stats/summary";
import { conditionKey, insidePredicate, type IndexTypesCondition, type IndexTypesTrial } from "./workload";

/** One round's values of a condition. */
export interface RoundValues {
  readonly repeat: number;
  readonly seconds: number;
  readonly medianMs: number;
  readonly p99Ms: number;
  readonly maxMs: number;
  readonly walBytesPerRow: number;
  readonly indexBytes?: number;
  /** The batches outside the partial index's predicate (every batch but each matchEvery-th). */
  readonly outsideMedianMs: number;
  readonly outsideWalBytesPerRow: number;
  readonly flushes?: number;
  /** The batches whose pending list shrank (a flush), median ms. */
  readonly flushMs?: number;
}

export interface ConditionSummary extends IndexTypesCondition, TrialSeconds {
  readonly rows: number;
  readonly medianMs?: number;
  readonly p99Ms?: number;
  readonly maxMs?: number;
  readonly walBytesPerRow?: number;
  readonly indexBytes?: number;
  readonly indexBytesPerRow?: number;
  readonly unsummarizedBytes?: number;
  /** The table's heap pages after the operation. */
  readonly heapPages?: number;
  readonly summarizeSeconds?: number;
  readonly outsideMedianMs?: number;
  readonly outsideWalBytesPerRow?: number;
  readonly flushes?: number;
  readonly flushMs?: number;
  readonly rounds: readonly RoundValues[];
  /** The first round's batch latencies in stream order (the chart of the stream). */
  readonly series: readonly number[];
  readonly outlierRepeats: readonly number[];
  /** Trials with a checkpoint inside their timed batches, by round. */
  readonly disturbedRepeats: readonly number[];
}

const sum = (xs: readonly number[]) => xs.reduce((a, b) => a + b, 0);

type Size = { readonly rows: number; readonly batchRows: number; readonly matchEvery: number };

function roundOf(t: IndexTypesTrial & { status: "ok" }, p: Size): RoundValues {
  const ms = t.unitMs ?? [];
  const wal = t.unitWalBytes ?? [];
  const rowsIn = (i: number) => Math.min(p.batchRows, p.rows - i * p.batchRows);
  const outside = ms.map((_, i) => i).filter((i) => !insidePredicate(i, p.matchEvery));
  const pending = t.pendingPages ?? [];
  const flushAt = pending.map((_, i) => i).filter((i) => i > 0 && pending[i] < pending[i - 1]);
  return {
    repeat: t.repeat,
    seconds: t.seconds,
    medianMs: ms.length ? median([...ms]) : NaN,
    p99Ms: ms.length ? quantile([...ms], 0.99) : NaN,
    maxMs: ms.length ? Math.max(...ms) : NaN,
    walBytesPerRow: sum(wal) / p.rows,
    indexBytes: t.counters?.["index.bytes"],
    outsideMedianMs: outside.length ? median(outside.map((i) => ms[i])) : NaN,
    outsideWalBytesPerRow: outside.length ? sum(outside.map((i) => wal[i] ?? NaN)) / sum(outside.map(rowsIn)) : NaN,
    flushes: t.counters?.["pending.flushes"],
    flushMs: flushAt.length ? median(flushAt.map((i) => ms[i])) : undefined,
  };
}

export function summarise(
  trials: readonly IndexTypesTrial[],
  p: Size,
  options: { readonly withoutFlagged?: boolean } = {},
): ConditionSummary[] {
  const failed = groupBy(
    trials.filter((t) => t.status === "failed"),
    (t) => conditionKey(t.condition),
  );
  const out: ConditionSummary[] = [];
  for (const [key, all] of groupBy(trials.filter(isOk), (t) => conditionKey(t.condition))) {
    const flags = outlierFlags(all.map((t) => t.seconds));
    const outlierRepeats = all.filter((_, i) => flags[i]).map((t) => t.repeat);
    const disturbedRepeats = all.filter((t) => (t.counters?.checkpoints ?? 0) > 0).map((t) => t.repeat);
    const flagged = new Set([...outlierRepeats, ...disturbedRepeats]);
    const group = options.withoutFlagged ? all.filter((t) => !flagged.has(t.repeat)) : all;
    if (!group.length) continue;
    const rounds = group.map((t) => roundOf(t, p));
    const of = (pick: (r: RoundValues) => number | undefined) => medianOfFinite(rounds.map(pick));
    const s = spread(group.map((t) => t.seconds));
    const indexBytes = of((r) => r.indexBytes);
    out.push({
      ...group[0].condition,
      rows: p.rows,
      trials: group.length,
      failed: failed.get(key)?.length ?? 0,
      seconds: s.values,
      medianSeconds: s.median,
      minSeconds: s.min,
      maxSeconds: s.max,
      medianMs: of((r) => r.medianMs),
      p99Ms: of((r) => r.p99Ms),
      maxMs: of((r) => r.maxMs),
      walBytesPerRow: of((r) => r.walBytesPerRow),
      indexBytes,
      indexBytesPerRow: indexBytes === undefined ? undefined : indexBytes / p.rows,
      heapPages: (medianOfFinite(group.map((t) => t.counters?.["heap.bytes"])) ?? NaN) / 8192 || undefined,
      unsummarizedBytes: medianOfFinite(group.map((t) => t.counters?.["index.bytes_unsummarized"])),
      summarizeSeconds: medianOfFinite(group.map((t) => t.summarizeSeconds)),
      outsideMedianMs: of((r) => r.outsideMedianMs),
      outsideWalBytesPerRow: of((r) => r.outsideWalBytesPerRow),
      flushes: of((r) => r.flushes),
      flushMs: of((r) => r.flushMs),
      rounds,
      series: group[0].unitMs ?? [],
      outlierRepeats,
      disturbedRepeats,
    });
  }
  return out;
}

export const find = (s: readonly ConditionSummary[], kind: IndexTypesCondition["kind"], operation = "insert") =>
  s.find((x) => x.kind === kind && x.operation === operation);

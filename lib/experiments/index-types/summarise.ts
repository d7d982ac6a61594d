/** 08's figures per condition (index kind × operation); per round, the values the claims pair across conditions. */
import { median, quantile } from "simple-statistics";
import { medianOfFinite, secondsSpread } from "../../stats/summary";
import { medianOf, pairedQuotient } from "../../stats/claim-statistics";
import { allParts, someParts } from "../../stats/claim-engine";
import type { IndexKind } from "./params";
import { conditionGroups } from "../condition-groups";
import { conditionKey, insidePredicate, type IndexTypesCondition, type IndexTypesTrial } from "./workload";

/** One round's values of a condition. */
export type RoundValues = ReturnType<typeof roundOf>;
export type ConditionSummary = ReturnType<typeof summarise>[number];

const WAL_BAND = { kind: "inside", low: 0.98, high: 1.02 } as const;
const sum = (xs: readonly number[]) => xs.reduce((a, b) => a + b, 0);

type Size = { readonly rows: number; readonly batchRows: number; readonly matchEvery: number };

function roundOf(t: IndexTypesTrial & { status: "ok" }, p: Size) {
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
    // The batches outside the partial index's predicate (every batch but each matchEvery-th).
    outsideMedianMs: outside.length ? median(outside.map((i) => ms[i])) : NaN,
    outsideWalBytesPerRow: outside.length ? sum(outside.map((i) => wal[i] ?? NaN)) / sum(outside.map(rowsIn)) : NaN,
    flushes: t.counters?.["pending.flushes"],
    // The batches whose pending list shrank (a flush).
    flushMs: flushAt.length ? median(flushAt.map((i) => ms[i])) : undefined,
  };
}

export function summarise(
  trials: readonly IndexTypesTrial[],
  p: Size,
  options: { readonly withoutFlagged?: boolean } = {},
) {
  return conditionGroups(trials, conditionKey).flatMap(({ all, failed, outlierRepeats }) => {
    // Trials with a checkpoint inside their timed batches.
    const disturbedRepeats = all.filter((t) => (t.counters?.checkpoints ?? 0) > 0).map((t) => t.repeat);
    const flagged = new Set([...outlierRepeats, ...disturbedRepeats]);
    const group = options.withoutFlagged ? all.filter((t) => !flagged.has(t.repeat)) : all;
    if (!group.length) return [];
    const rounds = group.map((t) => roundOf(t, p));
    const of = (pick: (r: RoundValues) => number | undefined) => medianOfFinite(rounds.map(pick));
    const seconds = group.map((t) => t.seconds);
    const indexBytes = of((r) => r.indexBytes);
    return [
      {
        ...group[0].condition,
        rows: p.rows,
        trials: group.length,
        failed,
        seconds,
        ...secondsSpread(seconds),
        medianMs: of((r) => r.medianMs),
        p99Ms: of((r) => r.p99Ms),
        maxMs: of((r) => r.maxMs),
        walBytesPerRow: of((r) => r.walBytesPerRow),
        indexBytes,
        indexBytesPerRow: indexBytes === undefined ? undefined : indexBytes / p.rows,
        // The table's heap pages after the operation.
        heapPages: (medianOfFinite(group.map((t) => t.counters?.["heap.bytes"])) ?? NaN) / 8192 || undefined,
        unsummarizedBytes: medianOfFinite(group.map((t) => t.counters?.["index.bytes_unsummarized"])),
        summarizeSeconds: medianOfFinite(group.map((t) => t.summarizeSeconds)),
        outsideMedianMs: of((r) => r.outsideMedianMs),
        outsideWalBytesPerRow: of((r) => r.outsideWalBytesPerRow),
        flushes: of((r) => r.flushes),
        flushMs: of((r) => r.flushMs),
        rounds,
        // The first round's batch latencies in stream order (the chart of the stream).
        series: group[0].unitMs ?? [],
        outlierRepeats,
        disturbedRepeats,
      },
    ];
  });
}

export const find = (s: readonly ConditionSummary[], kind: IndexTypesCondition["kind"], operation = "insert") =>
  s.find((x) => x.kind === kind && x.operation === operation);

/** The insert summaries of `kinds`, or undefined unless all ran. */
export const findAll = (s: readonly ConditionSummary[], kinds: readonly IndexKind[]) => {
  const xs = kinds.map((k) => find(s, k));
  return xs.every((x) => x !== undefined) ? xs : undefined;
};

/** A per-round value of one condition ÷ another's (insert unless named), paired by round. */
export const paired =
  (top: IndexKind, bottom: IndexKind, pick: (r: RoundValues) => number | undefined, what: string, op = "insert") =>
  (s: readonly ConditionSummary[]) => {
    const [a, b] = [find(s, top, op), find(s, bottom, op)];
    return a && b
      ? pairedQuotient(a.rounds, b.rounds, (r) => r.repeat, pick, `${what}, ${top} ÷ ${bottom}, one per round`)
      : undefined;
  };

/** What `kind` adds over no index against a B-tree's, (kind − none) ÷ (btree − none) per round: of the seconds and of
 * the WAL bytes per row, the two parts of an all-of statistic. */
export const overNone = (kind: IndexKind) => (s: readonly ConditionSummary[]) => {
  const [k, b, n] = [find(s, kind), find(s, "btree"), find(s, "none")];
  const at = (x: ConditionSummary | undefined, repeat: number) => x?.rounds.find((y) => y.repeat === repeat);
  const part = (label: string, pick: (r: RoundValues) => number, what: string) => ({
    label,
    interval:
      k && b && n
        ? medianOf(
            k.rounds,
            (r) => {
              const [br, nr] = [at(b, r.repeat), at(n, r.repeat)];
              return br && nr && pick(br) > pick(nr) ? (pick(r) - pick(nr)) / (pick(br) - pick(nr)) : undefined;
            },
            `${what}: (${kind} − none) ÷ (btree − none), one per round`,
          )
        : undefined,
  });
  return allParts([
    part("seconds", (r) => r.seconds, "seconds"),
    part("WAL bytes", (r) => r.walBytesPerRow, "WAL bytes per row"),
  ]);
};

/** The flushing batch ÷ the median batch of the GIN insert stream with fastupdate, per round. */
export const flushOverMedian = (s: readonly ConditionSummary[]) =>
  medianOf(
    find(s, "gin-fastupdate")?.rounds ?? [],
    (r) => (r.flushMs ?? NaN) / r.medianMs,
    "flushing batch ÷ median batch, one per round",
  );

/** Partial ÷ none over the batches outside the predicate: the parts that ran (WAL judged within ±2 %). */
export function outsidePredicate(s: readonly ConditionSummary[]) {
  const outside = (label: string, pick: (r: RoundValues) => number, op = "insert") => ({
    label,
    interval: paired("partial", "none", pick, `${label} outside`, op)(s),
  });
  const wal = { ...outside("insert WAL", (r) => r.outsideWalBytesPerRow), rule: WAL_BAND };
  const parts = [
    outside("insert ms", (r) => r.outsideMedianMs),
    wal,
    outside("update ms", (r) => r.outsideMedianMs, "update"),
  ];
  return someParts(parts.filter((x) => x.interval));
}

/** 08's figures per condition (index kind × operation); per round, the values the claims pair across conditions. */
import { median, quantile } from "simple-statistics";
import { medianOfFinite, spread } from "../../stats/summary";
import { medianOf, pairedQuotient } from "../../stats/claim-statistics";
import type { IndexKind } from "./params";
import { conditionGroups } from "../condition-groups";
import { conditionKey, insidePredicate, type IndexTypesCondition, type IndexTypesTrial } from "./workload";

/** One round's values of a condition. */
export type RoundValues = ReturnType<typeof roundOf>;
export type ConditionSummary = ReturnType<typeof summarise>[number];

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
    const s = spread(group.map((t) => t.seconds));
    const indexBytes = of((r) => r.indexBytes);
    return [
      {
        ...group[0].condition,
        rows: p.rows,
        trials: group.length,
        failed,
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

/** A per-round value of one condition ÷ another's (insert unless named), paired by round. */
export const paired =
  (top: IndexKind, bottom: IndexKind, pick: (r: RoundValues) => number | undefined, what: string, op = "insert") =>
  (s: readonly ConditionSummary[]) => {
    const [a, b] = [find(s, top, op), find(s, bottom, op)];
    return a && b
      ? pairedQuotient(a.rounds, b.rounds, (r) => r.repeat, pick, `${what}, ${top} ÷ ${bottom}, one per round`)
      : undefined;
  };

/** (kind − none) ÷ (btree − none) of one per-round value: what the kind adds over no index, against a B-tree's. */
export const overNone =
  (kind: IndexKind, pick: (r: RoundValues) => number, what: string) => (s: readonly ConditionSummary[]) => {
    const [k, b, n] = [find(s, kind), find(s, "btree"), find(s, "none")];
    const at = (x: ConditionSummary | undefined, repeat: number) => x?.rounds.find((y) => y.repeat === repeat);
    return k && b && n
      ? medianOf(
          k.rounds,
          (r) => {
            const [br, nr] = [at(b, r.repeat), at(n, r.repeat)];
            return br && nr && pick(br) > pick(nr) ? (pick(r) - pick(nr)) / (pick(br) - pick(nr)) : undefined;
          },
          `${what}: (${kind} − none) ÷ (btree − none), one per round`,
        )
      : undefined;
  };

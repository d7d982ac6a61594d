/** What notebook 08 shows, one call per section. */
import { flaggedCell } from "../condition-groups";
import { axis, chart, twoAxes } from "../../display/plotly";
import { rounded as r, showTable, sortedBy, type Row } from "../../display/table";
import { OUTLIER_RULE } from "../../stats/intervals";
import { quotient } from "../../stats/claim-statistics";
import { INDEX_KINDS, OPERATIONS } from "./params";
import type { ConditionSummary } from "./summarise";

export const readingOrder = (s: readonly ConditionSummary[]): ConditionSummary[] =>
  sortedBy(s, [(x) => x.operation, OPERATIONS], [(x) => x.kind, INDEX_KINDS]);

export function showSummaryTable(summaries: readonly ConditionSummary[]): void {
  const none = new Map(summaries.filter((s) => s.kind === "none").map((s) => [s.operation, s]));
  const rows: Row[] = readingOrder(summaries).map((s) => ({
    operation: s.operation,
    index: s.kind,
    n: s.trials,
    "median s": s.medianSeconds,
    "× none": r(quotient(s.medianSeconds, none.get(s.operation)?.medianSeconds)),
    "batch p50 ms": r(s.medianMs),
    "p99 ms": r(s.p99Ms),
    "max ms": r(s.maxMs),
    "WAL B / row": r(s.walBytesPerRow, 0),
    "index KiB": r(s.indexBytes === undefined ? undefined : s.indexBytes / 1024, 0),
    flagged: flaggedCell(s, "round", "checkpoint"),
  }));
  showTable(rows, {
    caption:
      "Medians over rounds. Seconds: the sum of the timed batches; batch p50/p99/max: each trial's batch latencies, " +
      "then the median over rounds; WAL: the batches' WAL insert positions; index: pg_relation_size of the one index " +
      `after the operation (BRIN after brin_summarize_new_values). Flagged: outliers (${OUTLIER_RULE}) and checkpoints.`,
  });
}

/** The counters behind the claims: BRIN's summaries, GIN's flushes, the partial index outside its predicate. */
export function showExplanation(summaries: readonly ConditionSummary[]): void {
  const rows: Row[] = readingOrder(summaries).map((s) => ({
    operation: s.operation,
    index: s.kind,
    "index B / row": r(s.indexBytesPerRow, 1),
    "outside: batch ms": r(s.outsideMedianMs),
    "outside: WAL B / row": r(s.outsideWalBytesPerRow, 0),
    "GIN flushes": r(s.flushes, 0),
    "flush batch ms": r(s.flushMs),
    "BRIN KiB before summary": r(s.unsummarizedBytes === undefined ? undefined : s.unsummarizedBytes / 1024, 0),
    "summarize s": r(s.summarizeSeconds, 3),
  }));
  showTable(rows, {
    caption:
      "Medians over rounds. Outside: the batches not in the partial index's predicate (all but every matchEvery-th); " +
      "GIN flushes: batches after which the pending list shrank (pageinspect gin_metapage_info).",
  });
}

const bars = (s: readonly ConditionSummary[], op: string, pick: (x: ConditionSummary) => number | undefined) => {
  const xs = readingOrder(s).filter((x) => x.operation === op);
  return { x: xs.map((x) => x.kind), y: xs.map((x) => pick(x) ?? null) };
};
const PERCENTILES = [
  ["p50", (x: ConditionSummary) => x.medianMs],
  ["p99", (x: ConditionSummary) => x.p99Ms],
  ["max", (x: ConditionSummary) => x.maxMs],
] as const;

/** Batch latency, what each kind wrote, and every batch of the first round's GIN streams (the flushes stand out). */
export function showCharts(s: readonly ConditionSummary[]): void {
  const log = { type: "log" };
  chart(
    "Batch latency by index kind (median over rounds of each trial's percentile)",
    { barmode: "group", yaxis: axis("ms per batch", log) },
    OPERATIONS.flatMap((op) =>
      PERCENTILES.map(([name, pick]) => ({ type: "bar", name: `${op} ${name}`, ...bars(s, op, pick) })),
    ),
  );
  chart(
    "WAL per row and index size by index kind",
    { barmode: "group", ...twoAxes("WAL bytes per row", "index KiB", { rangemode: "tozero" }, log) },
    [
      ...OPERATIONS.map((op) => ({ type: "bar", name: `${op}: WAL B / row`, ...bars(s, op, (x) => x.walBytesPerRow) })),
      {
        type: "bar",
        name: "index KiB after the stream",
        ...bars(s, "insert", (x) => (x.indexBytes ?? 0) / 1024),
        yaxis: "y2",
      },
    ],
  );
  const gin = s.filter((x) => x.operation === "insert" && x.kind.startsWith("gin"));
  chart(
    "GIN insert stream, batch by batch (first round)",
    { xaxis: axis("batch", {}), yaxis: axis("ms", log) },
    gin.map((x) => ({
      type: "scatter",
      mode: "lines",
      name: x.kind,
      x: x.series.map((_, i) => i + 1),
      y: [...x.series],
    })),
    380,
  );
}

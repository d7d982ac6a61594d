/** What the notebook shows, one call per section. */
import { flaggedCell } from "../condition-groups";
import { escapeHtml, show } from "../../display/output";
import { plot } from "../../display/plotly";
import { showTable, sortedBy, type Row } from "../../display/table";
import { publishedFigures } from "../../results/reference";
import { CLIENT_PATH } from "./claims";
import { intervalLabel, OUTLIER_RULE } from "../../stats/intervals";
import { OPERATION_LABELS, OPERATIONS } from "./workload/operations";
import { ENGINES } from "../../targets/engines";
import { HEAP_FILLFACTOR } from "./workload/engine";
import { fillfactorSweep, ratioByIndexes, ratioByRows, trialExplorer } from "./charts";
import { matrixSizes, type ConditionSummary } from "./summarise";

/** Each engine that could not start here, and why. */
export function showUnavailable(unavailable: ReadonlyMap<string, string>): void {
  for (const [engine, reason] of unavailable)
    show().html(
      `<div style="border-left:4px solid #e45756;padding:6px 10px;background:#fdf2f2"><b>${escapeHtml(engine)} is not available on this machine</b>, ` +
        `so this run shows no ${escapeHtml(engine)} results (the run is not failed). ${escapeHtml(reason)}</div>`,
    );
}

const r2 = (x: number | undefined) => (x === undefined ? undefined : Math.round(x * 100) / 100);

/** Engine → rows → operation → extra indexes → fillfactor (the order run is in trials.jsonl). */
export function readingOrder(summaries: readonly ConditionSummary[]): ConditionSummary[] {
  return sortedBy(
    summaries,
    [(s) => s.engine, ENGINES],
    (s) => s.rows,
    [(s) => s.operation, OPERATIONS],
    (s) => s.extraIndexes,
    (s) => s.fillfactor ?? 100,
  );
}

export function showSummaryTable(summaries: readonly ConditionSummary[]): void {
  // Every row has the same columns (danfo aligns by position).
  const swept = summaries.some((s) => s.fillfactor !== null && s.fillfactor !== 100);
  const rows: Row[] = readingOrder(summaries).map((s) => ({
    engine: s.engine,
    rows: s.rows,
    operation: OPERATION_LABELS[s.operation],
    "extra idx": s.extraIndexes,
    ...(swept ? { fillfactor: s.fillfactor ?? "" } : {}),
    n: s.trials,
    "median s": s.medianSeconds,
    "min–max s": `${s.minSeconds.toFixed(3)}–${s.maxSeconds.toFixed(3)}`,
    ratio: r2(s.ratio),
    interval: s.ratioInterval
      ? `${s.ratioInterval.low.toFixed(2)}–${s.ratioInterval.high.toFixed(2)} (${intervalLabel(s.ratioInterval)})`
      : "",
    "server-time ratio": s.serverRatioInterval
      ? `${s.serverRatioInterval.estimate.toFixed(2)} [${s.serverRatioInterval.low.toFixed(2)}–${s.serverRatioInterval.high.toFixed(2)}]`
      : "",
    flagged: flaggedCell(s, "repeat", "checkpoint/autovacuum"),
  }));
  showTable(rows, {
    caption:
      "Medians and ratios. Ratio = this condition's seconds / the 0-extra-index condition's in the same repeat (they ran in the same repeat, " +
      "in a shuffled order), median over repeats, with the exact order-statistic interval of that median. Server-time ratio: the same, " +
      `in pg_stat_statements planning + execution time. Flagged: outliers (${OUTLIER_RULE}) and trials with a checkpoint or autovacuum in their timed window.`,
  });
}

export function showCharts(summaries: readonly ConditionSummary[]): void {
  const engines = [...new Set(summaries.map((s) => s.engine))];
  for (const engine of engines) {
    const mine = summaries.filter((s) => s.engine === engine);
    const ff = mine.some((s) => s.fillfactor === 100) ? 100 : mine[0].fillfactor;
    plot(ratioByIndexes(summaries, engine, Math.max(...matrixSizes(mine)), ff));
    if (new Set(mine.map((s) => s.rows)).size > 1) plot(ratioByRows(summaries, engine, ff));
  }
  plot(trialExplorer(summaries, "seconds"), 480);
  plot(trialExplorer(summaries, "ratio"), 420);
  const swept = summaries.filter((s) => HEAP_FILLFACTOR[s.engine]);
  if (new Set(swept.map((s) => s.fillfactor)).size > 1)
    plot(fillfactorSweep(summaries, Math.max(...matrixSizes(swept))));
}

/** The seed's published medians and ratios beside ours for the same engine, operation and indexes. */
export function showSeedComparison(summaries: readonly ConditionSummary[]): void {
  const rows: Row[] = [];
  const engines = new Set(summaries.map((s) => s.engine));
  for (const f of publishedFigures("index_write_cost")) {
    const figure = { ratio_vs_0: "ratio", median_seconds: "median s" }[f.condition];
    if (
      !engines.has(f.engine as ConditionSummary["engine"]) ||
      f.extraIndexes === undefined ||
      f.rows === undefined ||
      !figure
    )
      continue;
    const candidates = summaries.filter(
      (s) =>
        s.engine === f.engine &&
        s.operation === f.series &&
        s.extraIndexes === f.extraIndexes &&
        (s.fillfactor ?? 100) === 100,
    );
    const distance = (s: ConditionSummary) => Math.abs(Math.log(s.rows / (f.rows ?? 1)));
    const nearest = candidates.sort((a, b) => distance(a) - distance(b))[0];
    const ours = nearest ? (f.condition === "ratio_vs_0" ? nearest.ratio : nearest.medianSeconds) : undefined;
    rows.push({
      engine: f.engine,
      operation: OPERATION_LABELS[f.series as keyof typeof OPERATION_LABELS] ?? f.series,
      "extra idx": f.extraIndexes,
      figure,
      "seed rows": f.rows,
      "seed (Go client)": f.value,
      "our rows": nearest?.rows,
      "ours (Node client)": r2(ours),
      "ours / seed": ours !== undefined ? r2(ours / f.value) : undefined,
      "our client ÷ server": r2(nearest?.clientPerServer),
    });
  }
  showTable(
    sortedBy(
      rows,
      [(r) => r.engine, ENGINES],
      [(r) => r.operation, Object.values(OPERATION_LABELS)],
      (r) => r["extra idx"],
      (r) => r.figure,
    ),
    {
      caption:
        "The seed's figures beside ours (ours at the same row count where this run has it, else the nearest). Absolute " +
        `seconds differ by machine; ratios differ by client path too. ${CLIENT_PATH}. Our client ÷ server: time per row ` +
        "outside the server ÷ server time (pg_stat_statements), medians over trials; the larger it is, the nearer 1 a " +
        "wall-time ratio is pulled (no server time on MongoDB)",
    },
  );
}

/** The counters behind the ratios: HOT share, B-tree inserts and splits from the WAL, WAL per row, index size. */
export function showExplanation(summaries: readonly ConditionSummary[]): void {
  const rows: Row[] = readingOrder(summaries)
    .filter((s) => s.engine === "postgresql")
    .map((s) => ({
      rows: s.rows,
      operation: OPERATION_LABELS[s.operation],
      "extra idx": s.extraIndexes,
      fillfactor: s.fillfactor,
      "HOT share": s.hotShare === undefined ? "" : `${Math.round(s.hotShare * 100)} %`,
      "B-tree leaf inserts / row": r2(s.btreeInsertsPerRow),
      "B-tree splits / 1k rows": r2(s.btreeSplitsPer1000),
      "heap records / row": r2(s.heapRecordsPerRow),
      "WAL bytes / row": s.walBytesPerRow === undefined ? undefined : Math.round(s.walBytesPerRow),
      "index MiB": s.indexBytes === undefined ? undefined : r2(s.indexBytes / 2 ** 20),
      "server ms": s.serverMs === undefined ? undefined : Math.round(s.serverMs),
      ratio: r2(s.ratio),
    }));
  if (rows.length)
    showTable(rows, {
      caption:
        "PostgreSQL server counters per condition (medians over trials; deltas over the timed part). B-tree and heap figures are " +
        "counted in the WAL of the timed part (pg_walinspect), not modelled; blank where the server does not offer pg_walinspect.",
    });
}

/** What notebook 03 shows, one call per section. */
import { escapeHtml, show } from "../../display/output";
import { plot } from "../../display/plotly";
import { rounded, showTable, sortedBy, type Row } from "../../display/table";
import { intervalLabel, OUTLIER_RULE, type Interval } from "../../stats/intervals";
import { count, f0, f1, f2, kilobytes, percent } from "../../stats/format";
import { SEED_SHAPE } from "./workload/dataset";
import { between } from "../../stats/claim-statistics";
import type { RunOf } from "../define";
import { extraIndexesFor, indexName } from "./workload/schema";
import type { TemplateInfo } from "./workload/databases";
import type { OverIndexingTrial } from "./workload/run-trials";
import type { OverIndexingParams } from "./params";
import { latencyByLevel, perSecond, storageByLevel, tpsByLevel, workPerTransaction } from "./charts";
import { clientSeconds, firstRounds, levelAt, seedCurveScaledTo, seedTps } from "./summarise";
import type { LevelSummary, OverIndexingSummary } from "./summarise";

/** What the run's work returns beside the trials. */
export type LoadedData = { readonly template: TemplateInfo; readonly script: string };
type Run = RunOf<OverIndexingParams, OverIndexingTrial, LoadedData>;

const mib = (x: number | undefined) => (x === undefined ? undefined : Math.round((x / 2 ** 20) * 10) / 10);
const pct = (x: number | undefined, d = 1) => percent(x, d, "");

/** The loaded data every round is cloned from, the index levels and the transaction. */
export function showLoadedData(run: Run): void {
  const t = run.template;
  const load = Object.values(t.loadSeconds).reduce((a, b) => a + b, 0);
  showTable(
    [
      {
        ...t.rows,
        "database MiB": mib(t.databaseBytes),
        "load s": rounded(load, 1),
        "TABLESAMPLE %": Number(t.samplePercent.toPrecision(3)),
      },
    ],
    { caption: `The loaded data every round is cloned from (dataScale ${run.params.dataScale} of the seed's)` },
  );
  const levels: Row[] = run.params.indexLevels.map((level) => ({
    level,
    "indexes added on top of the 7 from constraints": extraIndexesFor(level).map(indexName).join(", ") || "(none)",
  }));
  showTable(levels, { caption: "Index levels (each level's count is checked in pg_indexes before its round)" });
  show().html(
    `<details><summary>The transaction (pgbench script)</summary><pre>${escapeHtml(run.script)}</pre></details>`,
  );
}

const span = (i: Interval | undefined) => (i ? `${i.low.toFixed(2)}–${i.high.toFixed(2)}` : "");

export function levelRows(s: OverIndexingSummary): Row[] {
  const base = s.levels[0]?.level;
  return s.levels.map((l) => {
    const vsBase = (i: Interval | undefined) => (i ? rounded(i.estimate) : l.level === base ? 1 : undefined);
    return {
      indexes: l.level,
      rounds: l.rounds,
      "median tps": rounded(l.tps.median, 1),
      "tps range": `${l.tps.min.toFixed(0)}–${l.tps.max.toFixed(0)}`,
      [`tps / ${base} idx (paired)`]: vsBase(l.tpsRatio),
      interval: span(l.tpsRatio),
      "interval is": l.tpsRatio ? intervalLabel(l.tpsRatio) : "",
      [`server time / tx ÷ ${base} idx`]: vsBase(l.serverTimeRatio),
      "server-time interval": span(l.serverTimeRatio),
      "tps / previous level (paired)": rounded(l.stepRatio?.estimate),
      "step interval": span(l.stepRatio),
      "latency avg ms": rounded(l.latencyAvgMs?.median),
      "p50 ms": rounded(l.p50Ms),
      "p95 ms": rounded(l.p95Ms),
      "p99 ms": rounded(l.p99Ms),
      "flagged rounds": l.disturbedRounds + l.outlierRounds,
    };
  });
}

export function showLevelTable(s: OverIndexingSummary): void {
  showTable(levelRows(s), {
    caption:
      "Per level: medians over rounds; ratios are formed per round (every level runs once per round, back to back) and summarised by the exact interval of their median — its coverage is in 'interval is'",
  });
  showTable(
    sortedBy(
      s.rounds,
      (r) => r.level,
      (r) => r.repeat,
    ).map((r) => ({
      round: r.key,
      indexes: r.level,
      repeat: r.repeat,
      "position in round": r.order === undefined ? "" : r.order + 1,
      tps: rounded(r.tps, 1),
      transactions: r.transactions,
      failed: r.failed,
      "latency avg ms": rounded(r.latencyAvgMs),
      "p99 ms": rounded(r.p99Ms),
      "server ms / tx": rounded(r.serverMsPerTx),
      "clone s": rounded(r.cloneSeconds, 1),
      "index build s (first round of a level)": rounded(r.indexBuildSeconds, 1),
      "checkpoints inside": r.checkpoints,
      "autovacuum runs inside": r.autovacuumRuns,
      outlier: r.outlier ? "yes" : "",
    })),
    {
      caption: `Every round, by index level and repeat; 'position in round' is the order it ran in within its repeat (levels rotate between repeats). Outlier: ${OUTLIER_RULE}. Flagged rounds stay in the data; each claim says whether its verdict changes without them`,
    },
  );
}

export function showCharts(s: OverIndexingSummary): void {
  plot(tpsByLevel(s));
  plot(latencyByLevel(s));
  plot(storageByLevel(s), 480);
  plot(perSecond(s));
  plot(workPerTransaction(s));
}

export function showSeedComparison(s: OverIndexingSummary): void {
  const at7 = levelAt(s, 7)?.tps.median;
  const scaled = at7 ? seedCurveScaledTo(at7) : [];
  const rows: Row[] = seedTps().map((x) => {
    const ours = levelAt(s, x.level);
    const seedRatio = scaled.find((p) => p.level === x.level)?.ratio;
    const ourRatio = ours && at7 ? ours.tps.median / at7 : undefined;
    return {
      indexes: x.level,
      "seed tps (chart)": x.tps,
      "seed / 7 idx": rounded(seedRatio),
      "our tps": rounded(ours?.tps.median, 1),
      "our / 7 idx": rounded(ourRatio),
      "ours − seed (ratio)":
        ourRatio !== undefined && seedRatio !== undefined ? rounded(ourRatio - seedRatio) : undefined,
    };
  });
  showTable(rows, {
    caption:
      `The seed's TPS (128 cores, 16 clients, 20M products, ~11 GB in 64 GB of shared_buffers, ≥ 300 s rounds) beside ours (${s.clients} clients, ${s.durationSeconds} s rounds` +
      (s.dataScale !== undefined ? `, ${count(s.dataScale * SEED_SHAPE.products)} products` : "") +
      "); absolute TPS differ by machine and size, the ratios to the 7-index level are what compare",
  });
}

/** The server counters per level: what each transaction cost the server. */
export function showExplanation(s: OverIndexingSummary): void {
  const rows: Row[] = s.levels.map((l) => ({
    indexes: l.level,
    "B-tree leaf inserts / tx (WAL, measured)": rounded(l.btreeInsertsPerTx, 1),
    "index entries / tx (model: rows × indexes, non-HOT)": rounded(l.modelIndexEntriesPerTx, 1),
    "B-tree splits / tx": rounded(l.btreeSplitsPerTx),
    "B-tree share of WAL": pct(l.btreeWalShare, 0),
    "server ms / tx": rounded(l.serverMsPerTx),
    "stock HOT share": pct(l.stockHotShare, 0),
    "WAL kB / tx": rounded(l.walBytesPerTx === undefined ? undefined : l.walBytesPerTx / 1024),
    "FPI / tx": rounded(l.walFpiPerTx),
    "blocks dirtied / tx": rounded(l.dirtiedPerTx, 1),
    "index blocks touched / tx": rounded(l.indexBlocksPerTx, 1),
    "index growth kB / tx": rounded(l.indexGrowthPerTx === undefined ? undefined : l.indexGrowthPerTx / 1024),
    "WAL MiB / round": rounded(l.walMiB, 1),
    "cache hit": pct(l.hitRatio, 2),
    "checkpoints in rounds": l.checkpoints,
    "checkpointer buffers": l.checkpointerBuffers,
    "bgwriter buffers": l.bgwriterBuffers,
    "backend writes": l.backendWrites,
  }));
  showTable(rows, {
    caption:
      "Server counters per level (medians over rounds; per transaction = delta over the round ÷ transactions). B-tree inserts are counted from the round's WAL (pg_walinspect: INSERT_LEAF + INSERT_POST + SPLIT_L/R records); the model column is what the row counters predict, (inserted + non-HOT updated rows) × the table's indexes",
  });
  const storage: Row[] = firstRounds(s).map((r) => {
    const t = r.tables;
    return {
      indexes: r.level,
      ...Object.fromEntries(
        (Object.keys(t) as (keyof typeof t)[]).flatMap((name) => [
          [`${name} MiB`, mib(t[name].tableBytesAfter)],
          [`${name} idx (${t[name].indexes}) MiB`, mib(t[name].indexBytesAfter)],
        ]),
      ),
      "total before MiB": mib(Object.values(t).reduce((a, x) => a + x.tableBytesBefore + x.indexBytesBefore, 0)),
      "total after MiB": mib(Object.values(t).reduce((a, x) => a + x.tableBytesAfter + x.indexBytesAfter, 0)),
      "growth in round MiB": mib(r.tableGrowthBytes + r.indexGrowthBytes),
    };
  });
  showTable(storage, { caption: "Storage after the first round of each level, by table and its indexes" });
}

/** pg_stat_statements per statement and level: time, blocks and WAL per call. */
export function showStatements(s: OverIndexingSummary): void {
  const rows: Row[] = firstRounds(s).flatMap((r) =>
    r.statements
      .filter((st) => st.calls)
      .map((st) => ({
        indexes: r.level,
        statement: st.query.length > 70 ? `${st.query.slice(0, 70)}…` : st.query,
        calls: st.calls,
        "mean ms": rounded(st.meanMs),
        "rows / call": rounded(st.rows / st.calls, 1),
        "blocks dirtied / call": rounded(st.sharedDirtied / st.calls, 1),
        "blocks hit / call": rounded(st.sharedHit / st.calls, 1),
        "WAL records / call": rounded(st.walRecords / st.calls, 1),
        "WAL kB / call": rounded(st.walBytes / st.calls / 1024),
        "FPI / call": rounded(st.walFpi / st.calls),
      })),
  );
  showTable(rows, { caption: "pg_stat_statements per statement of the transaction (first round of each level)" });
}

/** The counters that explain a level's cost, lowest level vs highest, as one sentence of measured numbers. */
export function because(lo: LevelSummary, hi: LevelSummary): string {
  const m = between(lo, hi);
  const entries =
    lo.btreeInsertsPerTx !== undefined && hi.btreeInsertsPerTx !== undefined
      ? `${m((l) => l.btreeInsertsPerTx, f0)} B-tree leaf inserts (counted in the WAL by pg_walinspect; the row-counter model predicts ${m((l) => l.modelIndexEntriesPerTx, f0)}), ${m((l) => l.btreeSplitsPerTx, f2)} page splits, B-tree records ${m((l) => l.btreeWalShare, percent)} of the WAL bytes`
      : `${m((l) => l.modelIndexEntriesPerTx, f0)} index entries by the model (inserted + non-HOT updated rows × indexes; no pg_walinspect here to count them)`;
  const hot =
    (hi.stockHotShare ?? 1) < (lo.stockHotShare ?? 0)
      ? `; the share of HOT stock updates fell ${m((l) => l.stockHotShare, percent)}`
      : "";
  return `From ${lo.level} to ${hi.level} indexes each transaction made ${entries}${hot}; WAL ${m((l) => l.walBytesPerTx, kilobytes)} (full-page images ${m((l) => l.walFpiPerTx, f1)}), shared blocks dirtied ${m((l) => l.dirtiedPerTx, f1)}, server time ${m((l) => l.serverMsPerTx, f2)} ms per transaction.`;
}

/** The lowest round's reads and whether any buffer was evicted: what a miss was. */
export function readsText(s: OverIndexingSummary): string {
  const measured = s.rounds.filter((r) => r.hitRatio !== undefined);
  if (!measured.length) return "";
  const worst = measured.reduce((a, r) => ((r.hitRatio ?? 1) < (a.hitRatio ?? 1) ? r : a));
  const evicted = Math.max(...s.rounds.map((r) => r.evictions));
  return (
    `The lowest round (${worst.key}, ${percent(worst.hitRatio, 2)}) read ${f0(worst.blocksRead)} blocks (${f1((worst.blocksRead * 8192) / 2 ** 20)} MiB) in ${f0(worst.blockReadMs)} ms of read time (track_io_timing): ${percent(worst.blockReadMs / 1000 / clientSeconds(s), 1)} of the clients' time. ` +
    (evicted === 0
      ? "No buffer was evicted in any round (pg_stat_io): every miss was a first touch after the round's restart."
      : `Up to ${f0(evicted)} buffers were evicted in a round (pg_stat_io): shared_buffers did not hold everything.`)
  );
}

export type Between = ReturnType<typeof between<LevelSummary>>;
/** A why from levels 7 and 39 (and `between` them); "" when either did not run. */
export const why7to39 =
  (then: (m: Between, l7: LevelSummary, l39: LevelSummary, s: OverIndexingSummary) => string) =>
  (s: OverIndexingSummary) => {
    const [l7, l39] = [levelAt(s, 7), levelAt(s, 39)];
    return l7 && l39 ? then(between(l7, l39), l7, l39, s) : "";
  };

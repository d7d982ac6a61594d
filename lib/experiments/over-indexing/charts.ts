/** Notebook 03's charts, built from the summaries. */
import {
  axis,
  barTrace,
  COLOR,
  errorBars,
  groupedFigure,
  scatterTrace,
  titledFigure,
  type PlotlyFigure,
  type PlotlyTrace,
} from "../../display/plotly";
import { TABLES } from "./workload/schema";
import { stepCoordinates } from "../../workloads/pgbench";
import { quotient } from "../../stats/claim-statistics";
import { firstRounds, levelAt, seedCurveScaledTo, type LevelSummary, type OverIndexingSummary } from "./summarise";

const LEVEL_COLORS = [COLOR.blue, COLOR.teal, "#eeca3b", COLOR.orange, COLOR.red];
const TABLE_COLORS: Record<string, string> = {
  products: COLOR.blue,
  warehouses: COLOR.purple,
  stock: COLOR.orange,
  stock_movements: COLOR.green,
};

type Line = [string, (l: LevelSummary) => number | undefined, object];
/** One line per figure of the levels, `y` mapping its pick to the plotted values. */
const levelLines = (x: number[], lines: Line[], y: (pick: Line[1]) => (number | null)[]): PlotlyTrace[] =>
  lines.map(([name, pick, line]) => scatterTrace("lines+markers", name, x, y(pick), { line }));

/** A figure over the index levels, its y axis from 0. */
const overLevels = (data: PlotlyTrace[], x: number[], title: string, xTitle: string, yTitle: string) =>
  titledFigure(title, { xaxis: axis(xTitle, { tickvals: x }), yaxis: axis(yTitle) }, data);

/** TPS vs index count, ours (median, min–max) and the seed's curve scaled to our 7-index TPS. */
export function tpsByLevel(s: OverIndexingSummary): PlotlyFigure {
  const x = s.levels.map((l) => l.level);
  const mid = s.levels.map((l) => l.tps.median);
  const data = [
    scatterTrace("lines+markers", "this run (median; bars: min–max over rounds)", x, mid, {
      ...errorBars(
        s.levels.map((l, i) => l.tps.max - mid[i]),
        s.levels.map((l, i) => mid[i] - l.tps.min),
      ),
      line: { color: COLOR.blue, width: 3 },
    }),
  ];
  // Every round as a point; flagged ones (checkpoint or autovacuum inside, TPS outlier) as crosses.
  for (const flagged of [false, true]) {
    const rounds = s.rounds.filter((r) => (r.disturbed || r.outlier) === flagged);
    if (!rounds.length) continue;
    const name = flagged ? "flagged round (checkpoint / autovacuum inside, or outlier)" : "one round";
    const [x, y] = [rounds.map((r) => r.level), rounds.map((r) => r.tps)];
    data.push(
      scatterTrace("markers", name, x, y, {
        customdata: rounds.map((r) => r.key),
        hovertemplate: "%{customdata}: %{y:.0f} tps<extra></extra>",
        marker: flagged
          ? { symbol: "x", size: 10, color: COLOR.red }
          : { symbol: "circle-open", size: 7, color: COLOR.blue },
      }),
    );
  }
  const at7 = levelAt(s, 7)?.tps.median;
  if (at7) {
    const seed = seedCurveScaledTo(at7);
    const [x, y] = [seed.map((p) => p.level), seed.map((p) => p.tps)];
    data.push(
      scatterTrace("lines+markers", "the seed's curve, scaled to our 7-index TPS", x, y, {
        customdata: seed.map((p) => p.ratio),
        hovertemplate: "%{y:.0f} tps (seed ×%{customdata:.2f} of its 7-index TPS)<extra></extra>",
        line: { color: "#888", dash: "dot" },
        marker: { symbol: "diamond-open", size: 10 },
      }),
    );
  }
  const title = `Throughput vs number of indexes (${s.clients} clients, ${s.durationSeconds} s rounds)`;
  return overLevels(data, x, title, "indexes on the four tables", "transactions / s");
}

/** Latency (avg, p50, p95, p99) vs index count; the seed's average (11 → 26 ms) scaled to our 7-index average. */
export function latencyByLevel(s: OverIndexingSummary): PlotlyFigure {
  const x = s.levels.map((l) => l.level);
  const data = levelLines(
    x,
    [
      ["average (pgbench)", (l) => l.latencyAvgMs?.median, { width: 3, color: COLOR.blue }],
      ["p50", (l) => l.p50Ms, { color: COLOR.teal }],
      ["p95", (l) => l.p95Ms, { color: COLOR.orange }],
      ["p99", (l) => l.p99Ms, { color: COLOR.red }],
    ],
    (pick) => s.levels.map((l) => pick(l) ?? null),
  );
  const avg7 = levelAt(s, 7)?.latencyAvgMs?.median;
  if (avg7) {
    const name = "the seed's average (11 → 26 ms), scaled to ours at 7";
    const marker = { symbol: "diamond-open", size: 11, color: "#888" };
    data.push(scatterTrace("markers", name, [7, 39], [avg7, (avg7 * 26) / 11], { marker }));
  }
  const title = "Transaction latency vs number of indexes (percentiles from pgbench's transaction log)";
  return overLevels(data, x, title, "indexes", "ms");
}

/** Size of every table and of its indexes after the round (first round of each level), stacked. */
export function storageByLevel(s: OverIndexingSummary): PlotlyFigure {
  const firsts = firstRounds(s);
  const x = firsts.map((r) => `${r.level} indexes`);
  const mib = (b: number) => b / 2 ** 20;
  const data = TABLES.flatMap((table) => [
    barTrace(
      `${table} (table)`,
      x,
      firsts.map((r) => mib(r.tables[table].tableBytesAfter)),
      {
        marker: { color: TABLE_COLORS[table] },
      },
    ),
    barTrace(
      `${table} (indexes)`,
      x,
      firsts.map((r) => mib(r.tables[table].indexBytesAfter)),
      {
        marker: { color: TABLE_COLORS[table], pattern: { shape: "/" }, opacity: 0.7 },
        customdata: firsts.map((r) => r.tables[table].indexes),
        hovertemplate: "%{y:.1f} MiB in %{customdata} index(es)<extra>" + table + "</extra>",
      },
    ),
  ]);
  const before = firsts.map((r) =>
    mib(TABLES.reduce((a, t) => a + r.tables[t].tableBytesBefore + r.tables[t].indexBytesBefore, 0)),
  );
  const marker = { symbol: "line-ew-open", size: 30, color: "#333", line: { width: 2 } };
  data.push(scatterTrace("markers", "total before the round", x, before, { marker }));
  const title = "Storage after a round, by table and its indexes (the bar marks the size before the round)";
  return titledFigure(title, { barmode: "stack", yaxis: axis("MiB", {}) }, data);
}

/** TPS per second of every round, one line per level; a menu switches rounds. */
export function perSecond(s: OverIndexingSummary): PlotlyFigure {
  const repeats = [...new Set(s.rounds.map((r) => r.repeat))].sort((a, b) => a - b);
  const groups = repeats.map((repeat) => ({
    group: repeat,
    traces: s.rounds
      .filter((r) => r.repeat === repeat)
      .map((r) => {
        const color = LEVEL_COLORS[s.levels.findIndex((l) => l.level === r.level) % LEVEL_COLORS.length];
        const { x, y } = stepCoordinates(r.series, (p) => p.tps);
        return scatterTrace("lines", `${r.level} indexes`, x, y, { line: { color, shape: "hv" } });
      }),
  }));
  return groupedFigure(groups, "TPS per second in each round (from pgbench's transaction log)", (r) => `round ${r}`, {
    xaxis: axis("seconds since the load started", {}),
    yaxis: axis("transactions / s"),
  });
}

/** Work per transaction relative to the 7-index level, beside the TPS loss: what grew, by how much. */
export function workPerTransaction(s: OverIndexingSummary): PlotlyFigure {
  const base = s.levels[0];
  const x = s.levels.map((l) => l.level);
  const rel = (pick: Line[1]) => {
    const b = base && pick(base);
    return s.levels.map((l) => quotient(pick(l), b) ?? null);
  };
  const measured = base?.btreeInsertsPerTx !== undefined;
  const data = levelLines(
    x,
    [
      measured
        ? ["B-tree leaf inserts / tx (WAL, measured)", (l) => l.btreeInsertsPerTx, { color: COLOR.red }]
        : ["index entries / tx (model)", (l) => l.modelIndexEntriesPerTx, { color: COLOR.red, dash: "dot" }],
      ["server time / tx (pg_stat_statements)", (l) => l.serverMsPerTx, { color: COLOR.teal }],
      ["WAL bytes / tx", (l) => l.walBytesPerTx, { color: COLOR.orange }],
      ["blocks dirtied / tx", (l) => l.dirtiedPerTx, { color: COLOR.green }],
      ["index blocks touched / tx", (l) => l.indexBlocksPerTx, { color: COLOR.purple }],
      ["time per tx (1 / TPS)", (l) => 1 / l.tps.median, { color: COLOR.blue, width: 4 }],
    ],
    rel,
  );
  const b = base?.level ?? 7;
  return overLevels(data, x, `Work per transaction, relative to ${b} indexes`, "indexes", `× the ${b}-index value`);
}

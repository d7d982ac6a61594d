/** What the notebook shows, one call per section (each with its charts), so the notebook stays narrative + calls. */
import { escapeHtml, show } from "../../display/output";
import { axis, chart, COLOR, errorBars, intervalBars, type PlotlyTrace } from "../../display/plotly";
import { showTable, type Row } from "../../display/table";
import { intervalLabel, OUTLIER_RULE, type Interval } from "../../stats/intervals";
import { counterEntries, type Counters } from "../../stats/counters";
import { count, f0, f2, shortCount, times } from "../../stats/format";
import type { SecondsSpread } from "../../stats/summary";
import { METHOD_LABELS, METHODS, type Method } from "./workload/plan";
import { checkpoints, type CreateIndexCounterKey, type PhaseName } from "./workload/session";
import { seedFigures } from "./seed";
import * as sum from "./summarise";

type S = sum.CreateIndexSummary;
type M = sum.MethodSummary;
// Tables format numbers to 3 significant digits themselves; this only drops what cannot be shown.
const num = (x: number | undefined) => (x === undefined || !Number.isFinite(x) ? undefined : x);
const mb = (bytes: number | undefined) => num(bytes === undefined ? undefined : bytes / 2 ** 20);
const perRowUs = (seconds: number | undefined, rows: number) =>
  seconds === undefined ? undefined : (seconds / rows) * 1e6;
const short = (m: Method) => (m === "load_then_index" ? "A" : "B");
const ratioCell = (i: Interval | undefined) =>
  i ? `${f2(i.estimate)} [${f2(i.low)}–${f2(i.high)}] ${intervalLabel(i)}` : "";
const minMax = (x: SecondsSpread) => `${f2(x.minSeconds)}–${f2(x.maxSeconds)}`;
const sides = (p: sum.PairSummary | undefined) => [p?.a, p?.b].filter((m): m is M => m !== undefined);
/** "A <label>" and "B <label>" columns, `cell` of each side. */
const ab = <T>(label: string, [a, b]: readonly [T, T], cell: (x: T) => Row[string]) => ({
  [`A ${label}`]: cell(a),
  [`B ${label}`]: cell(b),
});

const COLORS: Readonly<Record<Method, string>> = { load_then_index: COLOR.blue, index_then_load: COLOR.red };
const PHASE_COLORS = { load: "#9ecae9", index: COLOR.blue, checkpoint: "#bab0ac" } as const;
const SECONDS_AXIS = axis("seconds");
const LOG_ROWS = axis("rows", { type: "log" });
const RIGHT_AXIS = { overlaying: "y", side: "right", showgrid: false };
type Values = readonly (number | string | null)[];
/** A bar, unless `more` gives another type. */
const trace = (name: string, x: Values, y: Values, more = {}): PlotlyTrace => ({ type: "bar", name, x, y, ...more });
const scatter =
  (mode: string) =>
  (name: string, x: Values, y: Values, more = {}) =>
    trace(name, x, y, { type: "scatter", mode, ...more });
const [lines, markers] = [scatter("lines+markers"), scatter("markers")];
/** Min–max around the median, through `per` (µs per row in the size sweep). */
const minMaxWhiskers = <T extends SecondsSpread>(points: readonly T[], per = (v: number, _p: T) => v) =>
  errorBars(
    points.map((p) => per(p.maxSeconds - p.medianSeconds, p)),
    points.map((p) => per(p.medianSeconds - p.minSeconds, p)),
  );
const phaseBars = (x: string[], methods: M[]) =>
  (["load", "index"] as const).map((phase) => {
    const y = methods.map((m) => (m.phaseMs[phase] ?? 0) / 1000);
    return trace(phase === "load" ? "INSERT … SELECT" : "CREATE INDEX", x, y, {
      marker: { color: PHASE_COLORS[phase] },
    });
  });

export function showHeadline(s: S): void {
  const h = s.headline;
  const rows: Row[] = s.pairs
    .filter((p) => sum.atHeadlineSort(p, h))
    .flatMap((p) =>
      sides(p).map(({ condition: c, ...m }) => ({
        rows: c.rows,
        codes:
          `${c.codes !== undefined ? `${c.codes} ` : ""}${c.keyOrder}` +
          (c.sharedBuffersMB !== undefined ? ` (shared_buffers ${c.sharedBuffersMB} MB)` : ""),
        method: METHOD_LABELS[c.method],
        n: m.trials,
        "median s": num(m.medianSeconds),
        "min–max s": minMax(m),
        "INSERT s": num((m.phaseMs.load ?? 0) / 1000),
        "CREATE INDEX s": num((m.phaseMs.index ?? 0) / 1000),
        "closing CHECKPOINT s": num((m.phaseMs.checkpoint ?? 0) / 1000),
        "B / A (paired)": c.method === "index_then_load" ? ratioCell(p.timeRatio) : "",
        "server-time B / A": c.method === "index_then_load" ? ratioCell(p.serverTimeRatio) : "",
      })),
    );
  showTable(rows, {
    caption:
      "Medians per method (seed's measure: A = INSERT + CREATE INDEX, B = INSERT into the indexed table; B's CREATE INDEX ran on the empty table). " +
      "B / A is formed per repeat (A and B back to back), then its median over repeats with the exact order-statistic interval, or the range " +
      "when there are too few repeats for one; server time is the backend's own elapsed time (log_statement_stats), without the client path. " +
      "The closing CHECKPOINT is timed apart: the dirty pages each method left for later.",
  });
  const pair = sum.headlinePair(s);
  const methods = sides(pair);
  const x = methods.map((m) => METHOD_LABELS[m.condition.method]);
  const [load, index] = phaseBars(x, methods);
  const checkpoint = methods.map((m) => (m.phaseMs.checkpoint ?? 0) / 1000);
  const each = methods.flatMap((m) => m.seconds.map(() => METHOD_LABELS[m.condition.method]));
  const seconds = methods.flatMap((m) => m.seconds);
  const title = `Headline: ${shortCount(pair?.rows ?? h.rows)} rows, median phases`;
  chart(title, { barmode: "stack", yaxis: SECONDS_AXIS }, [
    load,
    { ...index, hovertemplate: "%{y:.3f} s (B: on the empty table, before the load)<extra></extra>" },
    trace("closing CHECKPOINT (write-back left behind; not in the seed's time)", x, checkpoint, {
      marker: { color: PHASE_COLORS.checkpoint, pattern: { shape: "/" } },
    }),
    markers("each trial (seed's measure)", each, seconds, {
      marker: { color: "#222", size: 7, symbol: "line-ew-open" },
    }),
  ]);
  if (!pair?.repeats.length) return;
  const repeats: Row[] = pair.repeats.map(({ repeat, first, a, b, flags }) => ({
    repeat,
    "ran first": first ? short(first) : "",
    ...ab("s", [a, b], (x) => num(x.seconds)),
    "B / A": num(b.seconds / a.seconds),
    ...ab("server s", [a, b], (x) => num(x.serverSeconds)),
    ...ab("CPU s", [a, b], (x) => num(x.cpuS)),
    ...ab("run-queue wait s", [a, b], (x) => num(x.runQueueWaitS)),
    "B/A WAL records": num(a.walRecords > 0 ? b.walRecords / a.walRecords : undefined),
    "checkpoints requested (A, B)": `${a.requestedCheckpoints}, ${b.requestedCheckpoints}`,
    flags: flags.join(", "),
  }));
  showTable(repeats, {
    caption:
      `Headline repeats (${count(pair.rows)} rows). Flags: outlier = ${OUTLIER_RULE}; a timed checkpoint or an autovacuum ` +
      "run inside a timed phase. Run-queue wait: time the backend and its parallel workers were runnable while another process had the CPU " +
      "(/proc/<pid>/schedstat; (3m) is judged only where B − A of it is within a tenth of the gap). Checkpoints a method's own WAL volume requested are its cost, not a flag. Each claim says whether its " +
      "verdict changes without the flagged repeats",
  });
}

/** Seconds per row (machines differ) and the ratios; ours over the seed's only at the seed's size. */
export function showSeedComparison(s: S): void {
  const seed = seedFigures();
  const pair = sum.headlinePair(s);
  const ourRows = pair?.rows ?? s.headline.rows;
  const walRatio =
    pair?.a && pair.b ? (pair.b.totals["wal.records"] ?? NaN) / (pair.a.totals["wal.records"] ?? NaN) : undefined;
  const vsSeed = (ours: number | undefined, theirs: number) =>
    pair?.rows === seed.rows && ours !== undefined ? num(ours / theirs) : "different sizes";
  const p3 = (x: number | undefined) => (x === undefined ? "" : x.toPrecision(3));
  const method = (figure: string, seconds: number, m: M | undefined): Row => ({
    figure,
    seed: `${seconds} s = ${p3(perRowUs(seconds, seed.rows))} µs/row (${count(seed.rows)} rows)`,
    "this run": m
      ? `${p3(m.medianSeconds)} s = ${p3(perRowUs(m.medianSeconds, ourRows))} µs/row (${count(ourRows)} rows)`
      : "",
    "ours / seed": m ? vsSeed(m.medianSeconds, seconds) : undefined,
  });
  const rows: Row[] = [
    method("A: load, then CREATE INDEX", seed.loadThenIndexS, pair?.a),
    method("B: CREATE INDEX, then load", seed.indexThenLoadS, pair?.b),
    {
      figure: "B / A (time)",
      seed: `${times(seed.ratio)} (${count(seed.rows)} rows, mean of 2)`,
      "this run": pair?.timeRatio ? `${ratioCell(pair.timeRatio)} (${count(ourRows)} rows)` : "",
      "ours / seed": vsSeed(pair?.timeRatio?.estimate, seed.ratio),
    },
    {
      figure: "B / A (WAL records)",
      seed: `≈ ${seed.walRecordsRatio}× (${count(seed.rows)} rows)`,
      "this run": walRatio !== undefined ? `${times(walRatio)} (${count(ourRows)} rows, medians)` : "",
      "ours / seed": vsSeed(walRatio, seed.walRecordsRatio),
    },
  ];
  showTable(rows, {
    caption:
      `The seed (${count(seed.rows)} rows, mean of 2) beside this run (${count(ourRows)} rows): absolute times depend on the machine; ` +
      "the ratios of B to A change with the table size (see the size sweep), so ours is set against the seed's only at the same size",
  });
}

type Pick = (c: Counters<CreateIndexCounterKey>, m: M, phase: PhaseName | undefined) => number | undefined;
const COUNTERS: readonly [string, Pick][] = [
  ["elapsed s", (_c, m, phase) => num((phase ? (m.phaseMs[phase] ?? 0) : m.medianSeconds * 1000) / 1000)],
  ["CPU s (backend + parallel workers)", (_c, m, phase) => num(phase ? m.phaseCpuS[phase] : m.backendCpuS)],
  [
    "run-queue wait s (backend + parallel workers)",
    (_c, m, phase) => num(phase ? m.phaseRunQueueWaitS[phase] : m.runQueueWaitS),
  ],
  ["WAL records", (c) => c["wal.records"]],
  ["WAL full-page images", (c) => c["wal.fpi"]],
  ["WAL MB", (c) => mb(c["wal.bytes"])],
  ["WAL writes", (c) => c["wal.write"]],
  ["WAL syncs", (c) => c["wal.sync"]],
  ["WAL buffers full", (c) => c["wal.buffers_full"]],
  ["WAL write + sync time ms", (c) => num((c["wal.write_time_ms"] ?? 0) + (c["wal.sync_time_ms"] ?? 0))],
  ["blks_read", (c) => c["db.blks_read"]],
  ["blks_hit", (c) => c["db.blks_hit"]],
  ["blk_read_time ms", (c) => num(c["db.blk_read_time_ms"])],
  ["blk_write_time ms", (c) => num(c["db.blk_write_time_ms"])],
  ["timed I/O wait ms (blk + WAL)", (c) => num(sum.ioWaitMs(c))],
  ["temp files", (c) => c["db.temp_files"]],
  ["temp MB", (c) => mb(c["db.temp_bytes"])],
  ["checkpoints (timed + requested)", (c) => checkpoints(c)],
  ["checkpointer buffers written", (c) => c["checkpointer.buffers_written"]],
  ["bgwriter buffers cleaned", (c) => c["bgwriter.buffers_clean"]],
];

/** Counters that decide the claims, per phase of each method (headline, medians), and where the time went. */
export function showCounters(s: S): void {
  const pair = sum.headlinePair(s);
  if (!pair?.a || !pair.b) return;
  const { a, b } = pair;
  const cols: [string, M, PhaseName?][] = [
    ["A · INSERT", a, "load"],
    ["A · CREATE INDEX", a, "index"],
    ["A total", a],
    ["B · INSERT (indexed)", b, "load"],
    ["A closing CHECKPOINT", a, "checkpoint"],
    ["B closing CHECKPOINT", b, "checkpoint"],
  ];
  const value = (m: M, phase: PhaseName | undefined, pick: Pick) =>
    pick(phase ? (m.byPhase[phase] ?? {}) : m.totals, m, phase);
  const rows: Row[] = COUNTERS.map(([counter, pick]) => {
    const [av, bv] = [value(a, undefined, pick), value(b, undefined, pick)];
    return {
      counter,
      ...Object.fromEntries(cols.map(([label, m, phase]) => [label, value(m, phase, pick)])),
      "B / A total": av && bv !== undefined ? num(bv / av) : undefined,
    };
  });
  showTable(rows, {
    caption: `Server counters per phase, ${count(pair.rows)} rows (after − before each statement, medians over trials; "A total" = the seed's timed phases)`,
  });
  const x = [a, b].map((m) => METHOD_LABELS[m.condition.method]);
  const bars: [string, string, (m: M) => number | null][] = [
    ["elapsed (seed's measure)", "#bab0ac", (m) => m.medianSeconds],
    [
      "CPU, user + system: backend (log_statement_stats) + parallel workers (trace_sort)",
      COLOR.orange,
      (m) => m.backendCpuS ?? null,
    ],
    ["timed I/O wait: blk read+write, WAL write+sync", COLOR.blue, (m) => sum.ioWaitMs(m.totals) / 1000],
  ];
  const data = bars.map(([name, color, f]) => trace(name, x, [a, b].map(f), { marker: { color } }));
  chart("Where the time went (headline, medians): CPU, not disk", { barmode: "group", yaxis: SECONDS_AXIS }, data);
}

/** pg_stat_io by backend type and context over the timed phases and the closing checkpoint. */
export function showIoByBackend(s: S): void {
  const pair = sum.headlinePair(s);
  if (!pair?.a || !pair.b) return;
  const sources: [string, Counters<CreateIndexCounterKey>][] = [
    ["A timed", pair.a.totals],
    ["B timed", pair.b.totals],
    ["A checkpoint", pair.a.deferred],
    ["B checkpoint", pair.b.deferred],
  ];
  const groups = new Set(
    sources.flatMap(([, c]) =>
      counterEntries(c).flatMap(([k]) => (k.startsWith("io.") ? [k.split(".").slice(1, 4).join(" · ")] : [])),
    ),
  );
  const counters = ["reads", "writes", "extends", "hits", "evictions"] as const;
  const rows: Row[] = [...groups].sort().flatMap((g) =>
    sources.flatMap(([phases, c]) => {
      const [backend, object, context] = g.split(" · ");
      const vals = counters.map((k) => c[`io.${backend}.${object}.${context}.${k}`] ?? 0);
      if (vals.every((v) => v === 0)) return [];
      return [{ "backend · object · context": g, phases, ...Object.fromEntries(counters.map((k, i) => [k, vals[i]])) }];
    }),
  );
  showTable(rows, {
    caption:
      "pg_stat_io, 8 kB blocks (medians). CREATE INDEX writes its pages through smgr, not shared buffers, so its writes appear in no pg_stat_io row — " +
      "only in the WAL (as page images) and in the backend's file-system blocks out",
  });
}

export function showSizeSweep(s: S): void {
  const seed = seedFigures();
  const sweep = sum.sizeSweep(s);
  const rows: Row[] = sweep.map((p) => ({
    rows: p.rows,
    ...ab("s", [p.a, p.b], (m) => num(m?.medianSeconds)),
    ...ab("µs/row", [p.a, p.b], (m) => num(perRowUs(m?.medianSeconds, p.rows))),
    "B / A (paired)": ratioCell(p.timeRatio),
    "server-time B / A": ratioCell(p.serverTimeRatio),
    n: `${p.a?.trials ?? 0}+${p.b?.trials ?? 0}`,
    ...ab("CPU µs/row", [p.a, p.b], (m) => num(perRowUs(m?.backendCpuS, p.rows))),
    "index MB (B)": mb(p.b?.index?.indexBytes),
    "B blks_read": p.b?.totals["db.blks_read"],
    "B checkpoints": p.b ? checkpoints(p.b.totals) : undefined,
    "A sort": p.a?.sortSpilled === undefined ? "" : p.a.sortSpilled ? "external" : "in memory",
  }));
  showTable(rows, {
    caption:
      "Size sweep (random codes, the server's settings): does the gap grow linearly or worse, and is there a crossover?",
  });
  const perRow = METHODS.flatMap((method) => {
    const points = sweep.flatMap((p) => sides(p).filter((m) => m.condition.method === method));
    const cpu = points.filter((m) => m.backendCpuS !== undefined);
    const perUs = (v: number, m: M) => (v / m.condition.rows) * 1e6;
    const [x, y] = [points.map((m) => m.condition.rows), points.map((m) => perUs(m.medianSeconds, m))];
    const [cpuX, cpuY] = [cpu.map((m) => m.condition.rows), cpu.map((m) => perUs(m.backendCpuS ?? NaN, m))];
    return [
      lines(METHOD_LABELS[method], x, y, { line: { color: COLORS[method] }, ...minMaxWhiskers(points, perUs) }),
      lines(`${short(method)}: CPU (backend + parallel workers)`, cpuX, cpuY, {
        line: { color: COLORS[method], dash: "dot" },
        marker: { symbol: "circle-open" },
      }),
    ];
  });
  const title = "Time per row vs rows (flat = linear; whiskers = min–max; dotted = CPU per row)";
  chart(title, { xaxis: LOG_ROWS, yaxis: axis("µs per row (seed's measure)") }, perRow);
  const ratios = sweep.flatMap((p) => (p.timeRatio ? [{ rows: p.rows, r: p.timeRatio }] : []));
  const [x, y] = [ratios.map((p) => p.rows), ratios.map((p) => p.r.estimate)];
  const ratioTitle =
    "How much slower is loading into an indexed table? (B / A per repeat; whiskers: interval or range over repeats)";
  chart(ratioTitle, { xaxis: LOG_ROWS, yaxis: axis("B / A, paired per repeat") }, [
    lines("this run: B / A (median of paired ratios)", x, y, {
      text: ratios.map((p) => intervalLabel(p.r)),
      line: { color: COLOR.green },
      ...intervalBars(ratios.map((p) => p.r)),
    }),
    markers(`seed (${shortCount(seed.rows)} rows, mean of 2)`, [seed.rows], [seed.ratio], {
      marker: { symbol: "diamond-open", size: 13, color: "#222" },
    }),
    scatter("lines")("no difference", [Math.min(...x, seed.rows), seed.rows], [1, 1], {
      line: { color: "#999", dash: "dot" },
    }),
  ]);
}

/** Random vs ascending codes: phases of each method, at the headline size. */
export function showKeyOrder(s: S): void {
  if (!s.pairs.some((p) => p.keyOrder === "sorted")) return;
  const methods = sum.headlinePairs(s, (p) => p.rows === s.headline.rows).flatMap(sides);
  const x = methods.map((m) => `${short(m.condition.method)} · ${m.condition.keyOrder} codes`);
  const density = methods.map((m) => m.index?.avgLeafDensity ?? null);
  const title = `Random vs ascending codes (${shortCount(s.headline.rows)} rows): right-edge appends vs random leaf splits`;
  const y2 = axis("avg leaf density %", { ...RIGHT_AXIS, range: [0, 100], tickmode: "linear", dtick: 20 });
  chart(title, { barmode: "stack", yaxis: SECONDS_AXIS, yaxis2: y2 }, [
    ...phaseBars(x, methods),
    scatter("markers+text")("leaf density (right axis)", x, density, {
      text: methods.map((m) => (m.index ? `${f0(m.index.avgLeafDensity)} %` : "")),
      textposition: "top center",
      yaxis: "y2",
      marker: { color: "#222", symbol: "diamond", size: 9 },
    }),
  ]);
}

export function showBuildSweep(s: S): void {
  if (!s.builds.length) return;
  // summarise sorts the builds by maintenance_work_mem, then workers.
  const rows: Row[] = s.builds.map((b) => ({
    maintenance_work_mem: `${b.maintenanceWorkMemMB} MB`,
    "max workers": b.parallelWorkers,
    "sort participants": b.participants ? b.participants : "serial",
    n: b.trials,
    "median s": num(b.medianSeconds),
    "min–max s": minMax(b),
    sort: b.spilled === undefined ? "" : b.spilled ? `external (${b.maxRuns} runs)` : "in memory",
    "temp files": b.tempFiles,
    "temp MB": mb(b.tempBytes),
    "leader CPU s": num(b.leaderCpuS),
    "workers CPU s": num(b.workerCpuS),
  }));
  showTable(rows, {
    caption:
      `CREATE INDEX sweep on one loaded, vacuumed table (${shortCount(s.builds[0].rows)} rows): sort in memory vs external, serial vs parallel. ` +
      "PostgreSQL gives each sort participant at least 32 MB, so small maintenance_work_mem launches fewer workers than asked; " +
      "a parallel build hands each worker's sorted run to the leader in a temporary file, so it writes temp files even when nothing spilled",
  });
  const palette = [COLOR.blue, COLOR.orange, COLOR.green, COLOR.purple, COLOR.brown];
  const workers = [...new Set(s.builds.map((b) => b.parallelWorkers))].sort((x, y) => x - y);
  const data = workers.flatMap((w, i) => {
    const points = s.builds.filter((b) => b.parallelWorkers === w);
    const x = points.map((b) => `${b.maintenanceWorkMemMB} MB`);
    const color = palette[i % palette.length];
    const how = (b: (typeof points)[number]) =>
      `${b.spilled ? "external sort" : "in memory"}, ${b.participants ? `${b.participants} participants` : "serial"}`;
    const [temp, median] = [points.map((b) => b.tempBytes / 2 ** 20), points.map((b) => b.medianSeconds)];
    return [
      trace(`temp MB, max workers ${w}`, x, temp, {
        yaxis: "y2",
        opacity: 0.35,
        marker: { color },
        offsetgroup: String(w),
      }),
      lines(`seconds, max workers ${w}`, x, median, {
        text: points.map(how),
        hovertemplate: "%{y:.2f} s · %{text}<extra></extra>",
        line: { color },
        ...minMaxWhiskers(points),
      }),
    ];
  });
  const title = `CREATE INDEX on ${shortCount(s.builds[0].rows)} loaded rows: sort memory and parallel workers`;
  const xaxis = axis("maintenance_work_mem", { type: "category" });
  const y2 = axis("temporary files written, MB", { ...RIGHT_AXIS, rangemode: "tozero", tickmode: "auto" });
  chart(title, { xaxis, yaxis: SECONDS_AXIS, yaxis2: y2, barmode: "group" }, data);
  const example = s.builds.find((b) => b.spilled) ?? s.builds[0];
  if (example.sortLines.length)
    show().html(
      `<details><summary>trace_sort milestones, ${example.maintenanceWorkMemMB} MB, max workers ${example.parallelWorkers}</summary><pre>` +
        escapeHtml(example.sortLines.join("\n")) +
        "</pre></details>",
    );
}

export function showWalAnatomy(s: S): void {
  if (!s.walAnatomy.length) return;
  // The small fry (a handful of records) would only crowd the legend.
  const shown = sum
    .typeCounts(s.walAnatomy)
    .slice(0, 7)
    .map(([t]) => t);
  const x = s.walAnatomy.map((w) => METHOD_LABELS[w.method]);
  const perRow = (types: string[], other = false) =>
    s.walAnatomy.map(
      (w) => w.types.filter((t) => types.includes(t.type) !== other).reduce((a, t) => a + t.count, 0) / w.rows,
    );
  const title = `WAL records per row by type (pg_walinspect, ${shortCount(s.walAnatomy[0].rows)} rows)`;
  chart(title, { barmode: "stack", yaxis: axis("records per row") }, [
    ...shown.map((type) => trace(type, x, perRow([type]))),
    trace("other types", x, perRow(shown, true), { marker: { color: "#ccc" } }),
  ]);
  const rows: Row[] = s.walAnatomy.flatMap((w) =>
    w.types
      .filter((t) => t.count / w.rows >= 0.001 || t.fpiBytes > 0)
      .map((t) => ({
        method: short(w.method),
        phase: t.phase,
        "record type": t.type,
        records: t.count,
        "per row": num(t.perRow),
        "record MB": mb(t.recordBytes),
        "page-image MB": mb(t.fpiBytes),
      })),
  );
  showTable(rows, {
    caption: `WAL decoded by record type (pg_walinspect), ${count(s.walAnatomy[0].rows)} rows, types with ≥ 1 record per 1,000 rows or page images`,
  });
}

export function showIndexShapes(s: S): void {
  const rows: Row[] = s.methods
    .flatMap(({ condition: c, index }) => (index ? [{ c, index }] : []))
    .sort(
      (x, y) => x.c.rows - y.c.rows || x.c.keyOrder.localeCompare(y.c.keyOrder) || x.c.method.localeCompare(y.c.method),
    )
    .map(({ c, index }) => ({
      rows: c.rows,
      codes: c.keyOrder,
      method: short(c.method),
      "tree levels": index.treeLevel + 1,
      "index MB": mb(index.indexBytes),
      "table MB": mb(index.tableBytes),
      "leaf pages": index.leafPages,
      "internal pages": index.internalPages,
      "avg leaf density %": num(index.avgLeafDensity),
      "leaf fragmentation %": num(index.leafFragmentation),
    }));
  showTable(rows, {
    caption: "The finished index (pgstatindex, medians): a bottom-up build vs a tree grown by inserts",
  });
}

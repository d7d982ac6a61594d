/**
 * What notebook 02 shows, one call per section, so the notebook stays narrative + calls.
 */
import { median } from "simple-statistics";
import { escapeHtml, show } from "../../display/output";
import { plot } from "../../display/plotly";
import { showTable, sortedBy, type Row } from "../../display/table";
import { intervalLabel, OUTLIER_RULE, type Interval } from "../../stats/intervals";
import { METHOD_LABELS, type Method } from "./workload/plan";
import type { CreateIndexCounterKey, PhaseName } from "./workload/session";
import { counterEntries, type Counters } from "../../stats/counters";
import {
  buildSweep,
  headlineBars,
  keyOrderBars,
  rowsLabel,
  sizeSweepPerRow,
  sizeSweepRatio,
  timeBudget,
  walComposition,
} from "./charts";
import { seedFigures } from "./seed";
import type { RunMetadata } from "../../results/metadata";
import type { CreateIndexTrial } from "./workload/run-trials";
import {
  checkpoints,
  headlinePair,
  ioWaitMs,
  sizeSweep,
  type CreateIndexSummary,
  type MethodSummary,
} from "./summarise";

// Tables format numbers to 3 significant digits themselves; these only drop what cannot be shown.
const r2 = (x: number | undefined) => (x === undefined || !Number.isFinite(x) ? undefined : x);
const r1 = r2;
const mb = (bytes: number | undefined) => (bytes === undefined ? undefined : bytes / 2 ** 20);
const short = (m: Method) => (m === "load_then_index" ? "A" : "B");

/** The server's settings as it reported them, and the host's load during the trials (a busy host: noisy trials). */
export function showRunFacts(run: {
  readonly effectiveSettings: Readonly<Record<string, string>>;
  readonly elapsedS: number;
  readonly metadata: RunMetadata;
  readonly trials: readonly CreateIndexTrial[];
}): void {
  showTable(
    Object.entries(run.effectiveSettings).map(([setting, value]) => ({ setting, value })),
    {
      caption:
        "Server settings as the server reports them (SHOW); maintenance_work_mem and max_parallel_maintenance_workers are SET per trial where a sweep varies them",
    },
  );
  const loads = run.trials.flatMap((t) => t.loadAverage ?? []);
  const cpus = run.metadata.host.cpus;
  const busy = loads.length > 0 && median(loads) > cpus;
  const loadText = loads.length
    ? ` Host 1-minute load average during the trials: median ${median(loads).toFixed(1)}, max ${Math.max(...loads).toFixed(1)} on ${cpus} CPUs` +
      (busy
        ? " — other work competed for the CPU, so single trials are noisy: read the medians, ranges and intervals, not one trial."
        : ".")
    : "";
  show().html(
    `<div style="${busy ? "border-left:4px solid #f58518;padding:6px 10px;background:#fff7ec" : "color:#555"}">` +
      `${run.trials.length} trials in ${Math.round(run.elapsedS)} s (server start included).${escapeHtml(loadText)}</div>`,
  );
}

export function showHeadline(s: CreateIndexSummary): void {
  const rows: Row[] = s.pairs
    .filter(
      (p) =>
        p.maintenanceWorkMemMB === s.headline.maintenanceWorkMemMB && p.parallelWorkers === s.headline.parallelWorkers,
    )
    .flatMap((p) =>
      [p.a, p.b]
        .filter((m): m is MethodSummary => m !== undefined)
        .map((m) => ({
          rows: m.condition.rows,
          codes:
            `${m.condition.codes !== undefined ? `${m.condition.codes} ` : ""}${m.condition.keyOrder}` +
            (m.condition.sharedBuffersMB !== undefined ? ` (shared_buffers ${m.condition.sharedBuffersMB} MB)` : ""),
          method: METHOD_LABELS[m.condition.method],
          n: m.trials,
          "median s": r2(m.medianSeconds),
          "min–max s": `${m.minSeconds.toFixed(2)}–${m.maxSeconds.toFixed(2)}`,
          "INSERT s": r2((m.phaseMs.load ?? 0) / 1000),
          "CREATE INDEX s": r2((m.phaseMs.index ?? 0) / 1000),
          "closing CHECKPOINT s": r2((m.phaseMs.checkpoint ?? 0) / 1000),
          "B / A (paired)": m.condition.method === "index_then_load" && p.timeRatio ? ratioCell(p.timeRatio) : "",
          "server-time B / A":
            m.condition.method === "index_then_load" && p.serverTimeRatio ? ratioCell(p.serverTimeRatio) : "",
        })),
    );
  showTable(rows, {
    caption:
      "Medians per method (seed's measure: A = INSERT + CREATE INDEX, B = INSERT into the indexed table; B's CREATE INDEX ran on the empty table). " +
      "B / A is formed per repeat (A and B back to back), then its median over repeats with the exact order-statistic interval, or the range " +
      "when there are too few repeats for one; server time is the backend's own elapsed time (log_statement_stats), without the client path. " +
      "The closing CHECKPOINT is timed apart: the dirty pages each method left for later.",
  });
  plot(headlineBars(s));
  showRepeats(s);
}

const ratioCell = (i: Interval) =>
  `${i.estimate.toFixed(2)} [${i.low.toFixed(2)}–${i.high.toFixed(2)}] ${intervalLabel(i)}`;

/** The headline's repeats side by side: order, both times, the paired ratio and what flags a repeat. */
export function showRepeats(s: CreateIndexSummary): void {
  const pair = headlinePair(s);
  if (!pair?.repeats.length) return;
  const rows: Row[] = pair.repeats.map((r) => ({
    repeat: r.repeat,
    "ran first": r.first ? short(r.first) : "",
    "A s": r2(r.a.seconds),
    "B s": r2(r.b.seconds),
    "B / A": r2(r.b.seconds / r.a.seconds),
    "A server s": r2(r.a.serverSeconds),
    "B server s": r2(r.b.serverSeconds),
    "A CPU s": r2(r.a.cpuS),
    "B CPU s": r2(r.b.cpuS),
    "B/A WAL records": r2(r.a.walRecords > 0 ? r.b.walRecords / r.a.walRecords : undefined),
    "checkpoints requested (A, B)": `${r.a.requestedCheckpoints}, ${r.b.requestedCheckpoints}`,
    flags: r.flags.join(", "),
  }));
  showTable(rows, {
    caption:
      `Headline repeats (${pair.rows.toLocaleString("en-US")} rows). Flags: outlier = ${OUTLIER_RULE}; a timed checkpoint or an autovacuum ` +
      "run inside a timed phase. Checkpoints a method's own WAL volume requested are its cost, not a flag. Each claim says whether its " +
      "verdict changes without the flagged repeats",
  });
}

/**
 * The seed's numbers beside ours: seconds per row (machines differ) and the ratios. A ratio of ours
 * to the seed's is formed only at the seed's size; at another size both sizes are named instead.
 */
export function showSeedComparison(s: CreateIndexSummary): void {
  const seed = seedFigures();
  const pair = headlinePair(s);
  const sameSize = pair?.rows === seed.rows;
  const p3 = (x: number) => x.toPrecision(3);
  const rowsText = (n: number) => n.toLocaleString("en-US");
  const ourRows = pair?.rows ?? s.headline.rows;
  const usPerRow = (seconds: number | undefined, rows: number) =>
    seconds === undefined ? "" : p3((seconds / rows) * 1e6);
  const walRatio =
    pair?.a && pair.b ? (pair.b.totals["wal.records"] ?? NaN) / (pair.a.totals["wal.records"] ?? NaN) : undefined;
  const vsSeed = (ours: number | undefined, theirs: number) =>
    sameSize && ours !== undefined ? r2(ours / theirs) : "different sizes";
  const method = (figure: string, seconds: number, m: MethodSummary | undefined): Row => ({
    figure,
    seed: `${seconds} s = ${usPerRow(seconds, seed.rows)} µs/row (${rowsText(seed.rows)} rows)`,
    "this run": m
      ? `${p3(m.medianSeconds)} s = ${usPerRow(m.medianSeconds, ourRows)} µs/row (${rowsText(ourRows)} rows)`
      : "",
    "ours / seed": m ? vsSeed(m.medianSeconds, seconds) : undefined,
  });
  const rows: Row[] = [
    method("A: load, then CREATE INDEX", seed.loadThenIndexS, pair?.a),
    method("B: CREATE INDEX, then load", seed.indexThenLoadS, pair?.b),
    {
      figure: "B / A (time)",
      seed: `${seed.ratio.toFixed(2)}× (${rowsText(seed.rows)} rows, mean of 2)`,
      "this run": pair?.timeRatio ? `${ratioCell(pair.timeRatio)} (${rowsText(ourRows)} rows)` : "",
      "ours / seed": vsSeed(pair?.timeRatio?.estimate, seed.ratio),
    },
    {
      figure: "B / A (WAL records)",
      seed: `≈ ${seed.walRecordsRatio}× (${rowsText(seed.rows)} rows)`,
      "this run": walRatio !== undefined ? `${walRatio.toFixed(2)}× (${rowsText(ourRows)} rows, medians)` : "",
      "ours / seed": vsSeed(walRatio, seed.walRecordsRatio),
    },
  ];
  showTable(rows, {
    caption:
      `The seed (${rowsText(seed.rows)} rows, mean of 2) beside this run (${rowsText(ourRows)} rows): absolute times depend on the machine; ` +
      "the ratios of B to A change with the table size (see the size sweep), so ours is set against the seed's only at the same size",
  });
}

/** Counters that decide the claims, per phase of each method (headline, medians over trials). */
export function showCounters(s: CreateIndexSummary): void {
  const pair = headlinePair(s);
  if (!pair?.a || !pair.b) return;
  const { a, b } = pair;
  const cols: { label: string; m: MethodSummary; phase?: PhaseName }[] = [
    { label: "A · INSERT", m: a, phase: "load" },
    { label: "A · CREATE INDEX", m: a, phase: "index" },
    { label: "A total", m: a },
    { label: "B · INSERT (indexed)", m: b, phase: "load" },
    { label: "A closing CHECKPOINT", m: a, phase: "checkpoint" },
    { label: "B closing CHECKPOINT", m: b, phase: "checkpoint" },
  ];
  const value = (
    m: MethodSummary,
    phase: PhaseName | undefined,
    pick: (c: Counters<CreateIndexCounterKey>, m: MethodSummary, phase: PhaseName | undefined) => number | undefined,
  ) => pick(phase ? (m.byPhase[phase] ?? {}) : m.totals, m, phase);
  const metrics: [
    string,
    (c: Counters<CreateIndexCounterKey>, m: MethodSummary, phase: PhaseName | undefined) => number | undefined,
  ][] = [
    ["elapsed s", (_c, m, phase) => r2((phase ? (m.phaseMs[phase] ?? 0) : m.medianSeconds * 1000) / 1000)],
    ["CPU s (backend + parallel workers)", (_c, m, phase) => r2(phase ? m.phaseCpuS[phase] : m.backendCpuS)],
    ["WAL records", (c) => c["wal.records"]],
    ["WAL full-page images", (c) => c["wal.fpi"]],
    ["WAL MB", (c) => mb(c["wal.bytes"])],
    ["WAL writes", (c) => c["wal.write"]],
    ["WAL syncs", (c) => c["wal.sync"]],
    ["WAL buffers full", (c) => c["wal.buffers_full"]],
    ["WAL write + sync time ms", (c) => r1((c["wal.write_time_ms"] ?? 0) + (c["wal.sync_time_ms"] ?? 0))],
    ["blks_read", (c) => c["db.blks_read"]],
    ["blks_hit", (c) => c["db.blks_hit"]],
    ["blk_read_time ms", (c) => r1(c["db.blk_read_time_ms"])],
    ["blk_write_time ms", (c) => r1(c["db.blk_write_time_ms"])],
    ["timed I/O wait ms (blk + WAL)", (c) => r1(ioWaitMs(c))],
    ["temp files", (c) => c["db.temp_files"]],
    ["temp MB", (c) => mb(c["db.temp_bytes"])],
    ["checkpoints (timed + requested)", (c) => checkpoints(c)],
    ["checkpointer buffers written", (c) => c["checkpointer.buffers_written"]],
    ["bgwriter buffers cleaned", (c) => c["bgwriter.buffers_clean"]],
  ];
  const rows: Row[] = metrics.map(([label, pick]) => {
    const row: Record<string, string | number | undefined> = { counter: label };
    for (const col of cols) row[col.label] = value(col.m, col.phase, pick);
    const av = value(a, undefined, pick);
    const bv = value(b, undefined, pick);
    row["B / A total"] = av && bv !== undefined ? r2(bv / av) : undefined;
    return row;
  });
  showTable(rows, {
    caption: `Server counters per phase, ${pair.rows.toLocaleString("en-US")} rows (after − before each statement, medians over trials; "A total" = the seed's timed phases)`,
  });
  plot(timeBudget(s));
}

/** pg_stat_io by backend type and context over the timed phases and the closing checkpoint. */
export function showIoByBackend(s: CreateIndexSummary): void {
  const pair = headlinePair(s);
  if (!pair?.a || !pair.b) return;
  const sources: [string, Counters<CreateIndexCounterKey>][] = [
    ["A timed", pair.a.totals],
    ["B timed", pair.b.totals],
    ["A checkpoint", pair.a.deferred],
    ["B checkpoint", pair.b.deferred],
  ];
  const groups = new Set<string>();
  for (const [, c] of sources)
    for (const [k] of counterEntries(c)) if (k.startsWith("io.")) groups.add(k.split(".").slice(1, 4).join(" · "));
  const counters = ["reads", "writes", "extends", "hits", "evictions"] as const;
  const rows: Row[] = [];
  for (const g of [...groups].sort()) {
    for (const [label, c] of sources) {
      const [backend, object, context] = g.split(" · ");
      const vals = counters.map((k) => c[`io.${backend}.${object}.${context}.${k}`] ?? 0);
      if (vals.every((v) => v === 0)) continue;
      const row: Record<string, string | number> = { "backend · object · context": g, phases: label };
      counters.forEach((k, i) => (row[k] = vals[i]));
      rows.push(row);
    }
  }
  showTable(rows, {
    caption:
      "pg_stat_io, 8 kB blocks (medians). CREATE INDEX writes its pages through smgr, not shared buffers, so its writes appear in no pg_stat_io row — " +
      "only in the WAL (as page images) and in the backend's file-system blocks out",
  });
}

export function showSizeSweep(s: CreateIndexSummary): void {
  const seed = seedFigures();
  const rows: Row[] = sizeSweep(s).map((p) => ({
    rows: p.rows,
    "A s": r2(p.a?.medianSeconds),
    "B s": r2(p.b?.medianSeconds),
    "A µs/row": r2(p.a ? (p.a.medianSeconds / p.rows) * 1e6 : undefined),
    "B µs/row": r2(p.b ? (p.b.medianSeconds / p.rows) * 1e6 : undefined),
    "B / A (paired)": p.timeRatio ? ratioCell(p.timeRatio) : "",
    "server-time B / A": p.serverTimeRatio ? ratioCell(p.serverTimeRatio) : "",
    n: `${p.a?.trials ?? 0}+${p.b?.trials ?? 0}`,
    "A CPU µs/row": r2(p.a?.backendCpuS !== undefined ? (p.a.backendCpuS / p.rows) * 1e6 : undefined),
    "B CPU µs/row": r2(p.b?.backendCpuS !== undefined ? (p.b.backendCpuS / p.rows) * 1e6 : undefined),
    "index MB (B)": mb(p.b?.index?.indexBytes),
    "B blks_read": p.b?.totals["db.blks_read"],
    "B checkpoints": p.b ? checkpoints(p.b.totals) : undefined,
    "A sort": p.a?.sortSpilled === undefined ? "" : p.a.sortSpilled ? "external" : "in memory",
  }));
  showTable(rows, {
    caption:
      "Size sweep (random codes, the server's settings): does the gap grow linearly or worse, and is there a crossover?",
  });
  plot(sizeSweepPerRow(s));
  plot(sizeSweepRatio(s, seed));
}

export function showKeyOrder(s: CreateIndexSummary): void {
  if (!s.pairs.some((p) => p.keyOrder === "sorted")) return;
  plot(keyOrderBars(s));
}

export function showBuildSweep(s: CreateIndexSummary): void {
  if (!s.builds.length) return;
  const rows: Row[] = sortedBy(
    s.builds,
    (b) => b.maintenanceWorkMemMB,
    (b) => b.parallelWorkers,
  ).map((b) => ({
    maintenance_work_mem: `${b.maintenanceWorkMemMB} MB`,
    "max workers": b.parallelWorkers,
    "sort participants": b.participants ? b.participants : "serial",
    n: b.trials,
    "median s": r2(b.medianSeconds),
    "min–max s": `${b.minSeconds.toFixed(2)}–${b.maxSeconds.toFixed(2)}`,
    sort: b.spilled === undefined ? "" : b.spilled ? `external (${b.maxRuns} runs)` : "in memory",
    "temp files": b.tempFiles,
    "temp MB": mb(b.tempBytes),
    "leader CPU s": r2(b.leaderCpuS),
    "workers CPU s": r2(b.workerCpuS),
  }));
  showTable(rows, {
    caption:
      `CREATE INDEX sweep on one loaded, vacuumed table (${rowsLabel(s.builds[0].rows)} rows): sort in memory vs external, serial vs parallel. ` +
      "PostgreSQL gives each sort participant at least 32 MB, so small maintenance_work_mem launches fewer workers than asked; " +
      "a parallel build hands each worker's sorted run to the leader in a temporary file, so it writes temp files even when nothing spilled",
  });
  plot(buildSweep(s));
  const example = s.builds.find((b) => b.spilled) ?? s.builds[0];
  if (example.sortLines.length) {
    show().html(
      `<details><summary>trace_sort milestones, ${example.maintenanceWorkMemMB} MB, max workers ${example.parallelWorkers}</summary><pre>` +
        escapeHtml(example.sortLines.join("\n")) +
        "</pre></details>",
    );
  }
}

export function showWalAnatomy(s: CreateIndexSummary): void {
  if (!s.walAnatomy.length) return;
  plot(walComposition(s));
  const rows: Row[] = s.walAnatomy.flatMap((w) =>
    w.types
      .filter((t) => t.count / w.rows >= 0.001 || t.fpiBytes > 0)
      .map((t) => ({
        method: short(w.method),
        phase: t.phase,
        "record type": t.type,
        records: t.count,
        "per row": r2(t.perRow),
        "record MB": mb(t.recordBytes),
        "page-image MB": mb(t.fpiBytes),
      })),
  );
  showTable(rows, {
    caption: `WAL decoded by record type (pg_walinspect), ${s.walAnatomy[0].rows.toLocaleString("en-US")} rows, types with ≥ 1 record per 1,000 rows or page images`,
  });
}

export function showIndexShapes(s: CreateIndexSummary): void {
  const rows: Row[] = s.methods
    .filter((m): m is MethodSummary & Required<Pick<MethodSummary, "index">> => m.index !== undefined)
    .sort(
      (x, y) =>
        x.condition.rows - y.condition.rows ||
        x.condition.keyOrder.localeCompare(y.condition.keyOrder) ||
        x.condition.method.localeCompare(y.condition.method),
    )
    .map((m) => ({
      rows: m.condition.rows,
      codes: m.condition.keyOrder,
      method: short(m.condition.method),
      "tree levels": m.index.treeLevel + 1,
      "index MB": mb(m.index.indexBytes),
      "table MB": mb(m.index.tableBytes),
      "leaf pages": m.index.leafPages,
      "internal pages": m.index.internalPages,
      "avg leaf density %": r1(m.index.avgLeafDensity),
      "leaf fragmentation %": r1(m.index.leafFragmentation),
    }));
  showTable(rows, {
    caption: "The finished index (pgstatindex, medians): a bottom-up build vs a tree grown by inserts",
  });
}

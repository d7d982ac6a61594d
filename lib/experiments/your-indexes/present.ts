/** What notebook 06 shows, one call per section. */
import { escapeHtml, show } from "../../display/output";
import { plot } from "../../display/plotly";
import { rounded, showTable, type Row } from "../../display/table";
import { intervalLabel, OUTLIER_RULE, type Interval } from "../../stats/intervals";
import { judgeIndex } from "./claims";
import { because } from "./verdict-text";
import { costRanking, perSecond, readSlowdowns, tpsByRound } from "./charts";
import { costText, slowdownText } from "./decision";
import type { YourIndexesRun } from "./rounds";
import type { YourIndexesSummary } from "./summarise";
import { minusFixed, percent } from "../../stats/format";

const [r1, r2, r3] = [1, 2, 3].map((d) => (x: number | undefined) => rounded(x, d));
const pct = (x: number | undefined) => percent(x, 0, "");
const signedPct = (x: number | undefined) => (x === undefined ? "" : `${x >= 0 ? "+" : ""}${(x * 100).toFixed(1)} %`);
const diff = (x: { with?: number; without?: number }) =>
  x.with !== undefined && x.without !== undefined ? x.with - x.without : undefined;
const texts = (scripts: readonly { name: string; text: string }[]) =>
  show().html(
    scripts
      .map((s) => `<details><summary>${escapeHtml(s.name)}</summary><pre>${escapeHtml(s.text)}</pre></details>`)
      .join(""),
  );

/** What every run was cloned from: the loaded data, the variants, the workload and read scripts as checked. */
export function showSetup(run: YourIndexesRun): void {
  const t = run.template;
  const from = run.source ? `a sample of ${run.source.source}` : `${run.params.data}, scale ${run.params.scale}`;
  const loaded = Object.values(t.loadSeconds).reduce((a, b) => a + b, 0);
  showTable(
    Object.entries(t.rows).map(([table, rows]) => ({
      table,
      rows,
      "written by the workload": run.workloadCheck.writtenTables.includes(table) ? "yes" : "no",
      indexes: t.indexes.filter((i) => i.table === table).length,
    })),
    {
      caption: `The loaded data every run is cloned from (${from}; ${(t.databaseBytes / 2 ** 20).toFixed(1)} MiB, loaded in ${loaded.toFixed(1)} s)`,
    },
  );
  showTable(
    run.variants.map((v) => ({
      variant: v.id,
      what: v.label,
      indexes: v.indexes.length,
      "build s": r1(v.buildSeconds),
    })),
    { caption: "The variants (each built once from the template; every run starts from a fresh clone of one)" },
  );
  showTable(
    run.workloadCheck.scripts.map((s) => ({
      script: s.name,
      weight: run.scripts.find((x) => x.name === s.name)?.weight,
      "1-s check: transactions": s.transactions,
      "rows written (check)": Object.entries(s.written)
        .map(([table, n]) => `${table} ${n}`)
        .join(", "),
    })),
    { caption: "The workload (pgbench -f file@weight), each script checked alone for 1 s before the rounds" },
  );
  texts(run.scripts);
  if (run.reads.length) {
    showTable(
      run.reads.map((r) => ({
        "read script": r.name,
        "1-s read-only check: transactions": run.readCheck?.scripts.find((x) => x.name === r.name)?.transactions,
      })),
      {
        caption: `The read scripts (reads), each checked alone for 1 s in a read-only session before the rounds, then run for ${run.params.readSeconds} s after every write run, on its clone`,
      },
    );
    texts(run.reads);
  }
}

export function indexRows(s: YourIndexesSummary): Row[] {
  return s.indexes.map((ix) => {
    const j = judgeIndex(s, ix);
    const hotLost = diff({ with: ix.hotShare.without, without: ix.hotShare.with });
    return {
      index: ix.name,
      kind: ix.kind === "set" && ix.members ? `set of ${ix.members.length}: ${ix.members.join(", ")}` : ix.kind,
      table:
        ix.tables.length > 1
          ? `${ix.table ?? ""} (HOT share; also on ${ix.tables.filter((t) => t !== ix.table).join(", ")})`
          : ix.table,
      "throughput verdict": j.throughput,
      "write amplification verdict": j.amplification.text,
      "interval is": ix.cost ? intervalLabel(ix.cost) : "",
      "p50 change": signedPct(ix.p50Change),
      "p99 change": signedPct(ix.p99Change),
      // Differences of the two variants' medians (pooled shares for HOT), not the paired medians the
      // verdicts and the decision table give: the headers say which, since the two differ.
      "median WAL B / tx with": r1(ix.walBytesPerTx.with),
      "Δ WAL B / tx, median with − median without": r1(diff(ix.walBytesPerTx)),
      "Δ B-tree leaf inserts / tx, median with − median without": r2(diff(ix.btreeInsertsPerTx)),
      "Δ B-tree splits / tx, median with − median without": r3(diff(ix.btreeSplitsPerTx)),
      "HOT share lost, pooled without − with": hotLost === undefined ? "" : hotLost > 0.005 ? pct(hotLost) : "none",
      "HOT lost by": ix.hotStatements
        .map((h) => `${h.statement.script}: UPDATE ${h.statement.table} SET ${h.columns.join(", ")}`)
        .join("; "),
      "size KiB": ix.bytes === undefined ? undefined : Math.round(ix.bytes / 102.4) / 10,
      decision: ix.decision.text,
      ...(ix.source !== undefined || s.statsReset !== undefined
        ? { "idx_scan on source": ix.source?.idxScan, "last scan on source": ix.source?.lastIdxScan ?? "" }
        : {}),
    };
  });
}

/** The throughput margin the reader declared, and beside it what this machine's noise alone spreads to. */
function noiseFloorText(s: YourIndexesSummary): string {
  const m = `±${(s.equivalenceMargin * 100).toFixed(1)} %`;
  const f = s.noiseFloor;
  if (!f)
    return `Throughput margin ${m} (the parameter equivalenceMargin); no round had three baseline runs to measure the noise floor.`;
  const p = (x: number) => `${x >= 0 ? "+" : "−"}${Math.abs(x * 100).toFixed(1)} %`;
  return (
    `Throughput margin ${m} (the parameter equivalenceMargin, the reader's question). Noise floor of this run: a baseline run against the baseline runs two places either side, 1 − TPS ÷ their mean, spread ${p(f.q25)} to ${p(f.q75)} interquartile (${p(f.p05)} to ${p(f.p95)} at the 5th–95th percentiles, n = ${f.n} over ${f.rounds} rounds)` +
    `; as a null index's interval (median per round): ${p(f.interval.estimate)} [${p(f.interval.low)} to ${p(f.interval.high)}].`
  );
}

export function showIndexTable(s: YourIndexesSummary): void {
  show().html(`<p>${escapeHtml(noiseFloorText(s))}</p>`);
  showTable(indexRows(s), {
    caption:
      `Per judged index, two verdicts. Throughput: cost = 1 − TPS with ÷ TPS without, per round (the variant's run against the baseline runs just before and after it), median and exact interval; an interval wholly above 0 states the cost, with where it lies against ±${(s.equivalenceMargin * 100).toFixed(1)} %; "within" only for an interval inside the margin and not above 0. ` +
      'Write amplification: "adds" when the index\'s own B-tree entries per transaction (its records in the WAL, found by the page they change), paired the same way, lie wholly above 0; WAL bytes and the HOT share lost are shown beside. ' +
      "Δ columns here: the with-variant's median − the without-variant's, per transaction, counted in the WAL (pg_walinspect; B-tree leaf inserts of every index, so a lost HOT share shows in the others' too); HOT share lost: of the index's table's updates, pooled over each variant's runs. The verdicts and the decision table use the median of the per-round paired differences instead, which differs from the difference of medians",
  });
  showTable(
    s.runs.map((r) => ({
      run: r.key,
      "position in round": r.position === undefined ? "" : r.position + 1,
      transactions: r.transactions,
      tps: r1(r.tps),
      "p50 ms": r2(r.p50Ms),
      "p99 ms": r2(r.p99Ms),
      "WAL B / tx": r1(r.walBytesPerTx),
      "B-tree inserts / tx": r2(r.btreeInsertsPerTx),
      "checkpoints inside": r.checkpoints,
      "autovacuum runs inside": r.autovacuumRuns,
      outlier: r.outlier ? "yes" : "",
    })),
    {
      caption: `Every run, in the order run within its round (the baseline between every two variants; the variants' order a Williams design across rounds). Outlier: ${OUTLIER_RULE}. Flagged runs stay in the data; each claim says whether its verdict changes without them`,
    },
  );
}

/** An interval of a with − without difference, "+101 [96–104]"; "" when not measured. */
function deltaText(i: Interval | undefined, scale = 1, digits = 1): string {
  const f = (x: number) => minusFixed(x * scale, digits);
  const e = i && f(i.estimate);
  return i && e ? `${e.startsWith("−") || Number(e) === 0 ? "" : "+"}${e} [${f(i.low)}–${f(i.high)}]` : "";
}

export function decisionRows(s: YourIndexesSummary): Row[] {
  return s.indexes.map((ix) => {
    const a = ix.amplification;
    return {
      index: ix.name,
      kind: ix.kind === "set" && ix.members ? `set of ${ix.members.length}` : ix.kind,
      "write throughput cost": ix.cost ? costText(ix.cost) : "",
      "Δ WAL B / tx": deltaText(a.walBytesPerTx),
      "own B-tree entries / tx": deltaText(a.ownEntriesPerTx, 1, 2),
      // A set on several tables: the HOT share shown is its most-updated table's, named.
      "HOT share lost, points":
        deltaText(a.hotShareLost, 100, 0) + (ix.tables.length > 1 && a.hotShareLost ? ` (${ix.table ?? ""})` : ""),
      ...Object.fromEntries(
        ix.reads.flatMap((r) => [
          [`${r.script}: latency without ÷ with`, r.slowdown ? slowdownText(r.slowdown) : ""],
          [`${r.script}: scans of it a run`, r.runsWith ? r1(r.scansPerRun) : ""],
        ]),
      ),
      decision: ix.decision.text,
    };
  });
}

export function showDecisionTable(s: YourIndexesSummary): void {
  const nothing = s.indexes.filter((ix) => ix.decision.kind === "nothing reads it").map((ix) => ix.name);
  const keep = s.indexes.filter((ix) => ix.decision.kind === "keep").map((ix) => ix.name);
  show().html(
    `<p>${escapeHtml(
      s.readScripts.length
        ? `Read scripts: ${s.readScripts.join(", ")}. Nothing measured reads through: ${nothing.join(", ") || "none"}. Kept for a read measured slower without it: ${keep.join(", ") || "none"}.`
        : "No read scripts (the parameter reads): the table gives the write side only.",
    )}</p>`,
  );
  showTable(decisionRows(s), {
    caption:
      "The decision table. Write cost: 1 − TPS with ÷ TPS without, and WAL bytes, B-tree leaf inserts and the HOT share of its table's updates with − without, each paired per round, median [exact interval]. Read effect: each read script's median latency without the index ÷ with it, paired per round (14× = fourteen times slower without it), and the index's scans (idx_scan) per read run where it exists. The line: keep when a script that scans it is measured slower without it (the interval wholly above 1×); nothing measured reads through it when no script scanned it",
  });
  if (s.failedReads.length)
    showTable(
      s.failedReads.map((f) => ({ run: f.key, script: f.script, error: f.error })),
      { caption: `${s.failedReads.length} read run(s) gave no figures (their write runs stand)` },
    );
}

export function showCharts(s: YourIndexesSummary): void {
  plot(costRanking(s), Math.max(300, 80 + 40 * s.indexes.length));
  if (s.readScripts.length) plot(readSlowdowns(s), Math.max(300, 80 + 40 * s.indexes.length));
  plot(tpsByRound(s));
  plot(perSecond(s));
}

export function showExplanation(s: YourIndexesSummary): void {
  show().html(
    `<ul>${s.indexes.map((ix) => `<li><b>${escapeHtml(ix.name)}</b> (${escapeHtml(judgeIndex(s, ix).text)}): ${escapeHtml(because(ix))}</li>`).join("")}</ul>`,
  );
  const tables = [...new Set(s.variants.flatMap((v) => Object.keys(v.hotShare)))].sort();
  showTable(
    s.variants.map((v) => ({
      variant: v.id,
      runs: v.runs,
      "median tps": r1(v.tps),
      "p50 ms": r2(v.p50Ms),
      "p99 ms": r2(v.p99Ms),
      "WAL B / tx": r1(v.walBytesPerTx),
      "B-tree leaf inserts / tx": r2(v.btreeInsertsPerTx),
      "B-tree splits / tx": r3(v.btreeSplitsPerTx),
      ...Object.fromEntries(tables.map((t) => [`HOT share ${t}`, pct(v.hotShare[t])])),
    })),
    { caption: "Server counters per variant (medians over its runs; HOT shares pooled over its runs)" },
  );
}

export function showSourceUsage(s: YourIndexesSummary, run: YourIndexesRun): void {
  if (!run.source)
    return show().html(
      "<p>No <code>sampleFrom</code> source in this run: index usage on a production server is not shown.</p>",
    );
  const since = run.source.statsReset
    ? `since ${run.source.statsReset}`
    : "since the source's statistics began (never reset)";
  showTable(
    run.source.indexes.map((u) => {
      const here = s.indexes.find((ix) => ix.name === u.index);
      return {
        table: u.table,
        index: u.index,
        idx_scan: u.idxScan,
        "last scan": u.lastIdxScan ?? "",
        "unused there": u.idxScan === 0 ? "yes" : "",
        "cost here": here ? judgeIndex(s, here).text : "(not judged)",
      };
    }),
    { caption: `pg_stat_user_indexes on ${run.source.source}, ${since}` },
  );
}

export function showStopped(run: YourIndexesRun): void {
  const file = `${run.directory}/trials.jsonl`;
  show().html(
    `<p>Server stopped, its data removed; the template and variant databases were dropped before. Every run (pgbench's output and series, counters, WAL by record type) is in <code>${escapeHtml(file)}</code>.</p>`,
  );
}

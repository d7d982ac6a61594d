/** What notebook 04 shows, one call per section. */
import { escapeHtml, show } from "../../display/output";
import { plot } from "../../display/plotly";
import { showTable, sortedBy, type Row } from "../../display/table";
import { intervalLabel, OUTLIER_RULE, type Interval } from "../../stats/intervals";
import { latencyTimeline, MODE_LABELS, seedSets, timeline, tpsBySet, updateLatencyBySet, waitShares } from "./charts";
import { REINDEX_MODES, type ReindexUnderLoadParams } from "./params";
import { modeSummary, type ReindexSummary } from "./summarise";
import type { TemplateInfo } from "./workload/databases";
import type { RunLengthCalibration } from "./workload/run-trials";

const r1 = (x: number | undefined) => (x === undefined ? undefined : Math.round(x * 10) / 10);
const r3 = (x: number | undefined) => (x === undefined ? undefined : Math.round(x * 1000) / 1000);
const intervalCell = (i: Interval, digits: number) =>
  `${i.estimate.toFixed(digits)} [${i.low.toFixed(digits)}–${i.high.toFixed(digits)}] ${intervalLabel(i)}`;
const pct = (x: number | undefined) =>
  x === undefined ? "" : `${x >= 1 ? "+" : "−"}${Math.abs((x - 1) * 100).toFixed(1)} %`;
const top = (shares: Readonly<Record<string, number>>, n: number) =>
  Object.entries(shares)
    .slice(0, n)
    .map(([k, v]) => `${k} ${(v * 100).toFixed(0)} %`)
    .join(", ");

type Setup = { params: ReindexUnderLoadParams; template: TemplateInfo; calibration?: RunLengthCalibration };
const inOrder = (s: ReindexSummary) => sortedBy(s.runs, (r) => r.set, [(r) => r.mode, REINDEX_MODES]);

/** The template every run is copied from, and the calibration that set the run length (if one did). */
export function showSetup({ params: p, template: t, calibration: c }: Setup): void {
  const template = {
    "pgbench -i": `-s ${p.scale} -I ${p.initSteps}`,
    "accounts rows": t.accountsRows,
    "database GiB": Math.round((t.databaseBytes / 2 ** 30) * 100) / 100,
    "accounts pkey MiB": r1((t.indexBytes.pgbench_accounts_pkey ?? 0) / 2 ** 20),
    "init s": r1(t.init.seconds),
    ...Object.fromEntries(Object.entries(t.init.steps).map(([k, v]) => [`${k} s`, v])),
  };
  showTable([template], { caption: "The template every run is copied from" });
  if (!c) return;
  const calibration = {
    "three keys rebuilt, s": r3(c.seconds),
    "accounts key, s": r3(c.accountsSeconds),
    "stall share asked": c.stallShare,
    "run length, s": c.durationSeconds,
    "REINDEX starts at, s": c.reindexStartSeconds,
  };
  const caption = "Calibration: a plain REINDEX on a fresh clone, no load; each run lasts rebuild ÷ stall share";
  showTable([calibration], { caption });
}

/** The per-run table: TPS, latency, the accounts UPDATE, REINDEX duration, blocked time. */
export function runRows(s: ReindexSummary): Row[] {
  return inOrder(s).map((r) => ({
    set: r.set,
    "order in set": r.position === undefined ? "" : r.position + 1,
    mode: MODE_LABELS[r.mode],
    tps: r1(r.tps),
    "vs baseline": r.mode === "baseline" ? "" : pct(r.tpsVsBaseline),
    "latency avg ms": r3(r.latencyAvgMs),
    "p50 ms": r3(r.p50Ms),
    "p95 ms": r3(r.p95Ms),
    "p99 ms": r3(r.p99Ms),
    "max ms": r1(r.maxMs),
    "UPDATE accounts ms": r3(r.updateAccountsMs),
    "UPDATE accounts server ms": r3(r.updateAccountsServerMs),
    "REINDEX s": r1(r.reindexSeconds),
    "accounts pkey s": r1(r.accountsReindexSeconds),
    "REINDEX at s":
      r.reindexStartS === undefined || r.reindexEndS === undefined
        ? ""
        : `${r.reindexStartS.toFixed(1)}–${r.reindexEndS.toFixed(1)}`,
    "blocked s": r1(r.blockedSeconds),
    "all clients blocked s": r1(r.allBlockedSeconds),
    "tps in window / outside":
      r.tpsDuringReindex === undefined || r.tpsOutsideReindex === undefined
        ? ""
        : `${r.tpsDuringReindex.toFixed(0)} / ${r.tpsOutsideReindex.toFixed(0)}`,
    "tx lost in window": r.lostShare === undefined ? "" : `${(r.lostShare * 100).toFixed(1)} %`,
    "WAL bytes / tx": r.walBytesPerTransaction === undefined ? undefined : Math.round(r.walBytesPerTransaction),
    flags: r.flags.join(", "),
  }));
}

export function showRunTable(s: ReindexSummary): void {
  showTable(runRows(s), {
    caption: `Every run (p50/p95/p99/max from pgbench's per-transaction log; UPDATE accounts = pgbench -r; blocked = sampled time with ≥1 pgbench session waiting on a lock). Flags: outlier = ${OUTLIER_RULE} (TPS, within the mode); a checkpoint or an autovacuum run between the counters read around the run. Each claim says whether its verdict changes without the flagged sets`,
  });
  const modes: Row[] = sortedBy(s.modes, [(m) => m.mode, REINDEX_MODES]).map((m) => ({
    mode: MODE_LABELS[m.mode],
    sets: m.n,
    "median tps": r1(m.tps.median),
    "tps range": `${m.tps.min.toFixed(0)}–${m.tps.max.toFixed(0)}`,
    "tps / baseline (per set)": m.tpsRatio ? intervalCell(m.tpsRatio, 3) : "",
    "UPDATE accounts ms": r3(m.updateAccountsMs?.median),
    "UPDATE / baseline (per set)": m.updateRatio ? intervalCell(m.updateRatio, 2) : "",
    "REINDEX s": r1(m.reindexSeconds?.median),
    "blocked s": r1(m.blockedSeconds.median),
    "tx lost in window": m.lostShare ? `${(m.lostShare.median * 100).toFixed(1)} %` : "",
  }));
  showTable(modes, {
    caption:
      "Per mode: medians over sets. Ratios to the baseline are formed per set (the runs of a set ran back to back), then their median over sets with the exact order-statistic interval, or the range when there are too few sets for one (the label says which)",
  });
}

export function showCharts(s: ReindexSummary): void {
  plot(timeline(s), 560);
  plot(latencyTimeline(s));
  plot(tpsBySet(s));
  plot(updateLatencyBySet(s));
  plot(waitShares(s));
}

export function showSeedComparison(s: ReindexSummary): void {
  const seed = seedSets();
  const upd = { baselineMs: seed[0]?.baselineUpdateMs, reindexMs: seed[0]?.reindexUpdateMs };
  const rows: Row[] = seed.map((x) => {
    const ours = (mode: string) => s.runs.find((r) => r.set === x.set && r.mode === mode);
    return {
      set: x.set,
      "seed baseline tps": r1(x.baselineTps),
      "seed REINDEX tps": r1(x.reindexTps),
      "seed change": pct(x.reindexTps / x.baselineTps),
      "our baseline tps": r1(ours("baseline")?.tps),
      "our REINDEX tps": r1(ours("reindex")?.tps),
      "our change": pct(ours("reindex")?.tpsVsBaseline),
      "our CONCURRENTLY tps": r1(ours("concurrently")?.tps),
      "our CONCURRENTLY change": pct(ours("concurrently")?.tpsVsBaseline),
    };
  });
  showTable(rows, {
    caption:
      "The seed's three sets beside ours (absolute TPS depends on the machine; the change within a set is what compares)",
  });
  const [base, re] = (["baseline", "reindex"] as const).map((m) => modeSummary(s, m)?.updateAccountsMs?.median);
  const update = {
    "": "UPDATE pgbench_accounts, ms",
    "seed baseline": upd.baselineMs,
    "seed REINDEX (set 1; sets 1–3: 0.54–0.69)": upd.reindexMs,
    "seed ×": upd.baselineMs && upd.reindexMs ? r1(upd.reindexMs / upd.baselineMs) : undefined,
    "our baseline": r3(base),
    "our REINDEX": r3(re),
    "our ×": base && re ? r1(re / base) : undefined,
  };
  showTable([update], { caption: "Per-statement latency of the accounts UPDATE (pgbench -r)" });
}

/** The waits behind the numbers: pgbench's wait events, the locks, the REINDEX session's own waits. */
export function showWaits(s: ReindexSummary): void {
  const rows: Row[] = inOrder(s)
    .filter((r) => r.mode !== "baseline" || r.set === s.runs[0]?.set)
    .map((r) => ({
      set: r.set,
      mode: MODE_LABELS[r.mode],
      "pgbench waits (top 4)": top(r.waitShares, 4),
      "lock waited for": r.topLock ?? "",
      "blocked by the REINDEX s": r1(r.blockedByReindexSeconds),
      "REINDEX session waits": top(r.reindexWaitShares, 3),
      "index build phases": r.phases
        .map((p) => `${p.phase} (${((p.endMs - p.startMs) / 1000).toFixed(1)} s)`)
        .join(" → "),
      "accounts HOT share": r.accountsHotShare === undefined ? "" : `${(r.accountsHotShare * 100).toFixed(0)} %`,
    }));
  showTable(rows, {
    caption: "Sampled waits (pg_stat_activity + pg_locks + pg_stat_progress_create_index, every few hundred ms)",
  });
}

/** Every statement's `-r` latency per mode (median over sets), ms. */
export function showStatements(s: ReindexSummary): void {
  const modes = [...new Set(s.runs.map((r) => r.mode))];
  const commands = [...new Set(s.runs.flatMap((r) => r.statements.map((x) => x.command)))].filter(
    (c) => !c.startsWith("\\"),
  );
  const rows: Row[] = commands.map((command) => {
    const row: Record<string, string | number | undefined> = {
      statement: command.length > 60 ? `${command.slice(0, 60)}…` : command,
    };
    for (const mode of modes) {
      const values = s.runs
        .filter((r) => r.mode === mode)
        .map((r) => r.statements.find((x) => x.command === command)?.latencyMs)
        .filter((x): x is number => x !== undefined);
      row[`${MODE_LABELS[mode]} ms`] = values.length
        ? r3([...values].sort((a, b) => a - b)[Math.floor((values.length - 1) / 2)])
        : undefined;
    }
    return row;
  });
  showTable(rows, {
    caption: "pgbench -r: average latency of each statement, ms (median over sets; lower median for an even count)",
  });
}

export function showStopped(run: { readonly directory: string }): void {
  show().html(
    `<p>The server was stopped and its data directory or container removed. Raw runs (pgbench output, per-second series, activity samples, counters): <code>${escapeHtml(run.directory)}/trials.jsonl</code>.</p>`,
  );
}

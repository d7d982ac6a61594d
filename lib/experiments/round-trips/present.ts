/** What notebook 05 shows, one call per section. */
import { escapeHtml, noteHtml, show } from "../../display/output";
import { COLOR, plot } from "../../display/plotly";
import { showTable, type Row } from "../../display/table";
import type { ClaimCheck } from "../../stats/claims";
import { estimateAndRange, intervalLabel, OUTLIER_RULE } from "../../stats/intervals";
import { groupBy } from "../../stats/summary";
import { STANDBY_PURPOSE, type CalibrationRecord } from "./workload/links";
import { CASE_INFO } from "./workload/cases";
import { autocommitVsOneTransaction, commitLatencyBySyncLevel, elapsedVsRtt } from "./charts";
import type { RoundTripsRun } from "./summarise";
import { seedCommitMs, seedValue, SEED_LABELS, SEED_SELECT1_TOTAL_S, type SeedCondition } from "./seed";
import { ENVIRONMENT_INFO } from "./workload/environments";
import { findEnvironment, selectOne, type EnvironmentSummary, type RoundTripsSummary } from "./summarise";

const r = (x: number | undefined | null, d = 3): number | undefined =>
  x === undefined || x === null || !Number.isFinite(x) ? undefined : Number(x.toFixed(d));

function note(html: string, color: string = COLOR.blue): void {
  show().html(noteHtml(html, color, "#f6f8fb", "6px 0"));
}

export function noteLinksAndSkipped(run: RoundTripsRun): void {
  note(`<b>Links:</b> ${escapeHtml(run.network.reason)}`);
  for (const s of run.skipped) note(`<b>Not run here:</b> ${escapeHtml(s.what)} — ${escapeHtml(s.reason)}`, COLOR.red);
}

/** How each link was set: target, what the machine does by itself, what was reached. */
export function showCalibration(s: RoundTripsSummary): void {
  const rows: Row[] = s.calibrations.map((c) => ({
    link: c.link,
    "stands for": c.purpose,
    via: c.kind,
    "target ms": c.targetRttMs,
    "direct ms": r(c.baselineRttMs),
    "link at 0 ms": r(c.linkZeroRttMs),
    "link's own cost µs": Math.round((c.linkZeroRttMs - c.baselineRttMs) * 1000),
    "one-way delay set ms": r(c.oneWayDelayMs),
    "added ms": r(c.addedRttMs),
    "reached ms": r(c.achievedRttMs),
    "reached at fastest ms": r(c.achievedFloorMs),
    "off target µs": Math.round((c.achievedRttMs - c.targetRttMs) * 1000),
    how: c.mode,
    note: c.note,
  }));
  showTable(rows, {
    caption:
      "Round trips asked for and reached (median SELECT 1 through each link, and its fastest; the link's own cost is subtracted by measuring, not assumed). Added: the round trip the link's delay adds (2 × one way), whatever the load",
  });
  const p50 = lateP50Us(s);
  if (p50 !== undefined) {
    const p99 = Math.max(...s.cases.map((c) => c.linkLateP99Us ?? 0));
    note(
      `During the timed trials the proxy delivered bytes a median ${p50.toFixed(1)} µs after their due time (worst trial's 99th percentile ${p99.toFixed(0)} µs): ` +
        `it sleeps in <code>Atomics.wait</code> with 1 µs timer slack, woken by its clock thread, in a process of its own.`,
    );
  }
}

const CALIBRATION_NOTES: Record<CalibrationRecord["mode"], { table: string; closing: string }> = {
  delayed: { table: "", closing: "" },
  direct: { table: "target ≤ loopback: ran direct", closing: "once ran direct (target ≤ loopback)" },
  "link-at-zero": {
    table: "target below the link's own cost",
    closing: "once at 0 ms added (target below the link's own cost)",
  },
};

const seedEnvFor = (e: EnvironmentSummary) => ENVIRONMENT_INFO[e.environment].seedCondition;
const seedLabel = (seed: SeedCondition | null) => (seed ? SEED_LABELS[seed] : "");

/** The median of the trials' median lateness on proxy links, µs. */
function lateP50Us(s: RoundTripsSummary): number | undefined {
  const late = s.cases.flatMap((c) => (c.linkLateP50Us === null ? [] : [c.linkLateP50Us])).sort((a, b) => a - b);
  return late.length ? late[Math.floor(late.length / 2)] : undefined;
}

/** The seed's table 1 (RTT by environment) with ours beside it. */
export function showRttTable(s: RoundTripsSummary): void {
  const rows: Row[] = s.environments.map((e) => {
    const seed = seedEnvFor(e);
    const select1 = selectOne(s, e.environment);
    return {
      "seed environment": seedLabel(seed),
      "seed s (10,000 × SELECT 1)": seed ? SEED_SELECT1_TOTAL_S[seed] : undefined,
      "seed RTT ms": seedValue("rtt_select1", seed),
      "our environment": e.label,
      kind: e.kind,
      "target ms": e.targetRttMs ?? "loopback",
      "our s per 10,000": r(select1?.secondsPer10k),
      "our RTT ms (median)": r(e.rttMs),
      "our RTT ms (elapsed / N)": r(select1?.msPerRoundTrip),
      note: e.calibration ? CALIBRATION_NOTES[e.calibration.mode].table : "",
    };
  });
  showTable(rows, {
    caption: `Round trip by environment: the seed's figures (its ${CASE_INFO.select1.seedFile}) beside ours`,
    digits: 4,
  });
}

/** The seed's table 2 (autocommit vs one transaction) with ours beside it. */
export function showAutocommitTable(s: RoundTripsSummary): void {
  const rows: Row[] = s.environments.flatMap((e) => {
    const { autocommit: auto, oneTransaction: one } = e;
    if (!auto || !one) return [];
    const seed = seedEnvFor(e);
    const [a, b] = [seedValue("update_autocommit_seconds", seed), seedValue("update_one_transaction_seconds", seed)];
    const flagged = [auto.outlierRepeats, one.outlierRepeats, auto.checkpointRepeats, one.checkpointRepeats].flat();
    return {
      "seed environment": seedLabel(seed),
      "seed a. autocommit s": a,
      "seed b. one transaction s": b,
      "seed a − b s": a !== undefined && b !== undefined ? r(a - b) : undefined,
      "our environment": e.label,
      kind: e.kind,
      "ours a. s/10,000": r(auto.secondsPer10k),
      "ours b. s/10,000": r(one.secondsPer10k),
      "ours a − b s/10,000": r(auto.secondsPer10k - one.secondsPer10k),
      "a / b, paired per repeat": estimateAndRange(e.ratio),
      "interval is": e.ratio ? intervalLabel(e.ratio) : "",
      "a / b on median statement time": estimateAndRange(e.statementRatio),
      "flagged repeats": [...new Set(flagged)].join(", "),
    };
  });
  showTable(rows, {
    caption:
      `10,000 single-row UPDATEs, autocommit (a, the seed's ${CASE_INFO.update_autocommit.seedFile}) vs one transaction ` +
      `(b, its ${CASE_INFO.update_one_transaction.seedFile}): ours ran ${s.statements.toLocaleString("en-US")} per trial, ` +
      `scaled ×${(10_000 / s.statements).toFixed(1)}. a / b is formed per repeat (the cases run back to back), then the exact interval ` +
      `of its median [low–high]. Kind: loopback = this machine's server as it is, emulated = delays/standbys this lab set, real = a ` +
      `server measured as it is. Flagged: ${OUTLIER_RULE}, or a checkpoint inside the trial`,
    digits: 4,
  });
}

/** Commit time, estimated the seed's way, beside the server's own account of a commit. */
export function showCommitTable(s: RoundTripsSummary): void {
  const rows: Row[] = s.environments
    .filter((e) => e.commitMs !== undefined)
    .map((e) => {
      const seed = seedEnvFor(e);
      const aurora = seed !== "local" ? seedValue("aurora_commit_latency_seconds", seed) : undefined;
      return {
        environment: e.label,
        "seed (a − b)/N ms": seed ? r(seedCommitMs(seed)) : undefined,
        "seed Aurora commit-latency counter / N ms": aurora !== undefined ? r((aurora * 1000) / 10_000) : undefined,
        "ours (a − b)/N ms": r(e.commitMs),
        "ours paired per repeat [interval]": estimateAndRange(e.commitInterval, 3),
        "prepared (a − b)/N ms": r(e.preparedCommitMs),
        "WAL syncs / commit": r(e.walSyncsPerCommit, 2),
        "local WAL flush ms / sync": r(e.walSyncMsPerCommit),
        "fastest standby flush lag ms": r(e.flushLagMs),
        "standby RTT ms": r(e.standbyRttMs),
      };
    });
  showTable(rows, {
    caption:
      "Commit time: (autocommit − one transaction) / N beside what the server says a commit waited for — its own WAL flush (pg_stat_wal) and, with standbys, the fastest standby's flush lag (pg_stat_replication)",
  });
}

export function showCaseTable(s: RoundTripsSummary): void {
  const rows: Row[] = s.cases.map((c) => ({
    environment: c.environment,
    case: CASE_INFO[c.case].label,
    "seed file": CASE_INFO[c.case].seedFile,
    n: c.trials,
    "median s": r(c.medianSeconds),
    "min–max s": `${c.minSeconds.toFixed(3)}–${c.maxSeconds.toFixed(3)}`,
    "outlier repeats": c.outlierRepeats.join(", "),
    "repeats with a checkpoint": c.checkpointRepeats.join(", "),
    "s per 10,000": r(c.secondsPer10k),
    "round trips": c.roundTrips,
    "ms / round trip": r(c.msPerRoundTrip),
    "statement p50 ms": r(c.statementP50Ms),
    "statement p99 ms": r(c.statementP99Ms),
    "WAL syncs": Math.round(c.walSyncs),
    "commits (xact_commit)": Math.round(c.xactCommits),
    "WAL KiB": Math.round(c.walBytes / 1024),
    "standby flush lag ms": r(c.flushLagMs),
  }));
  showTable(rows, {
    caption: "Every case (medians over repeats; counters are the server's deltas over the timed part)",
  });
}

/** The mean over the standby links, each as last set to `targetMs`, of `f` (where finite). */
function standbyLinks(s: RoundTripsSummary, targetMs: number, f: (c: CalibrationRecord) => number | undefined) {
  const at = s.calibrations.filter((c) => c.purpose === STANDBY_PURPOSE && c.targetRttMs === targetMs);
  const xs = [...new Map(at.map((c) => [c.link, c])).values()].map(f).filter((x): x is number => Number.isFinite(x));
  return xs.length ? xs.reduce((a, b) => a + b, 0) / xs.length : undefined;
}

export function showSweepTable(s: RoundTripsSummary): void {
  if (!s.sweep.length) return;
  const rows: Row[] = s.sweep.map((x) => ({
    "standby RTT target ms": x.standbyTargetMs,
    "added ms": r(standbyLinks(s, x.standbyTargetMs, (c) => c.addedRttMs)),
    "reached ms": r(x.standbyRttMs),
    "reached at fastest ms": r(standbyLinks(s, x.standbyTargetMs, (c) => c.achievedFloorMs)),
    synchronous_commit: x.level,
    "ms per commit (median)": r(x.commitMs),
    "range over repeats": `${x.commitMsMin.toFixed(3)}–${x.commitMsMax.toFixed(3)}`,
    "repeats with a checkpoint": x.checkpointRepeats.join(", "),
    "local WAL flush ms": r(x.walSyncMsPerCommit),
    "write lag ms": r(x.writeLagMs),
    "flush lag ms": r(x.flushLagMs),
    "replay lag ms": r(x.replayLagMs),
  }));
  showTable(rows, {
    caption:
      "Commit latency by synchronous_commit level and standby round trip (client direct; the standby links' added delay and reached round trip, median and fastest, are their mean; lags: the fastest standby, sampled — with off they time the WAL writer's batches, not the commits)",
  });
}

export function showCharts(s: RoundTripsSummary): void {
  plot(elapsedVsRtt(s), 520);
  plot(autocommitVsOneTransaction(s));
  const sweep = commitLatencyBySyncLevel(s);
  if (sweep) plot(sweep, 460);
}

/** Where a commit's time went, from the counters. */
export function showExplanation(s: RoundTripsSummary): void {
  const local = findEnvironment(s, "local");
  const q = findEnvironment(s, "quorum-same-az") ?? findEnvironment(s, "quorum-cross-az");
  const parts: string[] = [];
  if (local?.walSyncMsPerCommit !== undefined) {
    parts.push(
      `<li><b>One server.</b> An autocommit UPDATE is one round trip (${(local.rttMs ?? NaN).toFixed(3)} ms on loopback) plus one WAL flush ` +
        `(${local.walSyncMsPerCommit.toFixed(3)} ms per <code>fdatasync</code> here, ${(local.walSyncsPerCommit ?? NaN).toFixed(2)} flushes per statement). ` +
        `The one transaction flushed ${Math.round(local.oneTransaction?.walSyncs ?? NaN)} time(s) for ` +
        `${(local.oneTransaction?.statements ?? NaN).toLocaleString("en-US")} UPDATEs.</li>`,
    );
  }
  if (q?.flushLagMs !== undefined && q.flushLagMs !== null) {
    parts.push(
      `<li><b>Quorum commit.</b> After its own flush the primary waits for the first standby to report the WAL flushed: ` +
        `a median ${q.flushLagMs.toFixed(3)} ms with standbys ${(q.standbyRttMs ?? NaN).toFixed(3)} ms away: ` +
        `${(q.flushLagMs - (q.standbyRttMs ?? NaN)).toFixed(3)} ms beyond one round trip for the standby's write and flush ` +
        `(${s.params.quorumStorage === "memory" ? "in memory" : "on the same disk"}: quorumStorage "${s.params.quorumStorage}") ` +
        "and scheduling on the CPUs it shares with the primary.</li>",
    );
  }
  const rtts = [...new Set(s.sweep.map((x) => x.standbyTargetMs))].sort((a, b) => a - b);
  if (rtts.length >= 2) {
    const [lo, hi] = [rtts[0], rtts[rtts.length - 1]];
    const rises = [...new Set(s.sweep.map((x) => x.level))].map((level) => {
      const [a, b] = [lo, hi].map((rtt) => s.sweep.find((x) => x.level === level && x.standbyTargetMs === rtt));
      return a && b ? `<code>${level}</code> ${a.commitMs.toFixed(3)} → ${b.commitMs.toFixed(3)} ms` : "";
    });
    parts.push(
      `<li><b>Levels.</b> Median commit from standbys ${lo} ms to ${hi} ms away: ${rises.filter(Boolean).join(", ")}. ` +
        `<code>off</code> waits for no flush, <code>local</code> for the local one; the other levels wait for a standby's write, flush or replay.</li>`,
    );
  }
  if (parts.length) show().html(`<ul>${parts.join("")}</ul>`);
}

/** The closing note: the round trips reached, and the verdicts. */
export function showClosingNote(s: RoundTripsSummary, claims: readonly ClaimCheck[]): void {
  const links = [...groupBy(s.calibrations, (c) => `${c.link}|${c.targetRttMs}`).values()].map((cs) => {
    const delayed = cs.filter((c) => c.mode === "delayed");
    const notes = [...new Set(cs.filter((c) => c.mode !== "delayed").map((c) => CALIBRATION_NOTES[c.mode].closing))];
    /** f's range over the delayed calibrations that know it (runs before a field was recorded lack it). */
    const range = (f: (c: CalibrationRecord) => number | undefined) => {
      const xs = delayed.map(f).filter((x): x is number => x !== undefined);
      const [lo, hi] = [Math.min(...xs), Math.max(...xs)];
      return !xs.length ? undefined : lo === hi ? `${lo.toFixed(3)} ms` : `${lo.toFixed(3)}–${hi.toFixed(3)} ms`;
    };
    const [fastest, added] = [range((c) => c.achievedFloorMs), range((c) => c.addedRttMs)];
    const reached = !delayed.length
      ? "not reached"
      : `${range((c) => c.achievedRttMs)}${fastest && added ? ` (fastest ${fastest}, ${added} added)` : ""}`;
    return `${escapeHtml(cs[0].link)} ${cs[0].targetRttMs.toFixed(2)} → ${reached}${notes.length ? ` (${escapeHtml(notes.join("; "))})` : ""}`;
  });
  const late = lateP50Us(s);
  const lateText =
    late === undefined
      ? ""
      : ` The proxy delivered bytes a median ${late.toFixed(1)} µs after their due time during the trials.`;
  const verdicts = claims
    .map(
      (c) =>
        `<li><b>${escapeHtml(c.id)}</b> ${escapeHtml(c.claim)} — <b>${escapeHtml(c.verdict)}</b>: ${escapeHtml(c.ours)}</li>`,
    )
    .join("");
  show().html(
    `<div style="border:1px solid #ccd;padding:8px 12px;margin:8px 0"><b>In short.</b> ` +
      `Links: ${escapeHtml(s.network.reason)}. Round trips asked for → reached (median SELECT 1 through the link, over its calibrations; its fastest, and the delay added): ${links.join("; ") || "none"}.` +
      `${lateText} The proxy's precision on its own: <code>npm run bench</code> (bench/delay-proxy.ts).<ul>${verdicts}</ul></div>`,
  );
}

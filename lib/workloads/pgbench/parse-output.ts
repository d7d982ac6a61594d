/**
 * pgbench's text output → data: `-P` progress lines and the end-of-run summary with `-r` latencies; unknown lines are
 * ignored.
 */
import type { PgbenchSummary, ProgressPoint, StatementLatency } from "./types";

// "progress: 5.0 s, 907.0 tps, lat 2.203 ms stddev 7.275, 0 failed" (or an epoch with --progress-timestamp;
// older versions end at the stddev; -R adds ", lag X ms", retries ", N retried, M retries").
const PROGRESS = /^progress: ([\d.]+) s, ([\d.]+) tps, lat ([\d.]+|NaN) ms stddev ([\d.]+|NaN)(?:, (\d+) failed)?/;

/** Timestamps above this are Unix seconds (--progress-timestamp), not seconds since the start. */
const EPOCH_THRESHOLD = 1e9;

/** Parses one progress line; `startEpochMs` turns `--progress-timestamp` epochs into seconds since the start. */
export function parseProgressLine(line: string, startEpochMs?: number): ProgressPoint | undefined {
  const m = PROGRESS.exec(line.trim());
  if (!m) return undefined;
  const stamp = Number(m[1]);
  const isEpoch = stamp > EPOCH_THRESHOLD;
  const epochMs = isEpoch ? stamp * 1000 : startEpochMs !== undefined ? startEpochMs + stamp * 1000 : undefined;
  const second = isEpoch ? (startEpochMs !== undefined ? (stamp * 1000 - startEpochMs) / 1000 : stamp) : stamp;
  const num = (s: string) => (s === "NaN" ? 0 : Number(s));
  return {
    second: Math.round(second * 1000) / 1000,
    epochMs,
    tps: Number(m[2]),
    latencyMs: num(m[3]),
    stddevMs: num(m[4]),
    failed: m[5] === undefined ? undefined : Number(m[5]),
  };
}

export function parseProgress(text: string, startEpochMs?: number): ProgressPoint[] {
  return text
    .split("\n")
    .map((line) => parseProgressLine(line, startEpochMs))
    .filter((p): p is ProgressPoint => p !== undefined);
}

function numberAfter(text: string, pattern: RegExp): number | undefined {
  const m = pattern.exec(text);
  return m ? Number(m[1]) : undefined;
}

// "   0.403   0  UPDATE ..." (15+: latency, failures[, retries]); "   0.403  UPDATE ..." (≤ 14).
const STATEMENT = /^\s*(\d+\.\d+)\s+(?:(\d+)\s+)?(?:(\d+)\s+)?(\S.*?)\s*$/;

function parseStatements(text: string): StatementLatency[] {
  const out: StatementLatency[] = [];
  let script = 1;
  let inBlock = false;
  for (const line of text.split("\n")) {
    const scriptHeader = /^SQL script (\d+):/.exec(line);
    if (scriptHeader) {
      script = Number(scriptHeader[1]);
      inBlock = false;
      continue;
    }
    if (/statement latencies in milliseconds/.test(line)) {
      inBlock = true;
      continue;
    }
    if (!inBlock) continue;
    const m = STATEMENT.exec(line);
    if (!m) {
      if (line.trim()) inBlock = false;
      continue;
    }
    out.push({
      script,
      command: m[4],
      latencyMs: Number(m[1]),
      failures: m[2] === undefined ? undefined : Number(m[2]),
      retries: m[3] === undefined ? undefined : Number(m[3]),
    });
  }
  return out;
}

/** The end-of-run summary (stdout), plus aborted clients (stderr). */
export function parseSummary(stdout: string, stderr = ""): PgbenchSummary {
  // Of several tps lines (≤ 13), the one without connection time is the comparable figure.
  const tpsLines = [...stdout.matchAll(/^tps = ([\d.]+) \(([^)]*)\)/gm)];
  const tpsLine = tpsLines.find((m) => /without|excluding/.test(m[2])) ?? tpsLines[0];
  if (!tpsLine) {
    throw new Error(
      `pgbench printed no "tps = " line; its output ends with:\n${stdout.trim().split("\n").slice(-8).join("\n")}\n${stderr.trim().split("\n").slice(-8).join("\n")}`,
    );
  }
  const transactionType = /^transaction type: (.*)$/m.exec(stdout)?.[1];
  return {
    transactionType,
    scalingFactor: numberAfter(stdout, /^scaling factor: (\d+)/m),
    clients: numberAfter(stdout, /^number of clients: (\d+)/m),
    threads: numberAfter(stdout, /^number of threads: (\d+)/m),
    durationSeconds: numberAfter(stdout, /^duration: (\d+) s/m),
    transactions: numberAfter(stdout, /^number of transactions actually processed: (\d+)/m) ?? 0,
    failed: numberAfter(stdout, /^number of failed transactions: (\d+)/m) ?? 0,
    latencyAvgMs: numberAfter(stdout, /^latency average = ([\d.]+) ms/m),
    latencyStddevMs: numberAfter(stdout, /^latency stddev = ([\d.]+) ms/m),
    initialConnectionMs: numberAfter(stdout, /^initial connection time = ([\d.]+) ms/m),
    tps: Number(tpsLine[1]),
    statements: parseStatements(stdout),
    abortedClients: (stderr.match(/client \d+ (?:script \d+ )?aborted/g) ?? []).length,
  };
}

/** The latency of the first statement whose text matches, ms. */
export function statementLatency(summary: PgbenchSummary, match: RegExp): number | undefined {
  return summary.statements.find((s) => match.test(s.command))?.latencyMs;
}

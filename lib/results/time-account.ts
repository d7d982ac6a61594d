/**
 * Where a notebook's wall time went, from its run's records: timed seconds, untimed setup, gaps
 * between trials, and the time before and after them; written as the run's time.json.
 */
import fs from "node:fs";
import path from "node:path";

export const TIME_ACCOUNT_FILE = "time.json";

export interface TimeAccount {
  /** Kernel start to the last cell. */
  readonly wallSeconds: number;
  /** The ETA printed before it ran; null: none. */
  readonly etaSeconds: number | null;
  readonly etaRatio: number | null;
  readonly timedSeconds: number;
  readonly measuredShare: number;
  readonly trials: number;
  /** The rest of the wall, by where it was spent; they add up to wall − timed. */
  readonly rest: {
    readonly kernelStart: number;
    /** Kernel ready to the first trial: servers, data load, template, calibration. */
    readonly beforeTrials: number;
    /** Inside the trials' records, outside their timed part. */
    readonly trialSetup: number;
    readonly betweenTrials: number;
    /** After the last trial: summaries, claims, charts, the report. */
    readonly afterTrials: number;
  };
  /** Trials' setup by name: every numeric `…Seconds` field of a trial, summed. */
  readonly recorded: Readonly<Record<string, number>>;
  /** Between trials by name: each trial's `beforeSeconds`, summed. */
  readonly recordedBetween?: Readonly<Record<string, number>>;
  /** Before the first and after the last trial, by cell and the gaps between; absent without cell times. */
  readonly outside?: {
    readonly before: Readonly<Record<string, number>>;
    readonly after: Readonly<Record<string, number>>;
  };
}

export interface CellSpan {
  readonly ordinal: number;
  readonly head: string;
  readonly from: number;
  readonly to: number | null;
}

export const REPORT_EXPORT = "saving the report (ipynb, HTML)";
export const BETWEEN_CELLS = "between cells";

/** The part of [from, to) each cell covers; the rest is BETWEEN_CELLS or REPORT_EXPORT. */
export function splitByCells(cells: readonly CellSpan[], from: number, to: number): Record<string, number> {
  const out: Record<string, number> = {};
  if (!(to > from)) return out;
  const add = (k: string, v: number) => {
    if (v > 0) out[k] = (out[k] ?? 0) + v;
  };
  let covered = 0;
  // A cell that never ended ran to the end: no export after it.
  const lastEnd = Math.max(0, ...cells.map((c) => c.to ?? Infinity));
  for (const c of cells) {
    const part = Math.max(0, Math.min(to, c.to ?? to) - Math.max(from, c.from));
    add(`cell ${c.ordinal} \`${c.head}\``, part);
    covered += part;
  }
  const exportPart = cells.length ? Math.max(0, to - Math.max(from, lastEnd)) : 0;
  add(REPORT_EXPORT, exportPart);
  add(BETWEEN_CELLS, to - from - covered - exportPart);
  return out;
}

interface TrialTimes {
  readonly seconds?: unknown;
  readonly measuredSeconds?: unknown;
  readonly startedAt?: unknown;
  readonly finishedAt?: unknown;
  readonly status?: unknown;
}

/**
 * The account of one notebook; trial records started before `startedMs` (a resumed run's earlier part) are left out.
 */
export function accountTime(
  trials: readonly (TrialTimes & Record<string, unknown>)[],
  startedMs: number,
  wallSeconds: number,
  kernelStartSeconds: number | null,
  etaSeconds: number | null,
  cells?: readonly CellSpan[],
): TimeAccount {
  const endMs = startedMs + wallSeconds * 1000;
  const kernelStart = Math.min(wallSeconds, Math.max(0, kernelStartSeconds ?? 0));
  const spans = trials
    .map((t) => ({
      t,
      from: typeof t.startedAt === "string" ? Date.parse(t.startedAt) : NaN,
      to: typeof t.finishedAt === "string" ? Date.parse(t.finishedAt) : NaN,
    }))
    .filter((s) => Number.isFinite(s.from) && Number.isFinite(s.to) && s.from >= startedMs && s.to >= s.from)
    .sort((a, b) => a.from - b.from);
  let timed = 0;
  let inTrials = 0;
  let between = 0;
  const recorded: Record<string, number> = {};
  const recordedBetween: Record<string, number> = {};
  for (const [i, s] of spans.entries()) {
    const wall = (s.to - s.from) / 1000;
    // A trial with several timed windows records them as `measuredSeconds`.
    const windows = typeof s.t.measuredSeconds === "number" ? s.t.measuredSeconds : s.t.seconds;
    const own = s.t.status === "ok" && typeof windows === "number" && windows >= 0 ? windows : 0;
    timed += Math.min(own, wall);
    inTrials += wall;
    const previous = spans[i - 1];
    if (previous) between += Math.max(0, (s.from - previous.to) / 1000);
    for (const [k, v] of Object.entries(s.t))
      if (/Seconds$/.test(k) && k !== "measuredSeconds" && typeof v === "number" && Number.isFinite(v) && v >= 0)
        recorded[k] = (recorded[k] ?? 0) + v;
    const before = s.t.beforeSeconds;
    if (i > 0 && typeof before === "object" && before !== null)
      for (const [k, v] of Object.entries(before))
        if (typeof v === "number" && Number.isFinite(v) && v >= 0) recordedBetween[k] = (recordedBetween[k] ?? 0) + v;
  }
  const first = spans[0];
  const last = spans[spans.length - 1];
  const beforeTrials = first ? Math.max(0, (first.from - startedMs) / 1000 - kernelStart) : 0;
  const afterTrials = last ? Math.max(0, (endMs - last.to) / 1000) : Math.max(0, wallSeconds - kernelStart);
  return {
    wallSeconds,
    etaSeconds,
    etaRatio: etaSeconds !== null && wallSeconds > 0 ? etaSeconds / wallSeconds : null,
    timedSeconds: timed,
    measuredShare: wallSeconds > 0 ? timed / wallSeconds : 0,
    trials: spans.length,
    rest: { kernelStart, beforeTrials, trialSetup: inTrials - timed, betweenTrials: between, afterTrials },
    recorded,
    recordedBetween,
    ...(cells
      ? {
          outside: {
            before: splitByCells(cells, kernelStart, kernelStart + beforeTrials),
            after: splitByCells(cells, wallSeconds - afterTrials, wallSeconds),
          },
        }
      : {}),
  };
}

export function writeTimeAccount(runDirectory: string, account: TimeAccount): void {
  fs.writeFileSync(path.join(runDirectory, TIME_ACCOUNT_FILE), `${JSON.stringify(account, null, 2)}\n`);
}

export function readTimeAccount(runDirectory: string): TimeAccount | undefined {
  try {
    const raw: unknown = JSON.parse(fs.readFileSync(path.join(runDirectory, TIME_ACCOUNT_FILE), "utf8"));
    if (typeof raw !== "object" || raw === null) return undefined;
    const a = raw as Partial<TimeAccount>;
    return typeof a.wallSeconds === "number" && typeof a.measuredShare === "number" && typeof a.rest === "object"
      ? (raw as TimeAccount)
      : undefined;
  } catch {
    return undefined;
  }
}

const pct = (x: number) => `${Math.round(x * 100)} %`;
const sec = (x: number) => (x >= 100 ? `${Math.round(x)} s` : `${x.toFixed(1)} s`);

/** "kernel 1.8 s, before trials 9.6 s, trials' setup 30 s (cloneSeconds 29 s), …" */
export function restText(a: TimeAccount): string {
  const recordedSum = Object.values(a.recorded).reduce((t, v) => t + v, 0);
  const unnamed = a.rest.trialSetup - recordedSum;
  const named = [
    ...Object.entries(a.recorded).filter(([, v]) => v > 0),
    // What the records do not name, or how much named parts overlapped; shown only when they name some.
    ...(recordedSum > 0 && unnamed >= 0.05 ? [["other", unnamed] as const] : []),
    ...(recordedSum > 0 && unnamed <= -0.05 ? [["of these at once", -unnamed] as const] : []),
  ]
    .map(([k, v]) => `${k} ${sec(v)}`)
    .join(", ");
  const betweenSum = Object.values(a.recordedBetween ?? {}).reduce((t, v) => t + v, 0);
  const between = betweenSum > 0 ? { ...a.recordedBetween, other: a.rest.betweenTrials - betweenSum } : undefined;
  const parts = (byWhat: Readonly<Record<string, number>> | undefined, limit = Infinity) => {
    const top = Object.entries(byWhat ?? {})
      .filter(([, v]) => v >= 0.05)
      .sort((x, y) => y[1] - x[1]);
    // Outside the trials: the three largest (time.json keeps every part).
    const shown = top.slice(0, limit).map(([k, v]) => `${k.replace(/ `.*`$/, "")} ${sec(v)}`);
    const rest = top.slice(limit).reduce((t, [, v]) => t + v, 0);
    return top.length ? ` (${[...shown, ...(rest >= 0.05 ? [`the rest ${sec(rest)}`] : [])].join(", ")})` : "";
  };
  return [
    `kernel ${sec(a.rest.kernelStart)}`,
    `before trials ${sec(a.rest.beforeTrials)}${parts(a.outside?.before, 3)}`,
    `trials' setup ${sec(a.rest.trialSetup)}${named ? ` (${named})` : ""}`,
    `between trials ${sec(a.rest.betweenTrials)}${parts(between)}`,
    `after trials ${sec(a.rest.afterTrials)}${parts(a.outside?.after, 3)}`,
  ].join(", ");
}

export function accountCells(a: TimeAccount | undefined): { eta: string; measured: string } {
  if (!a) return { eta: "—", measured: "—" };
  return {
    eta: a.etaRatio === null ? "no ETA" : `${a.etaRatio.toFixed(2)}`,
    measured: pct(a.measuredShare),
  };
}

/**
 * Where a notebook's wall time went, from what its run records: the timed seconds of its trials
 * (each record's `seconds`, what the claims are measured on), the rest of each trial (its own setup:
 * loads, clones, restarts, checkpoints), the gaps between trials, and the time before the first and
 * after the last (kernel start, servers, template, summaries, charts; by cell, where the executor
 * gave the cells' times). Beside it, the ETA printed
 * before the notebook ran ÷ its wall. `npm run reproduce` prints it per notebook at its end and
 * writes it as the run's time.json, which `npm run runs` shows.
 */
import fs from "node:fs";
import path from "node:path";

export const TIME_ACCOUNT_FILE = "time.json";

export interface TimeAccount {
  /** The notebook's wall seconds, kernel start to the last cell. */
  readonly wallSeconds: number;
  /** The ETA printed before it ran, in seconds; null: none (no model, or nothing to fit it on). */
  readonly etaSeconds: number | null;
  /** etaSeconds ÷ wallSeconds; null without an ETA. */
  readonly etaRatio: number | null;
  /** The trials' own timed seconds (each record's `seconds`), the measurement. */
  readonly timedSeconds: number;
  /** timedSeconds ÷ wallSeconds. */
  readonly measuredShare: number;
  readonly trials: number;
  /** The rest of the wall, by where it was spent (seconds); they add up to wall − timed. */
  readonly rest: {
    /** The kernel's start (the notebook's first cell waits for it). */
    readonly kernelStart: number;
    /** From the kernel ready to the first trial's start: servers, data load, template, calibration. */
    readonly beforeTrials: number;
    /** Inside the trials' records, outside their timed part: each trial's setup and reset. */
    readonly trialSetup: number;
    /** Between one trial's record and the next: the trial loop's own work (progress, store, watch). */
    readonly betweenTrials: number;
    /** After the last trial: summaries, claims, charts, the report. */
    readonly afterTrials: number;
  };
  /**
   * Of the trials' setup, what the records name: every numeric `…Seconds` field of a trial summed by
   * name (04's and 06's `cloneSeconds`, 03's `prepared`…), as the workload records it.
   */
  readonly recorded: Readonly<Record<string, number>>;
  /**
   * Of the time between trials, what the records name: each trial's `beforeSeconds` object (the
   * untimed work the run did between the previous record and this trial's start: 05's link set
   * per block of trials, its standbys' start) summed by name. Absent in accounts written before it.
   */
  readonly recordedBetween?: Readonly<Record<string, number>>;
  /**
   * The wall before the first trial and after the last, by what ran then (seconds): each code cell by
   * its number and first line (the trials' cell before its first trial: servers, template; after
   * its last: its summaries), the gaps between cells, and, after the last cell, the report's
   * saving and HTML export. Absent in an account written without the cells' times.
   */
  readonly outside?: {
    readonly before: Readonly<Record<string, number>>;
    readonly after: Readonly<Record<string, number>>;
  };
}

/** When a code cell ran, seconds from the notebook's start (`to` null: it never ended). */
export interface CellSpan {
  readonly ordinal: number;
  readonly head: string;
  readonly from: number;
  readonly to: number | null;
}

/** The report's saving and HTML export, after the last cell ended: its name in `outside.after`. */
export const REPORT_EXPORT = "saving the report (ipynb, HTML)";
/** The executor's own time between one cell's end and the next one's start. */
export const BETWEEN_CELLS = "between cells";

/**
 * The part of [from, to) each cell covers, by "cell N `head`"; what no cell covers is BETWEEN_CELLS,
 * or REPORT_EXPORT after the last cell's end. Adds up to to − from.
 */
export function splitByCells(cells: readonly CellSpan[], from: number, to: number): Record<string, number> {
  const out: Record<string, number> = {};
  if (!(to > from)) return out;
  const add = (k: string, v: number) => {
    if (v > 0) out[k] = (out[k] ?? 0) + v;
  };
  let covered = 0;
  // A cell that never ended (the notebook failed or was stopped in it) ran to the end: no export after it.
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
 * The account of one notebook: `startedMs` when it started (before its kernel), its wall, its kernel
 * start, and its run's trial records (those started before `startedMs`, an earlier part of a resumed
 * run, are left out).
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
    // A trial with more than one timed window (06's write run and its read runs) records them all as
    // `measuredSeconds`; else its `seconds` is its one window.
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
    // The first trial's "before" ran before the first record: it is part of "before trials" there.
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

/** Writes the account into a run's folder (TIME_ACCOUNT_FILE). */
export function writeTimeAccount(runDirectory: string, account: TimeAccount): void {
  fs.writeFileSync(path.join(runDirectory, TIME_ACCOUNT_FILE), `${JSON.stringify(account, null, 2)}\n`);
}

/** A run's account, where it has a readable one (a run made by `npm run reproduce`). */
export function readTimeAccount(runDirectory: string): TimeAccount | undefined {
  try {
    const raw: unknown = JSON.parse(fs.readFileSync(path.join(runDirectory, TIME_ACCOUNT_FILE), "utf8"));
    if (typeof raw !== "object" || raw === null) return undefined;
    const a = raw as Partial<TimeAccount>;
    return typeof a.wallSeconds === "number" && typeof a.measuredShare === "number" && typeof a.rest === "object"
      ? (raw as TimeAccount)
      : undefined;
  } catch {
    return undefined; // no account: a run the notebook server or the lab made, not reproduce
  }
}

const pct = (x: number) => `${Math.round(x * 100)} %`;
const sec = (x: number) => (x >= 100 ? `${Math.round(x)} s` : `${x.toFixed(1)} s`);

/** "kernel 1.8 s, before trials 9.6 s, trials' setup 30 s (cloneSeconds 29 s), between 0.4 s, after 5.1 s" */
export function restText(a: TimeAccount): string {
  const recordedSum = Object.values(a.recorded).reduce((t, v) => t + v, 0);
  const unnamed = a.rest.trialSetup - recordedSum;
  const named = [
    ...Object.entries(a.recorded).filter(([, v]) => v > 0),
    // What the records do not name (their own bookkeeping, a failed trial's wall), or, where the
    // named parts ran at once (07 loads the next table while it counts a pass's WAL), how much of
    // them overlapped; shown only when the records name some.
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
    // Outside the trials: the three largest, a cell by its number (time.json and
    // `runs --time --format json` keep every part, with the cell's first line).
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

/** The table's cells for one account: ETA ÷ wall and the measured share. */
export function accountCells(a: TimeAccount | undefined): { eta: string; measured: string } {
  if (!a) return { eta: "—", measured: "—" };
  return {
    eta: a.etaRatio === null ? "no ETA" : `${a.etaRatio.toFixed(2)}`,
    measured: pct(a.measuredShare),
  };
}

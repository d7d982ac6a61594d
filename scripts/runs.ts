/**
 * `npm run runs [-- --notebook 03] [--format json] [--time]`: the runs on disk, newest first, with what a
 * comparison needs to pick two: notebook, profile, target, commit, start, trials ok/failed, verdicts. A
 * removed or half-written run directory is listed as such. `--time`: under the table, where each
 * run's wall went besides its measurement (its time account, written by `npm run reproduce`).
 */
import { listRuns, type StoredRun } from "../lib/results/stored-runs";
import { accountCells, restText, type TimeAccount } from "../lib/results/time-account";
import { otherWorkCell } from "../lib/results/quietness";
import { textTable } from "../lib/compare/format";
import { resultsRoot } from "../lib/results/run-store";
import { has, lastValue, noPositionals, readCommandArgs, refuse, UsageError } from "./cli-args";

function row(r: StoredRun): string[] {
  const l = listing(r);
  const verdicts = l.verdicts
    ? Object.entries(l.verdicts)
        .map(([v, n]) => `${n} ${v}`)
        .join(", ")
    : "no verdicts recorded";
  return [
    l.id,
    l.notebook || "?",
    l.profile ?? "?",
    l.targets.join(", ") || "?",
    l.commit ?? "?",
    l.startedAt ?? "?",
    `${l.trials.ok} / ${l.trials.failed}`,
    accountCells(r.time).eta,
    accountCells(r.time).measured,
    otherWorkCell(r.metadata?.quietness),
    verdicts,
    l.state === "finished" ? "finished" : `${l.state}: ${l.stateWhy}`,
  ];
}

const USAGE = `Usage: npm run runs -- [--notebook NN] [--format text|json] [--time]

Lists the runs in data/results (or DBLAB_RESULTS_DIR), newest first.

Options:
  --notebook NN        only the runs of that notebook (e.g. 03)
  --format text|json   a table (default) or one JSON array, one object per run (for scripts and CI)
  --time               under the table, where each run's wall went besides its trials' timed seconds
                       (kernel, before the trials by cell, the trials' setup by what the records name,
                       between and after them); with --format json, each run's time account as "time"
  --help               show this help`;

const RUNS_OPTIONS = {
  help: { type: "boolean", short: "h" },
  notebook: { type: "string" },
  format: { type: "string" },
  time: { type: "boolean" },
} as const;

export interface RunsArgs {
  readonly help: boolean;
  readonly notebook?: string;
  readonly format: "text" | "json";
  readonly time: boolean;
}

export function parseRunsArgs(argv: readonly string[]): RunsArgs {
  const parsed = readCommandArgs(argv, RUNS_OPTIONS);
  noPositionals(parsed);
  const raw = lastValue(parsed, "notebook");
  if (raw !== undefined && !/^\d{1,2}$/.test(raw))
    throw new UsageError(`--notebook needs a notebook number like 03, got "${raw}"`);
  const format = lastValue(parsed, "format") ?? "text";
  if (format !== "text" && format !== "json") throw new UsageError(`--format must be text or json, got "${format}"`);
  return { help: has(parsed, "help"), notebook: raw?.padStart(2, "0"), format, time: has(parsed, "time") };
}

/** One run as `--format json` gives it: the table's columns as data, with the counts apart. */
export interface RunListing {
  readonly id: string;
  readonly directory: string;
  readonly notebook: string;
  readonly notebookId: string;
  readonly profile: string | null;
  readonly targets: readonly string[];
  readonly commit: string | null;
  readonly startedAt: string | null;
  readonly trials: { readonly ok: number; readonly failed: number };
  /** Verdict → how many claims got it; null when no verdicts were recorded. */
  readonly verdicts: Readonly<Record<string, number>> | null;
  readonly state: string;
  readonly stateWhy: string;
  readonly problems: readonly string[];
  /** The ETA printed before the run ÷ its wall; null: not recorded (a run not made by reproduce) or no ETA. */
  readonly etaRatio: number | null;
  /** Its trials' timed seconds ÷ its wall; null: not recorded. */
  readonly measuredShare: number | null;
  /** The CPUs' share other work used during the run; null: not measured (a server outside the lab's processes). */
  readonly otherWorkShare: number | null;
  /** Its whole time account (with --time); null: not recorded. */
  readonly time?: TimeAccount | null;
}

export function listing(r: StoredRun): RunListing {
  const m = r.metadata;
  const ok = r.trials.filter((t) => t.status === "ok").length;
  const verdicts: Record<string, number> = {};
  for (const v of r.verdicts ?? []) verdicts[v.verdict] = (verdicts[v.verdict] ?? 0) + 1;
  return {
    id: r.id,
    directory: r.directory,
    notebook: r.notebook,
    notebookId: r.notebookId,
    profile: m?.profile ?? null,
    targets: [...new Set((m?.servers ?? []).map((s) => `${s.kind}${s.route ? `/${s.route}` : ""}`))],
    commit: m?.gitCommit ?? null,
    startedAt: r.startedAt ?? null,
    trials: { ok, failed: r.trials.length - ok },
    verdicts: r.verdicts ? verdicts : null,
    state: r.state,
    stateWhy: r.stateWhy,
    problems: r.problems,
    etaRatio: r.time?.etaRatio ?? null,
    measuredShare: r.time?.measuredShare ?? null,
    otherWorkShare: m?.quietness?.during?.otherBusyShare ?? null,
  };
}

function main(): number {
  let args: RunsArgs;
  try {
    args = parseRunsArgs(process.argv.slice(2));
  } catch (e) {
    if (e instanceof UsageError) return refuse("runs", e);
    throw e;
  }
  if (args.help) {
    console.log(USAGE);
    return 0;
  }
  const { notebook } = args;
  const runs = listRuns().filter((r) => notebook === undefined || r.notebookId === notebook);
  if (args.format === "json") {
    console.log(
      JSON.stringify(
        runs.map((r) => ({ ...listing(r), ...(args.time ? { time: r.time ?? null } : {}) })),
        null,
        2,
      ),
    );
    return 0;
  }
  if (!runs.length) {
    console.log(`no runs${notebook ? ` of notebook ${notebook}` : ""} in ${resultsRoot()}`);
    return 0;
  }
  const head = [
    "run",
    "notebook",
    "profile",
    "target",
    "commit",
    "started",
    "trials ok / failed",
    "ETA ÷ wall",
    "measured",
    "other work",
    "verdicts",
    "state",
  ];
  console.log(textTable(head, runs.map(row), ""));
  if (args.time) {
    console.log("\nmeasured: the trials' timed seconds ÷ the run's wall; the rest of each wall:");
    for (const r of runs)
      console.log(`  ${r.id}: ${r.time ? restText(r.time) : "no time account (not a reproduce run)"}`);
  }
  return 0;
}

if (require.main === module) process.exit(main());

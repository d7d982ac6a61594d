/**
 * `npm run reproduce`: runs the notebooks headless with a profile and overrides, writing each run's
 * reports into reports/<run-id>/<notebook>.{html,ipynb} (with run.json), a copy of the latest of
 * each at reports/<notebook>.{html,ipynb}, and reports/index.html listing every stored run.
 *
 * Exit status: 0 all notebooks ran; 1 a notebook failed (the others still ran); 2 refused before
 * starting (bad arguments or parameters, Jupyter missing); 128+signal when stopped by a signal.
 */
import { CHROMIUM_PATH, reportToPdf } from "./report-pdf";
import { randomBytes } from "node:crypto";
import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import cliProgress from "cli-progress";
import {
  describeFailure,
  executeNotebook,
  findPython,
  JupyterUnavailableError,
  type ExecuteResult,
} from "../lib/jupyter/execute";
import { injectParameters, type NotebookJson } from "../lib/jupyter/inject-parameters";
import { projectRoot } from "../lib/jupyter/kernel-spec";
import { findExperiment, EXPERIMENTS } from "../lib/experiments/registry";
import type { RegisteredExperiment } from "../lib/experiments/contract";
import { checkProfile, PROFILES, type ProfileName } from "../lib/params/profiles";
import { etaText, withOutside } from "../lib/experiments/eta";
import {
  busyHostNote,
  closeWindow,
  openWindow,
  otherWorkCell,
  OWN_TREE_ROOT_ENV,
  type Quietness,
} from "../lib/results/quietness";
import { durationText } from "../lib/stats/format";
import { planText } from "../lib/stats/claims";
import { checkDiskNeed, DiskSpaceError, type DiskNeed } from "../lib/targets/disk-need";
import { DATA_DIR_ENV, embeddedBaseDir } from "../lib/targets/embedded/data-dir";
import { plannedTargetKind, TARGET_CHOICES } from "../lib/targets/select";
import { gitCommit, hostInfo, type HostInfo } from "../lib/results/metadata";
import { resultsRoot } from "../lib/results/run-store";
import { readRun, type StoredRun } from "../lib/results/stored-runs";
import { readCommandArgs, UsageError, valueOf } from "./cli-args";
import { helpText, notebookParameters } from "./parameters";
import { writeRunIndex } from "./report-index";
import { accountCells, accountTime, restText, writeTimeAccount, type TimeAccount } from "../lib/results/time-account";
import { noteLines, RESUME_ENV, resolveResume, resumeLine, resumeOutcome, runOf, type ResumePlan } from "./resume";
import { REOPEN_ENV } from "../lib/results/run-store";
import { resolveReopen, type ReopenPlan } from "./reopen";
import { errorMessage } from "../lib/runtime/error-message";

export { UsageError };

const USAGE = `Usage: npm run reproduce -- [options]

Runs the notebooks headless and writes reports/<run-id>/<notebook>.html (+ .ipynb), a copy of the
latest at reports/<notebook>.html, and reports/index.html (every run in the results folder).

Options:
  --profile NAME       ${PROFILES.join(" | ")} (default: default)
  --only ID            run only these notebooks; repeatable or comma-separated (${EXPERIMENTS.map((n) => n.id).join(", ")})
  --set KEY=VALUE      override a parameter; VALUE is JSON if it parses, else a string
                       (e.g. --set rowCounts=[1000,2000] --set target=embedded); repeatable
  --hide-code          leave code cells out of the HTML reports
  --pdf                also write reports/<run-id>/<notebook>.pdf, every chart drawn (headless Chromium)
  --reports-dir DIR    write the reports there instead of reports/
  --cell-timeout SEC   per-cell timeout in seconds (default: smoke 900, default 14400, full 86400; 0 = none)
  --resume RUN         continue a stored run (an id from \`npm run runs\`, a unique prefix, or "last"):
                       its notebook with its recorded profile and parameters (data/results/RUN/params.json);
                       its finished trials are skipped; a --set or --profile that changes them is refused
  --reopen RUN         show a finished stored run again (id, unique prefix, "last" or "latest of notebook NN"):
                       its notebook with this lab's code and a new report, no server started, no trial run;
                       the run's own files are left as they are
  --eta-only           print each notebook's estimated duration on this machine and exit (no server starts)
  --help               show this help; with --only, also those notebooks' parameters (every
                       notebook's: docs/parameters.md)

Notebooks:
${EXPERIMENTS.map((n) => `  ${n.id}  ${n.title}`).join("\n")}`;

const DEFAULT_CELL_TIMEOUT: Record<ProfileName, number> = { smoke: 900, default: 4 * 3600, full: 24 * 3600 };

interface Options {
  profile: ProfileName;
  only: string[];
  sets: Record<string, unknown>;
  hideCode: boolean;
  /** Also print each HTML report to a PDF beside it (headless Chromium). */
  pdf: boolean;
  reportsDir?: string;
  cellTimeoutSec?: number;
  /** `--resume`: a stored run's id, a unique prefix of one, or "last". */
  resume?: string;
  /** `--reopen`: a finished stored run to show again. */
  reopen?: string;
  /** `--eta-only`: print the estimates and stop before any kernel or server starts. */
  etaOnly: boolean;
  /** Whether --profile was given (a resume refuses one that differs from the run's). */
  profileGiven: boolean;
  help: boolean;
}

function parseValue(raw: string): unknown {
  try {
    return JSON.parse(raw);
  } catch {
    return raw; // not JSON: --set key=value takes the value as a string
  }
}

const REPRODUCE_OPTIONS = {
  help: { type: "boolean", short: "h" },
  "hide-code": { type: "boolean" },
  pdf: { type: "boolean" },
  profile: { type: "string" },
  only: { type: "string" },
  set: { type: "string" },
  "reports-dir": { type: "string" },
  "cell-timeout": { type: "string" },
  resume: { type: "string" },
  reopen: { type: "string" },
  "eta-only": { type: "boolean" },
} as const;

export function parseArgs(argv: readonly string[]): Options {
  const opts: Options = {
    profile: "default",
    only: [],
    sets: {},
    hideCode: false,
    pdf: false,
    help: false,
    etaOnly: false,
    profileGiven: false,
  };
  const parsed = readCommandArgs(argv, REPRODUCE_OPTIONS);
  const [positional] = parsed.positionals;
  if (positional !== undefined) throw new UsageError(`unknown argument "${positional}"`);
  let profile: string = "default";
  for (const option of parsed.options) {
    switch (option.name) {
      case "help":
        opts.help = true;
        break;
      case "hide-code":
        opts.hideCode = true;
        break;
      case "pdf":
        opts.pdf = true;
        break;
      case "eta-only":
        opts.etaOnly = true;
        break;
      case "profile":
        profile = valueOf(option);
        opts.profileGiven = true;
        break;
      case "resume":
        opts.resume = valueOf(option);
        break;
      case "reopen":
        opts.reopen = valueOf(option);
        break;
      case "only":
        opts.only.push(
          ...valueOf(option)
            .split(",")
            .map((s) => s.trim())
            .filter(Boolean),
        );
        break;
      case "set": {
        const kv = valueOf(option);
        const at = kv.indexOf("=");
        if (at <= 0) throw new UsageError(`--set needs KEY=VALUE, got "${kv}"`);
        const key = kv.slice(0, at).trim();
        // Defined, not assigned: `opts.sets["__proto__"] = v` would set the prototype and the key
        // would vanish from Object.keys, so `--set '__proto__={…}'` was silently accepted.
        Object.defineProperty(opts.sets, key, {
          value: parseValue(kv.slice(at + 1)),
          enumerable: true,
          writable: true,
          configurable: true,
        });
        break;
      }
      case "reports-dir":
        opts.reportsDir = path.resolve(valueOf(option));
        break;
      case "cell-timeout": {
        const raw = valueOf(option);
        const n = Number(raw);
        if (!Number.isInteger(n) || n < 0)
          throw new UsageError(`--cell-timeout must be a whole number of seconds ≥ 0, got "${raw}"`);
        opts.cellTimeoutSec = n;
        break;
      }
    }
  }
  try {
    opts.profile = checkProfile(profile);
  } catch (e) {
    throw new UsageError((e as Error).message);
  }
  return opts;
}

interface Planned {
  entry: RegisteredExperiment;
  name: string;
  profile: ProfileName;
  overrides: Record<string, unknown>;
  /** Set when this notebook continues a stored run (`--resume`). */
  resume?: ResumePlan;
  /** Set when this notebook shows a stored run again (`--reopen`): nothing to time, nothing to store. */
  reopen?: ReopenPlan;
}

/**
 * Each notebook's estimated duration here (lib/experiments/eta.ts), printed before any kernel starts
 * so that a reader of a `full` run can stop before the hours pass; a notebook without an ETA model
 * (00: it reads runs, nothing to time) is left out.
 */
export function etaLines(planned: readonly Planned[], etas?: Map<string, number>): string[] {
  const lines: string[] = [];
  for (const p of planned) {
    if (p.reopen) {
      lines.push(`Reopen ${p.name}: ${p.reopen.text}; no server starts and no trial runs`);
      continue;
    }
    const trials = p.entry.estimate?.(p.profile, p.overrides, p.resume?.finishedBefore);
    const estimate = trials && withOutside(trials, p.entry.outsideTrials?.());
    if (estimate) lines.push(`ETA ${p.name}: ${etaText(estimate, p.resume?.runId ?? "<run-id>")}`);
    if (estimate) etas?.set(p.name, estimate.seconds);
    const prospect = p.entry.prospect?.(p.profile, p.overrides);
    if (prospect) lines.push(`    ${p.name}: ${planText(prospect)}`);
  }
  return lines;
}

/**
 * Refuses a plan whose largest notebook's disk need does not fit the embedded data directory, with
 * both numbers. Only where the embedded target will run (`plannedTargetKind`, the rule
 * `decideTarget` follows); the embedded target checks again as each server starts.
 */
function checkDisk(planned: readonly Planned[]): void {
  const embedded = (p: Planned) => {
    const params: { readonly target?: unknown } = p.entry.resolve(p.profile, p.overrides);
    const choice = TARGET_CHOICES.find((c) => c === params.target) ?? "auto";
    return plannedTargetKind("postgresql", choice) === "embedded";
  };
  let largest: { p: Planned; need: DiskNeed } | undefined;
  for (const p of planned) {
    const need = !p.reopen && embedded(p) ? p.entry.disk?.(p.profile, p.overrides) : undefined;
    if (need && (!largest || need.bytes > largest.need.bytes)) largest = { p, need };
  }
  if (!largest) return;
  let dir: string;
  try {
    dir = embeddedBaseDir();
  } catch (error) {
    throw new UsageError(errorMessage(error));
  }
  try {
    checkDiskNeed(
      largest.need,
      dir,
      `${largest.p.name} at --profile ${largest.p.profile}`,
      `free some, set ${DATA_DIR_ENV} to a directory on a larger disk, or choose a smaller profile`,
    );
  } catch (error) {
    if (error instanceof DiskSpaceError) throw new UsageError(error.message);
    throw error;
  }
}

/** Checks everything that can be checked before a kernel or server starts. */
export function plan(opts: Options, root: string): Planned[] {
  if (opts.resume !== undefined && opts.reopen !== undefined)
    throw new UsageError("--resume continues a run and --reopen shows one: give one of them");
  if (opts.resume !== undefined) return [planResume(opts, opts.resume, root)];
  if (opts.reopen !== undefined) return [planReopen(opts, opts.reopen, root)];
  const entries: RegisteredExperiment[] = [];
  // A notebook that needs parameters (00 needs runs) runs by default only when they are given.
  const byDefault = EXPERIMENTS.filter((n) => !n.requires || n.requires.some((k) => k in opts.sets));
  for (const id of opts.only.length ? opts.only : byDefault.map((n) => n.id)) {
    let entry: RegisteredExperiment;
    try {
      entry = findExperiment(id);
    } catch (e) {
      throw new UsageError((e as Error).message);
    }
    if (!entries.includes(entry)) entries.push(entry);
  }
  const known = new Map<RegisteredExperiment, string[]>();
  for (const entry of entries) {
    try {
      known.set(entry, Object.keys(entry.resolve(opts.profile, {})));
    } catch (e) {
      throw new UsageError(`${entry.id}: ${(e as Error).message}`);
    }
  }
  const keysOf = (entry: RegisteredExperiment): string[] => {
    const keys = known.get(entry);
    if (!keys) throw new Error(`${entry.id}: its parameters were not resolved`);
    return keys;
  };
  // A --set key goes to the selected notebooks that know it; a key none of them knows is a typo.
  for (const key of Object.keys(opts.sets)) {
    if (!entries.some((e) => keysOf(e).includes(key))) {
      const all = [...new Set(entries.flatMap((e) => keysOf(e)))].sort();
      throw new UsageError(`unknown parameter "${key}" (--set). Known parameters: ${all.join(", ")}`);
    }
  }
  return entries.map((entry) => {
    const overrides = Object.fromEntries(Object.entries(opts.sets).filter(([k]) => keysOf(entry).includes(k)));
    const missing = (entry.requires ?? []).filter((k) => !(k in overrides));
    if (missing.length) {
      throw new UsageError(`${entry.id} (${entry.file}) needs ${missing.map((k) => `--set ${k}=…`).join(" ")}`);
    }
    try {
      entry.resolve(opts.profile, overrides);
    } catch (e) {
      throw new UsageError(`${entry.id} (${entry.file}): ${(e as Error).message}`);
    }
    checkInjection(root, entry, opts.profile, overrides);
    return { entry, name: path.basename(entry.file, ".ipynb"), profile: opts.profile, overrides };
  });
}

/** The notebook's file is there and its `parameters` cell takes these, checked before any kernel starts. */
function checkInjection(
  root: string,
  entry: RegisteredExperiment,
  profile: ProfileName,
  overrides: Record<string, unknown>,
): void {
  const file = path.join(root, entry.file);
  if (!fs.existsSync(file)) throw new UsageError(`${entry.id}: notebook file ${entry.file} is missing`);
  try {
    injectParameters(JSON.parse(fs.readFileSync(file, "utf8")) as NotebookJson, profile, overrides, entry.file);
  } catch (e) {
    throw new UsageError((e as Error).message);
  }
}

/** `--resume`: the stored run's notebook, with its recorded profile and parameters as the overrides. */
function planResume(opts: Options, ref: string, root: string): Planned {
  const r = resolveResume(
    ref,
    { profile: opts.profileGiven ? opts.profile : undefined, only: opts.only, sets: opts.sets },
    resultsRoot(),
  );
  checkInjection(root, r.entry, r.profile, r.overrides);
  return {
    entry: r.entry,
    name: path.basename(r.entry.file, ".ipynb"),
    profile: r.profile,
    overrides: r.overrides,
    resume: r.resume,
  };
}

/** `--reopen`: the stored run's notebook with its recorded profile and parameters, which the run keeps. */
function planReopen(opts: Options, ref: string, root: string): Planned {
  if (Object.keys(opts.sets).length || opts.profileGiven)
    throw new UsageError("--reopen shows a run with the parameters it ran with: leave out --set and --profile");
  const r = resolveReopen(ref, opts.only, resultsRoot());
  checkInjection(root, r.entry, r.profile, r.overrides);
  const name = path.basename(r.entry.file, ".ipynb");
  return { entry: r.entry, name, profile: r.profile, overrides: r.overrides, reopen: r.reopen };
}

export function newRunId(now = new Date()): string {
  const stamp = now
    .toISOString()
    .replace(/[-:]/g, "")
    .replace(/\.\d+Z$/, "Z");
  return `${stamp}-${randomBytes(3).toString("hex")}`;
}

const spent = (ms: number): string => durationText(ms / 1000);

interface RunRecord {
  planned: Planned;
  result?: ExecuteResult;
  /** Set when the notebook did not run at all (an earlier interrupt, or a setup error). */
  skipped?: string;
  /** For a notebook that did not finish: what its stored run kept and the command that resumes it. */
  resumeWith?: string;
  /** Where its wall time went, and its ETA ÷ wall (written to its run's time.json). */
  time?: TimeAccount;
  /** Its run's quietness: how much other work shared the machine with it. */
  quietness?: Quietness;
}

/** The resume line of a notebook's stored run (the resumed one, or the one this run made). */
/** The stored run a planned notebook wrote: the resumed one, or this reproduce's. */
function runFor(resultsDir: string, runId: string, planned: Planned): StoredRun | undefined {
  const id = planned.resume?.runId;
  return id ? readRun(path.join(resultsDir, id)) : runOf(resultsDir, runId, planned.name);
}

function resumeHintOf(resultsDir: string, runId: string, planned: Planned): string | undefined {
  const run = runFor(resultsDir, runId, planned);
  if (!run || run.state === "finished") return undefined;
  // Its input was refused (the error says what to fix): a resume would fail the same way.
  if (run.metadata?.outcome === "refused")
    return "nothing to resume: fix the input the error names and start a new run";
  return resumeLine(run);
}

function statusOf(r: RunRecord): string {
  if (r.skipped) return "not run";
  if (!r.result) throw new Error(`${r.planned.entry.id}: neither run nor skipped`);
  return r.result.status;
}

function problemOf(r: RunRecord): string {
  if (r.skipped) return r.skipped;
  const res = r.result;
  if (!res) throw new Error(`${r.planned.entry.id}: neither run nor skipped`);
  if (res.status === "ok") return "";
  const why = res.failure ? describeFailure(res.failure) : (res.message ?? "");
  return r.resumeWith ? `${why}. ${r.resumeWith}` : why;
}

interface RunMeta {
  readonly runId: string;
  readonly profile: string;
  readonly started: Date;
  readonly sets: Record<string, unknown>;
}

/** What `npm run bench` quotes as the turnaround of a profile: wall time per notebook and kernel start. */
export interface TurnaroundRecord {
  readonly runId: string;
  readonly profile: string;
  readonly overrides: Record<string, unknown>;
  readonly commit: string;
  readonly host: HostInfo;
  readonly startedAt: string;
  readonly finishedAt: string;
  /** From the first kernel start to the index page (the build step of `npm run reproduce` is not in it). */
  readonly totalSeconds: number;
  readonly notebooks: readonly {
    id: string;
    status: string;
    seconds: number | null;
    kernelStartSeconds: number | null;
    /** Where its wall went and its ETA ÷ wall; absent when it did not run. */
    time?: TimeAccount;
    /** Why it did not finish; absent when it did. */
    problem?: string;
  }[];
}

function writeTurnaround(file: string, records: RunRecord[], meta: RunMeta): void {
  const finished = new Date();
  const record: TurnaroundRecord = {
    runId: meta.runId,
    profile: meta.profile,
    overrides: meta.sets,
    commit: gitCommit(),
    host: hostInfo(),
    startedAt: meta.started.toISOString(),
    finishedAt: finished.toISOString(),
    totalSeconds: (finished.getTime() - meta.started.getTime()) / 1000,
    notebooks: records.map((r) => ({
      id: r.planned.entry.id,
      status: statusOf(r),
      seconds: r.result ? r.result.durationMs / 1000 : null,
      kernelStartSeconds: r.result?.kernelStartMs != null ? r.result.kernelStartMs / 1000 : null,
      ...(r.time ? { time: r.time } : {}),
      ...(problemOf(r) ? { problem: problemOf(r) } : {}),
    })),
  };
  fs.writeFileSync(file, `${JSON.stringify(record, null, 2)}\n`);
}

/**
 * The latest report of a notebook also at reports/<notebook>.{html,ipynb}: the path the README,
 * `npm run export` examples and bench's turnaround name. A copy, not a link: a report is a file to
 * mail or attach, and a link would point into a folder the user may delete.
 */
function copyLatest(res: ExecuteResult, reportsDir: string): void {
  for (const file of [res.outputHtml, res.outputIpynb]) {
    if (file && fs.existsSync(file)) fs.copyFileSync(file, path.join(reportsDir, path.basename(file)));
  }
}

/**
 * The closing table: each notebook's time, the ETA printed before it ÷ that time, the share of it its
 * trials' timed seconds are, their sum, and the whole command's wall time (kernel starts, exports and
 * the index included); under it, where each notebook's unmeasured time went. The README's times are
 * these lines, as measured.
 */
function printSummary(records: RunRecord[], startedMs: number): void {
  const notebookMs = records.reduce((sum, r) => sum + (r.result?.durationMs ?? 0), 0);
  const timed = records.reduce((sum, r) => sum + (r.time?.timedSeconds ?? 0), 0);
  const table = [
    ...records.map((r) => ({
      notebook: r.planned.name,
      status: statusOf(r),
      duration: r.result ? spent(r.result.durationMs) : "—",
      ...accountCells(r.time),
      other: r.result ? otherWorkCell(r.quietness) : "—",
    })),
    {
      notebook: "total, notebooks",
      status: "",
      duration: spent(notebookMs),
      eta: "",
      measured:
        notebookMs > 0 && records.some((r) => r.time) ? `${Math.round((100 * timed) / (notebookMs / 1000))} %` : "",
      other: "",
    },
    {
      notebook: "total, the command",
      status: "",
      duration: spent(Date.now() - startedMs),
      eta: "",
      measured: "",
      other: "",
    },
  ];
  const cols = ["notebook", "status", "duration", "eta", "measured", "other"] as const;
  const head = {
    notebook: "notebook",
    status: "status",
    duration: "duration",
    eta: "ETA ÷ wall",
    measured: "measured",
    other: "other work",
  };
  const width = Object.fromEntries(
    cols.map((c) => [c, Math.max(head[c].length, ...table.map((t) => t[c].length))]),
  ) as Record<(typeof cols)[number], number>;
  const line = (t: Record<(typeof cols)[number], string>): string =>
    cols
      .map((c) => t[c].padEnd(width[c]))
      .join("  ")
      .trimEnd();
  console.log("\n" + line(head));
  console.log(cols.map((c) => "-".repeat(width[c])).join("  "));
  for (const t of table) console.log(line(t));
  const accounted = records.filter((r) => r.time);
  if (!accounted.length) return;
  console.log(
    "\nother work: the CPUs' share the host's other processes used during the run (its report's quietness line)",
  );
  console.log("measured: the trials' timed seconds ÷ the notebook's wall; the rest of each wall:");
  for (const r of accounted) if (r.time) console.log(`  ${r.planned.name}: ${restText(r.time)}`);
}

/**
 * Last line of the notebook's progress file (lib/display/progress.ts appends JSON lines
 * {title, done, total, message} or {title, finished, message}); plain text is shown as is.
 */
export function readProgress(file: string): string {
  let text: string;
  try {
    text = fs.readFileSync(file, "utf8").trimEnd();
  } catch {
    return ""; // no progress file yet: the notebook has not reported progress
  }
  const last = text.slice(text.lastIndexOf("\n") + 1);
  try {
    const p = JSON.parse(last) as {
      title?: string;
      message?: string;
      done?: number;
      total?: number;
      finished?: boolean;
      leftSeconds?: number;
    };
    const head = p.title ? `${p.title}: ` : "";
    const left = typeof p.leftSeconds === "number" ? `(about ${durationText(p.leftSeconds, "estimate")} left) ` : "";
    const count = !p.finished && p.done !== undefined && p.total !== undefined ? `${p.done}/${p.total} ${left}` : "";
    return `${head}${count}${p.message ?? ""}`.trim();
  } catch {
    return last; // plain text progress is shown as is
  }
}

async function main(): Promise<number> {
  const commandStarted = Date.now();
  /** Each notebook's ETA in seconds, as printed before it ran (for the closing table's ETA ÷ wall). */
  const etas = new Map<string, number>();
  const root = projectRoot();
  let opts: Options;
  let planned: Planned[];
  try {
    opts = parseArgs(process.argv.slice(2));
    if (opts.help) {
      console.log(USAGE);
      for (const id of opts.only) {
        let entry: RegisteredExperiment;
        try {
          entry = findExperiment(id);
        } catch (e) {
          throw new UsageError(errorMessage(e));
        }
        console.log(`\n${helpText(notebookParameters(entry))}`);
      }
      return 0;
    }
    planned = plan(opts, root);
    // The ETAs are a quiet machine's: other work now is read over their probes (this process left out).
    const host = openWindow(true);
    for (const line of etaLines(planned, etas)) console.log(line);
    const busy = busyHostNote(await closeWindow(host, 500));
    if (busy) console.log(busy);
    // Before any kernel or server starts: the largest notebook's data must fit the embedded data
    // directory (notebooks run one at a time, each removing its server's directory at its end).
    try {
      checkDisk(planned);
    } catch (error) {
      // Estimates are what was asked: the disk a run would need is said, not refused.
      if (!(opts.etaOnly && error instanceof UsageError)) throw error;
      console.log(`note: run as planned, it would be refused: ${error.message}`);
    }
    if (opts.etaOnly) return 0;
    findPython();
    // Before any kernel starts: a PDF needs Chromium.
    if (opts.pdf && !fs.existsSync(CHROMIUM_PATH)) {
      throw new UsageError(
        `--pdf needs Chromium at ${CHROMIUM_PATH}: apt-get install chromium (or set DBLAB_CHROMIUM)`,
      );
    }
  } catch (e) {
    if (e instanceof UsageError || e instanceof JupyterUnavailableError) {
      console.error(`reproduce: ${e.message}`);
      if (e instanceof UsageError) console.error("Run `npm run reproduce -- --help` for usage.");
      return 2;
    }
    throw e;
  }

  const runId = newRunId();
  const started = new Date();
  const reportsDir = opts.reportsDir ?? path.join(root, "reports");
  // DBLAB_RESULTS_DIR when set (as lib/results does), so that notebook 00's runs are looked up where they were checked.
  const resultsDir = resultsRoot();
  const runDir = path.join(root, ".jupyter-runtime", "runs", runId);
  // Each run's reports in their own folder, so the next run does not overwrite them.
  const runReports = path.join(reportsDir, runId);
  for (const d of [runReports, resultsDir, runDir]) fs.mkdirSync(d, { recursive: true });
  const runProfile = planned[0]?.profile ?? opts.profile;
  const cellTimeoutSec = opts.cellTimeoutSec ?? DEFAULT_CELL_TIMEOUT[runProfile];
  console.log(
    `Run ${runId}: profile ${runProfile}, ${planned.length} notebook(s); reports in ${path.relative(process.cwd(), runReports) || "."}/`,
  );
  const resuming = planned[0]?.resume;
  if (resuming) {
    console.log(
      `Resuming ${resuming.runId} (${resuming.stateBefore}): ${resuming.finishedBefore.size} finished trial(s) will be skipped`,
    );
  }

  let stopSignal: NodeJS.Signals | undefined;
  let signals = 0;
  let current: AbortController | undefined;
  const onSignal = (sig: NodeJS.Signals): void => {
    signals++;
    if (signals === 1) {
      stopSignal = sig;
      process.stderr.write(
        `\n${sig}: stopping the running notebook; its kernel gets up to 30 s to stop its servers…\n`,
      );
      current?.abort();
    } else if (signals === 2) {
      process.stderr.write(
        `\nStill stopping (the kernel is releasing its servers). ${sig} once more to quit at once.\n`,
      );
    } else {
      // The executor notices we are gone and stops the kernel; the reaper removes what is left.
      process.stderr.write("\nQuitting now; leftovers are removed by the next run or `npm run clean`.\n");
      process.exit(128 + (os.constants.signals[sig] ?? 0));
    }
  };
  process.on("SIGINT", onSignal);
  process.on("SIGTERM", onSignal);

  const records: RunRecord[] = planned.map((p) => ({ planned: p }));
  const tty = Boolean(process.stderr.isTTY);
  for (const record of records) {
    const { entry, name, overrides, profile, resume, reopen } = record.planned;
    if (stopSignal) {
      record.skipped = `not run: stopped by ${stopSignal}`;
      continue;
    }
    const progressFile = path.join(runDir, `${name}.progress`);
    const bar = tty
      ? new cliProgress.SingleBar(
          {
            format: `${name} {bar} {value}/{total} cells | {duration_formatted} {detail}`,
            hideCursor: true,
            clearOnComplete: false,
          },
          cliProgress.Presets.shades_classic,
        )
      : undefined;
    let cellCount = 0;
    let detail = "";
    bar?.start(1, 0, { detail: "starting kernel" });
    if (!tty) console.log(`[${name}] starting`);
    const poll = setInterval(() => {
      const d = readProgress(progressFile);
      if (d !== detail) {
        detail = d;
        bar?.update({ detail: d.slice(0, 60) });
        if (!tty && d) console.log(`[${name}] ${d}`);
      }
    }, 1000);
    current = new AbortController();
    const notebookStarted = Date.now();
    try {
      record.result = await executeNotebook({
        notebook: path.join(root, entry.file),
        outputIpynb: path.join(runReports, `${name}.ipynb`),
        outputHtml: path.join(runReports, `${name}.html`),
        logFile: path.join(runDir, `${name}.log`),
        profile,
        overrides,
        hideCode: opts.hideCode,
        cellTimeoutSec,
        signal: current.signal,
        env: {
          DBLAB_RUN_ID: runId,
          DBLAB_RESULTS_DIR: resultsDir,
          DBLAB_IN_KERNEL: "1",
          DBLAB_PROGRESS_FILE: progressFile,
          [OWN_TREE_ROOT_ENV]: String(process.pid),
          ...(resume ? { [RESUME_ENV]: resume.runId } : {}),
          ...(reopen ? { [REOPEN_ENV]: reopen.runId } : {}),
        },
        onEvent: (e) => {
          if (e.event === "kernel" && !tty) console.log(`[${name}] kernel ready in ${e.seconds.toFixed(1)} s`);
          if (e.event !== "cell") return;
          if (e.count !== cellCount) {
            cellCount = e.count;
            bar?.setTotal(e.count);
          }
          if (e.phase === "end") bar?.update(e.index + 1, { detail });
          else if (!tty) console.log(`[${name}] cell ${e.index + 1}/${e.count}`);
        },
      });
    } catch (e) {
      record.skipped = `could not run: ${(e as Error).message}`;
    } finally {
      clearInterval(poll);
      bar?.stop();
      current = undefined;
    }
    const res = record.result;
    if (res) copyLatest(res, reportsDir);
    if (resume) for (const line of resumeOutcome(resume).lines) console.log(line);
    // A reopened run was measured before: no resume hint, no notes of its own again, no time account of this wall.
    record.resumeWith = reopen ? undefined : resumeHintOf(resultsDir, runId, record.planned);
    const stored = reopen ? undefined : runFor(resultsDir, runId, record.planned);
    for (const line of noteLines(stored)) console.log(`[${name}]${line}`);
    if (res && stored && stored.state !== "removed") {
      record.quietness = stored.metadata?.quietness;
      record.time = accountTime(
        stored.trials as unknown as Record<string, unknown>[],
        notebookStarted,
        res.durationMs / 1000,
        res.kernelStartMs === null ? null : res.kernelStartMs / 1000,
        etas.get(name) ?? null,
        res.cellTimes.map((c) => ({
          ordinal: c.ordinal,
          head: c.head,
          from: c.startMs / 1000,
          to: c.endMs === null ? null : c.endMs / 1000,
        })),
      );
      try {
        writeTimeAccount(stored.directory, record.time);
      } catch (e) {
        console.error(`[${name}] its time account was not written: ${(e as Error).message}`);
      }
    }
    if (res && res.status !== "ok") {
      const why = res.failure ? describeFailure(res.failure) : res.message;
      console.error(`✗ ${name} ${res.status}: ${why}`);
      if (record.resumeWith) console.error(`  ${record.resumeWith}`);
      console.error(`  report: ${res.outputHtml ?? res.outputIpynb}\n  log: ${res.logFile}`);
    } else if (res) {
      console.log(`✓ ${name} in ${spent(res.durationMs)} → ${res.outputHtml}`);
      if (opts.pdf && res.outputHtml) {
        try {
          const pdf = await reportToPdf(res.outputHtml);
          console.log(`  PDF: ${pdf.pdf} (${pdf.drawn} of ${pdf.charts} charts drawn)`);
        } catch (e) {
          record.skipped = `the PDF failed: ${(e as Error).message}`;
          console.error(`✗ ${name}: ${record.skipped}`);
        }
      }
    } else {
      console.error(`✗ ${name}: ${record.skipped}`);
      if (record.resumeWith) console.error(`  ${record.resumeWith}`);
    }
  }

  const meta: RunMeta = { runId, profile: runProfile, started, sets: opts.sets };
  writeTurnaround(path.join(runReports, "run.json"), records, meta);
  fs.copyFileSync(path.join(runReports, "run.json"), path.join(reportsDir, "run.json"));
  const index = writeRunIndex(reportsDir, resultsDir);
  printSummary(records, commandStarted);
  console.log(`\nIndex: ${index}`);

  if (stopSignal) {
    for (const r of records) if (r.resumeWith) console.error(`  ${r.planned.name}: ${r.resumeWith}`);
    return 128 + (os.constants.signals[stopSignal] ?? 0);
  }
  const failed = records.filter((r) => r.skipped || r.result?.status !== "ok");
  if (failed.length) {
    console.error(`\n${failed.length} notebook(s) failed:`);
    for (const r of failed) console.error(`  ${r.planned.name}: ${problemOf(r)}`);
    return 1;
  }
  return 0;
}

if (require.main === module) {
  main().then(
    (code) => process.exit(code),
    (e: unknown) => {
      console.error(e);
      process.exit(1);
    },
  );
}

/**
 * `npm run reproduce -- --resume <run>`: which stored run, with which notebook, profile and
 * parameters, and afterwards what the resume skipped and what it ran. The kernel is told the run
 * id in DBLAB_RESUME_ID (lib/results/run-store.ts opens that run instead of a new one), and the
 * notebook gets the run's recorded parameters as its overrides, so its cells run unchanged.
 */
import { isDeepStrictEqual } from "node:util";
import path from "node:path";
import { findExperiment } from "../lib/experiments/registry";
import type { RegisteredExperiment } from "../lib/experiments/contract";
import { checkProfile, type ProfileName } from "../lib/params/profiles";
import { CompareInputError, listRuns, readRun, resolveRun, type StoredRun } from "../lib/results/stored-runs";
import { RESUME_ENV } from "../lib/results/run-store";
import { UsageError } from "./cli-args";

export { RESUME_ENV };

export interface ResumePlan {
  readonly runId: string;
  readonly directory: string;
  /** The run's state when the resume began ("stopped: …", "finished …"). */
  readonly stateBefore: string;
  /** Keys of the trials that had finished (status ok) before this resume: skipped by it. */
  readonly finishedBefore: ReadonlySet<string>;
  /** How many records trials.jsonl held before: the ones after them are this resume's. */
  readonly recordsBefore: number;
}

export interface ResolvedResume {
  readonly entry: RegisteredExperiment;
  readonly profile: ProfileName;
  /** The recorded parameters, given to the notebook as its overrides. */
  readonly overrides: Record<string, unknown>;
  readonly resume: ResumePlan;
}

/** The command that continues a stored run, as error messages and the summary print it. */
export function resumeCommand(runId: string): string {
  return `npm run reproduce -- --resume ${runId}`;
}

/** `last`: the newest stored run that can be resumed (not removed, parameters on disk). */
function lastRun(root: string): StoredRun {
  const run = listRuns(root).find((r) => r.state !== "removed" && r.params !== undefined);
  if (!run) throw new UsageError(`--resume last: no run with recorded parameters in ${root}`);
  return run;
}

const normal = (v: unknown): unknown => JSON.parse(JSON.stringify(v)) as unknown;

/** Top-level keys whose values differ between two parameter objects. */
function differingKeys(a: Record<string, unknown>, b: Record<string, unknown>): string[] {
  const keys = [...new Set([...Object.keys(a), ...Object.keys(b)])];
  return keys.filter((k) => !isDeepStrictEqual(normal(a[k]), normal(b[k]))).sort();
}

const shown = (v: unknown): string => (v === undefined ? "(none)" : JSON.stringify(v));

/**
 * The stored run `ref` names, checked before anything starts: its notebook exists, it is not still
 * running, its recorded parameters still resolve to themselves, and `--set`, `--profile` and
 * `--only` (when given) do not change them. Every refusal is a UsageError naming the run.
 */
export function resolveResume(
  ref: string,
  given: {
    readonly profile?: ProfileName;
    readonly only: readonly string[];
    readonly sets: Readonly<Record<string, unknown>>;
  },
  root: string,
): ResolvedResume {
  let run: StoredRun;
  try {
    run = ref === "last" ? lastRun(root) : resolveRun(ref, root);
  } catch (e) {
    if (e instanceof CompareInputError) throw new UsageError(`--resume: ${e.message}`);
    throw e;
  }
  const name = `run ${run.id}`;
  if (run.state === "removed") throw new UsageError(`cannot resume ${name}: ${run.stateWhy}`);
  if (run.metadata?.outcome === "refused")
    throw new UsageError(
      `cannot resume ${name}: its input was refused (${run.stateWhy}), and the same input fails the same way; fix it and start a new run`,
    );
  if (run.state === "in progress")
    throw new UsageError(`cannot resume ${name}: it is still in progress (${run.stateWhy}); stop it first`);
  const stored = run.params;
  if (!stored) throw new UsageError(`cannot resume ${name}: it has no readable params.json in ${run.directory}`);
  let entry: RegisteredExperiment;
  try {
    entry = findExperiment(run.notebookId);
  } catch (e) {
    throw new UsageError(`cannot resume ${name}: its notebook "${run.notebook}" is unknown (${(e as Error).message})`);
  }
  for (const id of given.only) {
    let other: RegisteredExperiment;
    try {
      other = findExperiment(id);
    } catch (e) {
      throw new UsageError((e as Error).message);
    }
    if (other !== entry) throw new UsageError(`--only ${id} with --resume: ${name} is of notebook ${entry.id}`);
  }
  const recorded = run.metadata?.profile;
  let profile: ProfileName;
  try {
    profile = checkProfile(recorded ?? given.profile ?? "");
  } catch {
    throw new UsageError(
      `cannot resume ${name}: it recorded no profile${recorded ? ` it knows ("${recorded}")` : ""}; give --profile`,
    );
  }
  if (given.profile !== undefined && given.profile !== profile) {
    throw new UsageError(
      `--profile ${given.profile} with --resume: ${name} ran with profile ${profile}, and a resumed run keeps its parameters`,
    );
  }
  const resolve = (overrides: Record<string, unknown>, what: string): Record<string, unknown> => {
    try {
      return normal(entry.resolve(profile, overrides)) as Record<string, unknown>;
    } catch (e) {
      throw new UsageError(`${what}: ${(e as Error).message}`);
    }
  };
  const again = resolve({ ...stored }, `cannot resume ${name}`);
  const drift = differingKeys(again, stored);
  if (drift.length) {
    throw new UsageError(
      `cannot resume ${name}: its recorded parameters no longer resolve to themselves in this version ` +
        `(${drift.map((k) => `${k}: recorded ${shown(stored[k])}, now ${shown(again[k])}`).join("; ")}); start a new run`,
    );
  }
  const changed = differingKeys(resolve({ ...stored, ...given.sets }, `--set with --resume ${run.id}`), stored);
  if (changed.length) {
    throw new UsageError(
      `--set changes the parameters of ${name} (` +
        changed.map((k) => `${k}: recorded ${shown(stored[k])}, given ${shown(given.sets[k])}`).join("; ") +
        "): a resumed run keeps its parameters (mixed ones would make its numbers meaningless); start a new run instead",
    );
  }
  const finishedBefore = new Set(run.trials.filter((t) => t.status === "ok").map((t) => t.key));
  return {
    entry,
    profile,
    overrides: { ...stored },
    resume: {
      runId: run.id,
      directory: run.directory,
      stateBefore: run.state === "finished" ? run.stateWhy : `${run.state}: ${run.stateWhy}`,
      finishedBefore,
      recordsBefore: run.trials.length,
    },
  };
}

/** What a resume skipped and what it ran, from trials.jsonl after it; `repeated` should be empty. */
export interface ResumeOutcome {
  readonly skipped: number;
  readonly ran: readonly { readonly key: string; readonly status: string }[];
  /** Keys finished before the resume that it ran (and finished) again. */
  readonly repeated: readonly string[];
  readonly lines: readonly string[];
}

export function resumeOutcome(plan: ResumePlan): ResumeOutcome {
  const after = readRun(plan.directory).trials;
  const ran = after.slice(plan.recordsBefore).map((t) => ({ key: t.key, status: t.status }));
  const repeated = [
    ...new Set(ran.filter((t) => t.status === "ok" && plan.finishedBefore.has(t.key)).map((t) => t.key)),
  ];
  const ok = ran.filter((t) => t.status === "ok").length;
  const list = (keys: readonly string[]) => (keys.length > 8 ? `${keys.slice(0, 8).join(", ")}, …` : keys.join(", "));
  const lines = [
    `resume of ${plan.runId} (${plan.stateBefore}):`,
    `  skipped ${plan.finishedBefore.size} finished trial(s)${plan.finishedBefore.size ? `: ${list([...plan.finishedBefore])}` : ""}`,
    `  ran ${ran.length} trial(s) (${ok} ok, ${ran.length - ok} failed)${ran.length ? `: ${list(ran.map((t) => t.key))}` : ""}`,
    ...(repeated.length ? [`  ran again, though finished before: ${list(repeated)}`] : []),
  ];
  return { skipped: plan.finishedBefore.size, ran, repeated, lines };
}

/**
 * The stored run a notebook of this `npm run reproduce` made (ids are `<DBLAB_RUN_ID>_<notebook>_<hex>`,
 * lib/results/run-store.ts), or undefined when it made none (it failed before its servers started).
 */
export function runOf(resultsDir: string, reproduceRunId: string, notebook: string): StoredRun | undefined {
  const prefix = `${reproduceRunId}_${notebook}_`;
  return listRuns(resultsDir).find((r) => r.id.startsWith(prefix) && r.params !== undefined);
}

/** At most this many of a run's notes are said in the terminal; the report has them all. */
export const NOTES_SHOWN = 8;

/**
 * A run's notes (leftovers of dead runs dropped from its server, windows whose WAL figures were
 * left out, a restart that failed …) as lines for the terminal: a headless run says them too,
 * not only its notebook and report.
 */
export function noteLines(run: StoredRun | undefined): string[] {
  const notes = run?.metadata?.notes ?? [];
  const lines = notes.slice(0, NOTES_SHOWN).map((n) => `  note: ${n}`);
  if (notes.length > NOTES_SHOWN) lines.push(`  … and ${notes.length - NOTES_SHOWN} more note(s) in the report`);
  return lines;
}

/** One line for a failed or interrupted notebook: what its run kept and the command that resumes it. */
export function resumeLine(run: StoredRun): string {
  const ok = run.trials.filter((t) => t.status === "ok").length;
  // Relative only below the working folder: "../../tmp/…" is harder to read than the path itself.
  const relative = path.relative(process.cwd(), run.directory);
  const where = relative && !relative.startsWith("..") ? relative : run.directory;
  return `${ok} finished trial(s) kept in ${where}; resume with: ${resumeCommand(run.id)}`;
}

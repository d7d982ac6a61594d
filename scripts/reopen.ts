/**
 * `npm run reproduce -- --reopen <run>`: which finished stored run to show again, with which notebook, profile and
 * parameters. The kernel is told the run id in DBLAB_REOPEN_ID (lib/experiments/define.ts: the notebook's run()
 * opens that run instead of measuring), and the notebook gets the run's recorded parameters as its overrides, so
 * its cells run unchanged and its parameters cell shows what the run ran with.
 */
import { findExperiment } from "../lib/experiments/registry";
import type { RegisteredExperiment } from "../lib/experiments/contract";
import { EXTRAS_FILE, unopenable } from "../lib/experiments/define";
import { checkProfile, type ProfileName } from "../lib/params/profiles";
import { CompareInputError, listRuns, resolveRun, type StoredRun } from "../lib/results/stored-runs";
import { errorMessage } from "../lib/runtime/error-message";
import { UsageError } from "./cli-args";
import { resumeCommand } from "./resume";

export interface ReopenPlan {
  readonly runId: string;
  /** What the ETA lines say instead of an estimate: which run, measured when. */
  readonly text: string;
}

export interface ResolvedReopen {
  readonly entry: RegisteredExperiment;
  readonly profile: ProfileName;
  /** The recorded parameters, given to the notebook as its overrides. */
  readonly overrides: Record<string, unknown>;
  readonly reopen: ReopenPlan;
}

/**
 * The stored run `ref` names ("last": the newest that can be shown), checked before anything starts: it finished,
 * it kept what its workload returned (extras.json), its notebook exists and `--only` (when given) is that notebook,
 * and its recorded parameters still resolve. Every refusal is a UsageError naming the run.
 */
export function resolveReopen(ref: string, only: readonly string[], root: string): ResolvedReopen {
  let run: StoredRun;
  try {
    run = ref === "last" ? lastOpenable(root) : resolveRun(ref, root);
  } catch (e) {
    if (e instanceof CompareInputError) throw new UsageError(`--reopen: ${e.message}`);
    throw e;
  }
  const name = `run ${run.id}`;
  const refused = unopenable(run);
  if (refused && !refused.finished) {
    const resume = run.state === "stopped" ? `; ${resumeCommand(run.id)} continues it` : "";
    throw new UsageError(`cannot reopen ${name}: it did not finish (${run.state}: ${run.stateWhy})${resume}`);
  }
  if (refused)
    throw new UsageError(
      `cannot reopen ${name}: it has no ${EXTRAS_FILE} (stored before runs kept one); ` +
        `lab.frame("${run.id}") in a notebook reads its trials`,
    );
  let entry: RegisteredExperiment;
  try {
    entry = findExperiment(run.notebookId);
  } catch (e) {
    throw new UsageError(`cannot reopen ${name}: its notebook "${run.notebook}" is unknown (${errorMessage(e)})`);
  }
  for (const id of only) {
    let other: RegisteredExperiment;
    try {
      other = findExperiment(id);
    } catch (e) {
      throw new UsageError(errorMessage(e));
    }
    if (other !== entry) throw new UsageError(`--only ${id} with --reopen: ${name} is of notebook ${entry.id}`);
  }
  // Its parameters hold every key, so the profile only names where they started from.
  const recorded = run.metadata?.profile ?? "";
  let profile: ProfileName = "default";
  try {
    profile = checkProfile(recorded);
  } catch {
    // A run of a notebook's own cell ("custom"): its parameters say it all.
  }
  const overrides = { ...run.params };
  try {
    entry.resolve(profile, overrides);
  } catch (e) {
    throw new UsageError(
      `cannot reopen ${name}: its recorded parameters no longer resolve in this version (${errorMessage(e)})`,
    );
  }
  const text = `run ${run.id}, measured ${run.startedAt ?? "on an earlier day"} (profile ${recorded || "unknown"})`;
  return { entry, profile, overrides, reopen: { runId: run.id, text } };
}

/** `last`: the newest stored run that can be shown again. */
function lastOpenable(root: string): StoredRun {
  const run = listRuns(root).find((r) => !unopenable(r));
  if (!run) throw new UsageError(`--reopen last: no finished run with ${EXTRAS_FILE} in ${root}`);
  return run;
}

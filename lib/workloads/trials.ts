/** The one loop every notebook's trials run in (`runTrials`): resume, watchdog, failure record, store and progress. */
import type { FailedTrial, RunStore, TrialRecord } from "../results/run-store";
import type { Engine } from "../targets/types";
import { ignored } from "../runtime/debug";
import { TrialFailedError } from "./failures";
import { trialBoundMs, watchTrial } from "./watchdog";
import { withTrialOutput } from "./raw-output";
import { withTimeout } from "../runtime/timeout";

export { TrialFailedError } from "./failures";

/** The key a resume skips by, and what a failure record repeats. */
export interface PlannedTrial<C extends object> {
  readonly key: string;
  readonly condition: C;
  readonly repeat: number;
  readonly position?: number;
}

/** A planned trial whose place in its round's order is part of the design. */
export interface OrderedTrial<C extends object> extends PlannedTrial<C> {
  readonly position: number;
}

export interface TrialWatch {
  readonly engine: Engine;
  /** For the stall message and progress line, e.g. "CREATE INDEX, trial 1e5/random/r1". */
  readonly what: string;
  /** Trials whose durations set each other's stall bound (default: `what`). */
  readonly group?: string;
}

/** A progress event: at the start (no `last`) and after every trial (ok or failed). */
export interface TrialProgress<P, T> {
  readonly done: number;
  readonly total: number;
  readonly skipped: number;
  readonly last?: T;
  readonly next?: P;
}

export interface RunTrialsOptions<C extends object, P extends PlannedTrial<C>, T extends TrialRecord<C, string>> {
  readonly store: Pick<RunStore<C>, "finishedKeys" | "append"> & { readonly directory?: string };
  readonly watch: (planned: P) => TrialWatch;
  readonly signal?: AbortSignal;
  readonly continueOnError?: boolean;
  /** After a failed trial is recorded (drop a dead connection …); its own failure never hides the trial's. */
  readonly afterFailure?: (planned: P, error: unknown) => Promise<void>;
  readonly onProgress?: (progress: TrialProgress<P, T>) => void;
}

/**
 * Runs `plan` in order under the stall watchdog and returns the records of the trials it ran
 * (resume, failure record, interrupt: the contract in docs/architecture.md, "The trial loop").
 */
export async function runTrials<C extends object, P extends PlannedTrial<C>, T extends TrialRecord<C, string>>(
  plan: readonly P[],
  runOne: (planned: P) => Promise<T>,
  options: RunTrialsOptions<C, P, T>,
): Promise<T[]> {
  const finished = options.store.finishedKeys();
  const todo = plan.filter((p) => !finished.has(p.key));
  const skipped = plan.length - todo.length;
  const results: T[] = [];
  let done = skipped;
  const report = (last: T | undefined, next: P | undefined) =>
    options.onProgress?.({ done, total: plan.length, skipped, last, next });
  report(undefined, todo[0]);
  for (const [i, planned] of todo.entries()) {
    options.signal?.throwIfAborted();
    const startedAt = new Date().toISOString();
    const { engine, what, group } = options.watch(planned);
    let record: T;
    try {
      record = await watchTrial(
        engine,
        what,
        () => withTrialOutput(options.store.directory, planned.key, () => runOne(planned)),
        group,
      );
      options.store.append(record);
    } catch (error) {
      if (options.signal?.aborted) throw error;
      const failed = failedRecord(planned, error, startedAt);
      options.store.append(failed);
      if (options.afterFailure) {
        // Bounded: the server's host may no longer answer.
        const bound = trialBoundMs(group ?? what);
        await withTimeout(
          options.afterFailure(planned, error),
          bound,
          `the cleanup after ${planned.key} did not end within ${bound} ms`,
        ).catch(ignored(`trials: clean up after ${planned.key} failed`));
      }
      if (!options.continueOnError) throw new TrialFailedError(failed, { cause: error });
      record = failed as unknown as T;
    }
    results.push(record);
    done++;
    report(record, todo[i + 1]);
  }
  return results;
}

function failedRecord<C extends object>(
  planned: PlannedTrial<C>,
  error: unknown,
  startedAt: string,
): FailedTrial<C, string> {
  return {
    key: planned.key,
    condition: planned.condition,
    repeat: planned.repeat,
    ...(planned.position !== undefined ? { position: planned.position } : {}),
    status: "failed",
    error: error instanceof Error ? error.message : String(error),
    startedAt,
    finishedAt: new Date().toISOString(),
  };
}

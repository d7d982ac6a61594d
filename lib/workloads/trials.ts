/**
 * The one loop every notebook's trials run in: `runTrials(plan, runOne, options)`. A workload
 * supplies the plan and `runOne` (one trial, start to record); resume, the stall watchdog, the
 * failure record, the store and progress are here, the same for every notebook.
 */
import type { FailedTrial, RunStore, TrialRecord } from "../results/run-store";
import type { Engine } from "../targets/types";
import { ignored } from "../runtime/debug";
import { TrialFailedError } from "./failures";
import { trialBoundMs, watchTrial } from "./watchdog";
import { withTrialOutput } from "./raw-output";
import { withTimeout } from "../runtime/timeout";

export { TrialFailedError } from "./failures";

/** What a plan's entries carry: the key a resume skips by, and what a failure record repeats. */
export interface PlannedTrial<C extends object> {
  readonly key: string;
  readonly condition: C;
  readonly repeat: number;
  /** Place in the run's order, from 0 (recorded as `position`). */
  readonly position?: number;
}

/** A planned trial whose place in its round's order is part of the design (recorded in the trial). */
export interface OrderedTrial<C extends object> extends PlannedTrial<C> {
  readonly position: number;
}

/** Where a trial is watched: the engine whose server it runs on, what it is doing, the group its bound scales with. */
export interface TrialWatch {
  readonly engine: Engine;
  /** Words for the stall message and the progress line, e.g. "CREATE INDEX, trial 1e5/random/r1". */
  readonly what: string;
  /** Trials whose durations set each other's stall bound (default: `what`). */
  readonly group?: string;
}

/** A progress event: at the start (no `last`) and after every trial (ok or failed). */
export interface TrialProgress<P, T> {
  /** Trials of the plan finished, those a resumed run skipped included. */
  readonly done: number;
  readonly total: number;
  /** Of `done`, those already on disk when the loop started (a resume). */
  readonly skipped: number;
  readonly last?: T;
  readonly next?: P;
}

export interface RunTrialsOptions<C extends object, P extends PlannedTrial<C>, T extends TrialRecord<C, string>> {
  /** `directory`, when given, is where each trial's raw tool output goes (`raw-output.ts`). */
  readonly store: Pick<RunStore<C>, "finishedKeys" | "append"> & { readonly directory?: string };
  /** How each trial is watched (see TrialWatch). */
  readonly watch: (planned: P) => TrialWatch;
  readonly signal?: AbortSignal;
  /** Go on with the next trial after one that threw, instead of ending the run with its TrialFailedError. */
  readonly continueOnError?: boolean;
  /**
   * After a trial threw and its failure was recorded, before the next (drop a dead connection,
   * roll back a transaction). Its own failure is ignored (logged with DBLAB_DEBUG=1): it must never
   * hide the trial's cause.
   */
  readonly afterFailure?: (planned: P, error: unknown) => Promise<void>;
  readonly onProgress?: (progress: TrialProgress<P, T>) => void;
}

/**
 * Runs `plan` in order, one `runOne(planned)` at a time, and returns the records of the trials it
 * ran (not those it skipped). The contract, for every notebook:
 * - **resume**: a trial whose key the store already holds as `ok` is skipped (counted in `done`);
 * - **watchdog**: each `runOne` runs under the session's stall watchdog (`options.watch` names the
 *   server); a stalled server is killed and the trial rejects with a StallError;
 * - **a returned record** (ok, or failed by the workload's own judgement, e.g. aborted pgbench
 *   clients) is appended to the store — written and fsync'd before the next trial starts — and
 *   the loop goes on;
 * - **a thrown error** is recorded as a `failed` trial (its message, redacted, in `error`), then
 *   `afterFailure` runs (for at most the trial's stall bound), then the loop ends with
 *   `new TrialFailedError(record, { cause })` — the cause unchanged, its kind in `.failure` —
 *   unless `continueOnError`;
 * - **an interrupt** (`signal` aborted) is checked before each trial; a trial that throws after
 *   it is not recorded, and the error goes up as it is (the session turns it into InterruptedError);
 * - **progress**: `onProgress` once at the start and after every trial that ended.
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
        // Bounded by the trial's stall bound: the cleanup talks to a server that may be on a host
        // that no longer answers (a connection's goodbye there waited ~15 min for TCP to give up).
        const bound = trialBoundMs(group ?? what);
        await withTimeout(
          options.afterFailure(planned, error),
          bound,
          `the cleanup after ${planned.key} did not end within ${bound} ms`,
        ).catch(ignored(`trials: clean up after ${planned.key} failed`));
      }
      if (!options.continueOnError) throw new TrialFailedError(failed, { cause: error });
      // The workload's own fields are all optional on a failed record: it is a T without them.
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

/** The one loop every notebook's trials run in: resume, watchdog, failure record, store and progress. */
import type { FailedTrial, RunStore, TrialRecord } from "../results/run-store";
import type { Engine, StartedServer } from "../targets/types";
import type { PgbenchRunner } from "./pgbench";
import { ignored } from "../runtime/debug";
import { TrialFailedError } from "./failures";
import { trialBoundMs, watchTrial } from "./watchdog";
import { withTrialOutput } from "./raw-output";
import { withTimeout } from "../runtime/timeout";
import { orderSeed, seededShuffle } from "../stats/order";
import { errorMessage } from "../runtime/error-message";

export { TrialFailedError } from "./failures";

export interface PlannedTrial<C extends object> {
  readonly key: string;
  readonly condition: C;
  readonly repeat: number;
  readonly position?: number;
}

export interface OrderedTrial<C extends object> extends PlannedTrial<C> {
  readonly position: number;
}

/** Every condition once a round, each round in an order of its own from the run's seed, so drift lands on all alike. */
export function shuffledRounds<C extends object>(
  conditions: readonly C[],
  repeats: number,
  seed: number,
  keyOf: (c: C) => string,
): OrderedTrial<C>[] {
  const plan: OrderedTrial<C>[] = [];
  for (let repeat = 1; repeat <= repeats; repeat++)
    for (const condition of seededShuffle(conditions, orderSeed(seed, repeat)))
      plan.push({ key: `${keyOf(condition)}/r${repeat}`, condition, repeat, position: plan.length });
  return plan;
}

/** What every finished trial's record starts with: its plan entry, status ok, seconds summed from its timed units. */
export const okTrial = <C extends object>(planned: OrderedTrial<C>, unitMs: readonly number[]) => ({
  key: planned.key,
  condition: planned.condition,
  repeat: planned.repeat,
  position: planned.position,
  status: "ok" as const,
  seconds: unitMs.reduce((a, b) => a + b, 0) / 1000,
});

export interface TrialWatch {
  readonly engine: Engine;
  /** e.g. "CREATE INDEX, trial 1e5/random/r1". */
  readonly what: string;
  /** Default: `what`. */
  readonly group?: string;
}

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
  /** Its own failure never hides the trial's. */
  readonly afterFailure?: (planned: P, error: unknown) => Promise<void>;
  readonly onProgress?: (progress: TrialProgress<P, T>) => void;
}

/** The contract: docs/architecture.md, "The trial loop". */
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

/**
 * Each trial's successor among those not on disk when asked (a resumed run skips those), for work set up ahead;
 * undefined for the last and for a trial outside the plan. Ask before runTrials appends any.
 */
export function nextNotOnDisk<P extends { readonly key: string }>(
  plan: readonly P[],
  store: { finishedKeys(): ReadonlySet<string> },
): (planned: P) => P | undefined {
  const finished = store.finishedKeys();
  const todo = plan.filter((p) => !finished.has(p.key));
  return (planned) => {
    const i = todo.findIndex((p) => p.key === planned.key);
    return i < 0 ? undefined : todo[i + 1];
  };
}

/** What a run's trials share (a connection, a table handle); its connection may die with a trial. */
export interface TrialAdapter {
  close(): Promise<void>;
}

export interface RunTrialsOnOptions<
  A extends TrialAdapter,
  C extends object,
  P extends PlannedTrial<C>,
  T extends TrialRecord<C, string>,
> extends RunTrialsOptions<C, P, T> {
  /** After the last trial, on success, on the open adapter (e.g. drop the work table). */
  readonly beforeClose?: (adapter: A) => Promise<void>;
}

/** What a notebook's pgbench trials run with; the notebook adds its progress hooks. */
export interface PgbenchPlanOptions<C extends object, P extends PlannedTrial<C>, S> {
  readonly server: StartedServer;
  readonly runner: PgbenchRunner;
  readonly plan: readonly P[];
  readonly settings: S;
  readonly store: RunStore<C>;
  readonly signal?: AbortSignal;
  /** Notes worth showing (e.g. the target cannot restart). */
  readonly onNote?: (note: string) => void;
}

/** What a notebook hands its run of a plan on one adapter; the notebook adds its trials' settings and the watch. */
export interface PlanOnOptions<
  A extends TrialAdapter,
  C extends object,
  P extends PlannedTrial<C>,
  T extends TrialRecord<C, string>,
> extends Pick<RunTrialsOptions<C, P, T>, "store" | "signal" | "continueOnError" | "onProgress"> {
  readonly plan: readonly P[];
  readonly open: () => Promise<A>;
}

/**
 * runTrials on one adapter: opened on first use, closed and reopened after a failed trial (its
 * connection may be dead), closed when the run ends, on error too.
 */
export async function runTrialsOn<
  A extends TrialAdapter,
  C extends object,
  P extends PlannedTrial<C>,
  T extends TrialRecord<C, string>,
>(
  open: () => Promise<A>,
  plan: readonly P[],
  runOne: (adapter: A, planned: P) => Promise<T>,
  options: RunTrialsOnOptions<A, C, P, T>,
): Promise<T[]> {
  let adapter: A | undefined;
  try {
    const results = await runTrials(plan, async (planned) => runOne((adapter ??= await open()), planned), {
      ...options,
      afterFailure: async (planned, error) => {
        const dead = adapter;
        adapter = undefined;
        try {
          await dead?.close();
        } finally {
          await options.afterFailure?.(planned, error);
        }
      },
    });
    if (adapter && options.beforeClose) await options.beforeClose(adapter);
    return results;
  } finally {
    await adapter?.close().catch(ignored("trials: close the trials' adapter"));
  }
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
    error: errorMessage(error),
    startedAt,
    finishedAt: new Date().toISOString(),
  };
}

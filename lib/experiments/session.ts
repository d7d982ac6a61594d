/**
 * What every experiment run does around its own work: reap what dead runs left, open the results
 * store, show progress, start the servers, record metadata, listen for interrupts — and stop the
 * servers afterwards, whatever happens.
 */
import { progressReporter, type ProgressReporter } from "../display/progress";
import { gitCommit, hostInfo, type RunMetadata } from "../results/metadata";
import { RunStore } from "../results/run-store";
import { endInterruptible, InterruptedError, interruptSignal } from "../runtime/interrupt";
import { reapOrphans } from "../runtime/reaper";
import type { TargetChoice } from "../targets/select";
import type { Engine, ServerSpec } from "../targets/types";
import { startServers, type StartedServers } from "./servers";

export interface RunControl {
  /** Resume this run id: finished trials are skipped; parameters must match. */
  readonly resumeId?: string;
  readonly profile?: string;
  /** Defaults to a signal aborted by the next SIGINT (a Jupyter interrupt). */
  readonly signal?: AbortSignal;
  /** Go on after a failed trial instead of stopping the run. */
  readonly continueOnError?: boolean;
}

export interface SessionOptions {
  /** Folder-style name, e.g. "03-over-indexing". */
  readonly notebook: string;
  /** Title of the live progress bar. */
  readonly title: string;
  readonly params: object;
  readonly control: RunControl;
  readonly specs: readonly ServerSpec[];
  readonly target: TargetChoice;
  readonly cpus: number;
  readonly memoryGiB: number;
  /** Engines whose absence is reported rather than fatal. */
  readonly optional?: readonly Engine[];
}

export interface ExperimentSession<C extends object> {
  readonly store: RunStore<C>;
  readonly progress: ProgressReporter;
  readonly servers: StartedServers;
  readonly signal: AbortSignal;
  /** Notes for the report; push to it, it is part of `metadata`. */
  readonly notes: string[];
  readonly metadata: RunMetadata;
  /** Writes metadata.json (again), with experiment-specific extras. */
  writeMetadata(extra?: object): void;
}

/** What a Stop leaves, for the cell: how many trials are on disk, where, and how to go on. */
export function interruptedMessage(store: { readonly runId: string; readonly directory: string; trials(): readonly unknown[] }, planned: number): string {
  const kept = store.trials().length;
  const of = planned > 0 ? ` of ${planned}` : "";
  return `interrupted: ${kept}${of} trials kept in ${store.directory}; its servers were stopped. ` +
    `Resume with the same parameters and { resumeId: "${store.runId}" } in the run's options.`;
}

export async function withSession<C extends object, T>(options: SessionOptions, work: (session: ExperimentSession<C>) => Promise<T>): Promise<T> {
  const own = options.control.signal === undefined;
  const signal = options.control.signal ?? interruptSignal();
  try {
    return await runSession(options, signal, work);
  } finally {
    if (own) endInterruptible(signal);
  }
}

async function runSession<C extends object, T>(options: SessionOptions, signal: AbortSignal, work: (session: ExperimentSession<C>) => Promise<T>): Promise<T> {
  const reaped = await reapOrphans();
  const store = RunStore.open<C>({ notebook: options.notebook, params: options.params, resumeId: options.control.resumeId });
  const reporter = progressReporter(options.title);
  let planned = 0;
  const progress: ProgressReporter = {
    update: (done, total, message) => {
      if (total > 1) planned = total;
      reporter.update(done, total, message);
    },
    finish: (message) => reporter.finish(message),
  };
  progress.update(0, 1, "starting servers…");
  const servers = await startServers(options.specs, {
    target: options.target,
    cpus: options.cpus,
    memoryBytes: options.memoryGiB * 2 ** 30,
    optional: options.optional ?? [],
    onProgress: (m) => progress.update(0, 1, m),
  });
  try {
    const notes = [...servers.notes, ...(reaped.length ? [`removed ${reaped.length} resource(s) left by an earlier, dead run`] : [])];
    const metadata: RunMetadata = {
      runId: store.runId,
      notebook: options.notebook,
      profile: options.control.profile ?? "custom",
      startedAt: new Date().toISOString(),
      host: hostInfo(),
      gitCommit: gitCommit(),
      servers: [...servers.servers.values()].map((s) => s.description),
      params: options.params,
      unavailable: Object.fromEntries(servers.unavailable),
      notes,
    };
    store.writeMetadata(metadata);
    const result = await work({ store, progress, servers, signal, notes, metadata, writeMetadata: (extra) => store.writeMetadata({ ...metadata, ...extra }) });
    // Some plans just stop looping when aborted (04's runPlan): a Stop is still a Stop for the cell.
    signal.throwIfAborted();
    return result;
  } catch (error) {
    if (!signal.aborted) throw error;
    // Whatever the workload threw on its way out (an aborted pgbench, a cancelled statement), the
    // cause is the Stop: say so, and what was kept. The finally below has stopped the servers first.
    const message = interruptedMessage(store, planned);
    progress.finish(message);
    throw new InterruptedError(message);
  } finally {
    await servers.stopAll();
  }
}

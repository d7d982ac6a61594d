/**
 * What every experiment run does around its own work: reap what dead runs left, open the results
 * store, show progress, start the servers, record metadata, listen for interrupts — and stop the
 * servers afterwards, whatever happens.
 */
import { progressReporter, type ProgressReporter } from "../display/progress";
import { gitCommit, hostInfo, type RunMetadata } from "../results/metadata";
import { RunStore } from "../results/run-store";
import { interruptSignal } from "../runtime/interrupt";
import { reapOrphans } from "../runtime/reaper";
import type { TargetChoice } from "../targets/select";
import type { Engine, ServerSpec } from "../targets/types";
import { stallBoundFromEnv, TrialWatchdog, withWatchdog } from "../workloads/watchdog";
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

export async function withSession<C extends object, T>(options: SessionOptions, work: (session: ExperimentSession<C>) => Promise<T>): Promise<T> {
  const signal = options.control.signal ?? interruptSignal();
  stallBoundFromEnv(); // a bad DBLAB_STALL_SECONDS is refused before anything starts
  const reaped = await reapOrphans();
  const store = RunStore.open<C>({ notebook: options.notebook, params: options.params, resumeId: options.control.resumeId });
  const progress = lastLineKept(progressReporter(options.title));
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
    // Every trial below runs under the stall watchdog (lib/workloads/watchdog.ts), which says so in the progress line.
    const watchdog = new TrialWatchdog({ servers: servers.servers, say: (message) => progress.say(message) });
    return await withWatchdog(watchdog, () =>
      work({ store, progress, servers, signal, notes, metadata, writeMetadata: (extra) => store.writeMetadata({ ...metadata, ...extra }) }),
    );
  } finally {
    await servers.stopAll();
  }
}

/** A progress reporter that can also show a line (the watchdog's) at the last count it was given. */
function lastLineKept(inner: ProgressReporter): ProgressReporter & { say(message: string): void } {
  let done = 0;
  let total = 1;
  return {
    update(d, t, message) {
      [done, total] = [d, t];
      inner.update(d, t, message);
    },
    finish: (message) => inner.finish(message),
    say: (message) => inner.update(done, total, message),
  };
}

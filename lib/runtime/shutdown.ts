/**
 * One shutdown path for every target (signals, uncaught error, exit); the first `register()`
 * installs the hooks, so no target can forget them.
 */
import { abortRuns, inKernel, runsEnded } from "./interrupt";
import { ownRecords, unregister } from "./resource-registry";
import { releaseOwnResources, removeProcessResource, spawnDetachedReaper } from "./reaper";
import { errorMessage } from "./error-message";

let stopping: Promise<void> | undefined;

const inMemory = new Set<() => Promise<void>>();

/** Runs `stop` on the shutdown signals, for what the reaper cannot record (external credentials). */
export function onShutdown(stop: () => Promise<void>): () => void {
  installShutdownHooks();
  inMemory.add(stop);
  return () => inMemory.delete(stop);
}

/** Stops every registered resource; concurrent callers share one pass. */
export function shutdownAll(): Promise<void> {
  stopping ??= Promise.allSettled([...inMemory].map((stop) => stop()))
    .then(() => releaseOwnResources())
    .catch((error: unknown) => {
      process.stderr.write(`db-write-lab: shutdown failed: ${errorMessage(error)}\n`);
    })
    .finally(() => {
      stopping = undefined;
    });
  return stopping;
}

let hooksInstalled = false;
const RUNS_END_MS = 10_000;

/** On a plain exit containers are left to a detached reaper. */
export function installShutdownHooks(): void {
  if (hooksInstalled) return;
  hooksInstalled = true;
  let first: NodeJS.Signals | undefined;
  const onSignal = (sig: NodeJS.Signals): void => {
    // A second SIGTERM must not kill the cleanup mid-way.
    if (first) return;
    first = sig;
    // The signal is the cause: runs see it before their servers go.
    abortRuns(sig);
    // A SIGKILL may cut the cleanup short: a detached reaper finishes it.
    if (ownRecords().some((r) => r.resource.type === "docker-container")) spawnDetachedReaper();
    // Wait (bounded) for aborted runs, else a script exits before its catch runs.
    void shutdownAll()
      .then(() => runsEnded(RUNS_END_MS))
      .then(() => new Promise((resolve) => setImmediate(resolve)))
      .finally(() => process.exit(128 + (SIGNAL_NUMBERS[sig] ?? 15)));
  };
  // In a kernel SIGINT is the Stop button (runtime/interrupt).
  if (!inKernel()) process.on("SIGINT", onSignal);
  process.on("SIGTERM", onSignal);
  process.on("SIGHUP", onSignal);
  process.on("uncaughtExceptionMonitor", () => releaseProcessesSync());
  process.on("exit", () => {
    if (releaseProcessesSync() && !first) spawnDetachedReaper();
    // A signal's exit code is 128 + its number.
    if (first) process.exitCode = 128 + (SIGNAL_NUMBERS[first] ?? 15);
  });
}

const SIGNAL_NUMBERS: Partial<Record<NodeJS.Signals, number>> = { SIGHUP: 1, SIGINT: 2, SIGTERM: 15 };

/** True when containers remain for the reaper. */
function releaseProcessesSync(): boolean {
  let containersLeft = false;
  for (const record of ownRecords()) {
    if (record.resource.type === "process") {
      removeProcessResource(record.resource);
      unregister(record.id);
    } else if (record.resource.type === "docker-container") {
      containersLeft = true;
    }
  }
  return containersLeft;
}

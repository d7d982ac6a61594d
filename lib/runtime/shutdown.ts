/**
 * One shutdown path for every target: what this process registered is stopped the same way on
 * SIGTERM, SIGHUP, SIGINT (outside a kernel), an uncaught error or exit. The first `register()`
 * installs the hooks, so no target can forget them.
 */
import { abortRuns, inKernel, runsEnded } from "./interrupt";
import { ownRecords, unregister } from "./resource-registry";
import { releaseOwnResources, removeProcessResource, spawnDetachedReaper } from "./reaper";

let stopping: Promise<void> | undefined;

const inMemory = new Set<() => Promise<void>>();

/**
 * Runs `stop` on the same signals as the registered resources, for what cannot be recorded for the
 * reaper (an external server's credentials are never written down). Returns its remover.
 */
export function onShutdown(stop: () => Promise<void>): () => void {
  installShutdownHooks();
  inMemory.add(stop);
  return () => inMemory.delete(stop);
}

/** Stops every resource this process registered, each on its own; concurrent callers share one pass. */
export function shutdownAll(): Promise<void> {
  stopping ??= Promise.allSettled([...inMemory].map((stop) => stop()))
    .then(() => releaseOwnResources())
    .catch((error: unknown) => {
      process.stderr.write(
        `db-write-lab: shutdown failed: ${error instanceof Error ? error.message : String(error)}\n`,
      );
    })
    .finally(() => {
      stopping = undefined;
    });
  return stopping;
}

let hooksInstalled = false;
/** How long a signal's exit waits, after the servers are stopped, for the aborted runs to end. */
const RUNS_END_MS = 10_000;

/** Installs the release handlers; on a plain exit containers are left to a detached reaper. */
export function installShutdownHooks(): void {
  if (hooksInstalled) return;
  hooksInstalled = true;
  let first: NodeJS.Signals | undefined;
  const onSignal = (sig: NodeJS.Signals): void => {
    // Later signals wait for the same cleanup (a second SIGTERM must not kill it mid-way).
    if (first) return;
    first = sig;
    // The signal is the cause: runs see it before their servers go.
    abortRuns(sig);
    // A SIGKILL may cut the cleanup short: a detached reaper, started first, finishes it.
    if (ownRecords().some((r) => r.resource.type === "docker-container")) spawnDetachedReaper();
    // Wait (bounded) for the aborted runs to say what they kept, else a script exits before its catch runs.
    void shutdownAll()
      .then(() => runsEnded(RUNS_END_MS))
      .then(() => new Promise((resolve) => setImmediate(resolve)))
      .finally(() => process.exit(128 + (SIGNAL_NUMBERS[sig] ?? 15)));
  };
  // In a kernel SIGINT is the Stop button (runtime/interrupt): only scripts own SIGINT here.
  if (!inKernel()) process.on("SIGINT", onSignal);
  process.on("SIGTERM", onSignal);
  process.on("SIGHUP", onSignal);
  process.on("uncaughtExceptionMonitor", () => releaseProcessesSync());
  process.on("exit", () => {
    if (releaseProcessesSync() && !first) spawnDetachedReaper();
    // Ended by a signal, the process exits 128 + its number whatever the caller chose meanwhile.
    if (first) process.exitCode = 128 + (SIGNAL_NUMBERS[first] ?? 15);
  });
}

const SIGNAL_NUMBERS: Partial<Record<NodeJS.Signals, number>> = { SIGHUP: 1, SIGINT: 2, SIGTERM: 15 };

/** Stops this process's child processes synchronously; true when containers remain for the reaper. */
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

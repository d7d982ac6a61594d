/**
 * One shutdown path for every target: whatever this process registered (embedded servers, Docker
 * containers, delay proxies, netem guards, pgbench children) is stopped the same way on SIGTERM,
 * SIGHUP, SIGINT (outside a notebook kernel), an uncaught error, or a plain exit.
 *
 * The hooks are installed by the first `register()` of a resource, so no target can forget them:
 * a target that installed its own and forgot left its container running after SIGTERM to
 * `npm run reproduce`, until `npm run clean`.
 */
import { abortRuns, inKernel, runsEnded } from "./interrupt";
import { ownRecords, unregister } from "./resource-registry";
import { releaseOwnResources, removeProcessResource, spawnDetachedReaper } from "./reaper";

let stopping: Promise<void> | undefined;

/** Cleanups that need this process's memory: see `onShutdown`. */
const inMemory = new Set<() => Promise<void>>();

/**
 * Runs `stop` on the same signals as the registered resources, for what cannot be recorded on disk
 * for the reaper: dropping the lab's database on an external server needs its credentials, which
 * are never written down. Returns the function that removes it again (call it once stopped).
 */
export function onShutdown(stop: () => Promise<void>): () => void {
  installShutdownHooks();
  inMemory.add(stop);
  return () => inMemory.delete(stop);
}

/**
 * Stops every resource this process registered, each on its own (one that cannot be reached is
 * reported and left to the reaper). Idempotent: concurrent callers share one pass. Exported for
 * other stop paths (a kernel watcher, an interrupt handler) that want the same effect.
 */
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

/**
 * Installs the handlers that release this process's resources when it ends. On a plain exit the
 * handler cannot wait for Docker, so containers are left to a detached reaper process that
 * outlives us and removes them once this pid is gone.
 */
export function installShutdownHooks(): void {
  if (hooksInstalled) return;
  hooksInstalled = true;
  let first: NodeJS.Signals | undefined;
  const onSignal = (sig: NodeJS.Signals): void => {
    // Later signals wait for the same cleanup. With `once`, the second SIGTERM took node's default
    // action mid-cleanup: measured, SIGTERM to `npm run reproduce` on the Docker target, the kernel
    // got SIGTERM from the executor and again from jupyter_client's shutdown, died before its
    // container's record was removed, and the record stayed behind.
    if (first) return;
    first = sig;
    // The signal is the decided cause: runs see it before their servers go (interrupt.ts, abortRuns).
    abortRuns(sig);
    // The cleanup below may be cut short: measured, a kernel SIGTERMed by `npm run reproduce` on
    // the Docker target was SIGKILLed (by the Jupyter side) while its container was being removed,
    // and the record stayed. A detached reaper, started first, finishes the job once we are gone.
    if (ownRecords().some((r) => r.resource.type === "docker-container")) spawnDetachedReaper();
    // The aborted runs end once their servers are gone; their callers then say what was kept (the
    // run's InterruptedError). Measured on a loaded machine: a script SIGTERMed mid-load exited as
    // soon as its servers were stopped, before the run's rejection reached its own catch, and printed
    // nothing of what it kept. So the exit waits for the runs (bounded), then one turn of the loop.
    void shutdownAll()
      .then(() => runsEnded(RUNS_END_MS))
      .then(() => new Promise((resolve) => setImmediate(resolve)))
      .finally(() => process.exit(128 + (SIGNAL_NUMBERS[sig] ?? 15)));
  };
  // In a notebook kernel SIGINT is the Stop button: it ends the run (runtime/interrupt), not the
  // kernel. Adding a SIGINT listener there, inside a cell, is also what broke Node's SIGINT handler
  // under tslab's breakOnSigint (docs/interactive.md): only own SIGINT in scripts.
  if (!inKernel()) process.on("SIGINT", onSignal);
  process.on("SIGTERM", onSignal);
  process.on("SIGHUP", onSignal);
  // An uncaught error ends the process through 'exit' below (the monitor only watches: it leaves
  // node's own reporting and exit code, and node:test's attribution of the error, untouched).
  process.on("uncaughtExceptionMonitor", () => releaseProcessesSync());
  process.on("exit", () => {
    if (releaseProcessesSync() && !first) spawnDetachedReaper();
    // Ended by a signal, the process says so (128 + its number) whatever the run's caller chose
    // while the exit waited for it (a script's own `process.exit(3)` in its catch): set here, in
    // the exit listener, it is the code the process exits with.
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

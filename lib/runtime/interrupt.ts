/**
 * Cancellation for notebook cells. A Jupyter interrupt (the toolbar's Stop) is a SIGINT to the
 * kernel's process group; each experiment run takes a signal from here, aborted by that SIGINT,
 * checks it between batches (pgbench and long statements are cancelled at once), and its `finally`
 * stops the servers it started. The cell then ends with a short InterruptedError saying what was
 * kept; the kernel and its variables stay.
 *
 * Why the kernel used to die on Stop (measured with strace on the kernel, Node 20.20): tslab runs
 * a cell with `vm.runInThisContext(code, { breakOnSigint: true })`. For the synchronous part of
 * the cell Node removes every SIGINT listener and arms its SigintWatchdog; when the watchdog stops
 * it installs Node's own "reset the terminal and re-raise" handler. A SIGINT listener *added* in
 * that window (ours, in the first synchronous lines of `runX(...)`, or the reaper's) creates the
 * libuv signal watcher while the watchdog owns the signal, so libuv's handler is overwritten and
 * never reinstalled: the next SIGINT re-raises itself with the default action and the kernel dies
 * ("The kernel appears to have died"), skipping every exit handler, so a detached PostgreSQL
 * outlived it. Plain `node -e` reproduction: a listener added inside
 * `vm.runInThisContext("…", { breakOnSigint: true })` → `kill -INT` ends the process (exit 130 by
 * signal); the same listener added outside → the handler runs. So in a kernel we never add a
 * SIGINT listener synchronously: it is installed from `setImmediate`, after the cell's synchronous
 * part, and by re-creating the watcher (remove all, add again) so a handler broken by anyone else's
 * listener is repaired too.
 */

let listening = false;
const active = new Set<AbortController>();
/** tslab's own SIGINT listeners (stop waiting for the cell), called when no run is active. */
let delegates: ((signal: NodeJS.Signals) => void)[] = [];

export class InterruptedError extends Error {
  override readonly name = "InterruptedError";
  /** The signal that ended the process (SIGTERM, SIGHUP), absent for a Stop (SIGINT in a kernel). */
  readonly signal?: NodeJS.Signals;
  constructor(
    message = "interrupted (SIGINT): the run stopped between batches and its servers were stopped",
    options?: ErrorOptions & { readonly signal?: NodeJS.Signals },
  ) {
    super(message, options);
    if (options?.signal) this.signal = options.signal;
    // The cell prints the error; a stack trace under "interrupted" would look like a crash.
    this.stack = `${this.name}: ${message}`;
  }
}

/** True inside a tslab kernel (the kernelspec sets DBLAB_IN_KERNEL; older specs: tslab is loaded). */
export function inKernel(): boolean {
  if (process.env.DBLAB_IN_KERNEL === "1") return true;
  return Object.keys(require.cache).some((file) => /[\\/]tslab[\\/]dist[\\/]executor\.js$/.test(file));
}

function onSigint(): void {
  const running = [...active].filter((c) => !c.signal.aborted);
  if (running.length > 0) {
    // First Stop during a run: end the run cleanly; the cell keeps waiting for its servers to stop.
    for (const controller of running) controller.abort(new InterruptedError());
    return;
  }
  // No run, or a second Stop while one is stopping: tslab's behaviour (stop waiting for the cell).
  for (const listener of delegates) listener("SIGINT");
}

/** Makes `onSigint` the only SIGINT listener, with a freshly created native handler (see above). */
function takeOverSigint(): void {
  const others = process.rawListeners("SIGINT").filter((l) => l !== onSigint) as ((s: NodeJS.Signals) => void)[];
  if (others.length > 0) delegates = others;
  process.removeAllListeners("SIGINT");
  process.on("SIGINT", onSigint);
}

function listen(): void {
  if (listening) return;
  listening = true;
  if (!inKernel()) {
    // A script: no vm watchdog; the reaper's handler ends the process after its servers stop.
    process.on("SIGINT", onSigint);
    return;
  }
  // Once is enough: for each later cell vm's wrapper removes and re-adds exactly these listeners,
  // the re-adding outside the watchdog window, so the native handler stays libuv's.
  setImmediate(takeOverSigint);
}

/**
 * Aborts every active run because the process got `signal` and is ending (SIGTERM, SIGHUP; SIGINT
 * outside a kernel). Called by the shutdown hooks before they stop the servers: the run then sees
 * the signal as the cause, and the server loss that follows as its consequence. Measured before:
 * SIGTERM mid-trial stopped the server first, the trial failed as "server lost" and metadata.json
 * said `failed`.
 */
export function abortRuns(signal: NodeJS.Signals): void {
  for (const controller of active) {
    if (!controller.signal.aborted) {
      controller.abort(
        new InterruptedError(`interrupted (${signal}): the process is ending and its servers are being stopped`, {
          signal,
        }),
      );
    }
  }
}

/** A signal for one run, aborted by the next SIGINT; pass it to `endInterruptible` when the run ends. */
export function interruptSignal(): AbortSignal {
  listen();
  const controller = new AbortController();
  active.add(controller);
  return controller.signal;
}

/** The run owning `signal` ended: a later SIGINT goes to tslab (interrupting an ordinary cell) again. */
export function endInterruptible(signal: AbortSignal): void {
  for (const controller of active) if (controller.signal === signal) active.delete(controller);
  if (active.size === 0) for (const resolve of waitingForEnd.splice(0)) resolve();
}

const waitingForEnd: (() => void)[] = [];

/**
 * Resolves once no run is active (at once when none is), or after `timeoutMs`: how a signal's
 * shutdown lets an aborted run say what it kept before the process exits.
 */
export function runsEnded(timeoutMs: number): Promise<void> {
  if (active.size === 0) return Promise.resolve();
  return new Promise((resolve) => {
    const timer = setTimeout(resolve, timeoutMs);
    waitingForEnd.push(() => {
      clearTimeout(timer);
      resolve();
    });
  });
}

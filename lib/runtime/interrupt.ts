/**
 * Cancellation for notebook cells: a Stop (SIGINT to the kernel's group) aborts the run's signal, its
 * `finally` stops its servers, and the kernel lives on. In a kernel no SIGINT listener is added
 * synchronously, which would break Node's handler under tslab (docs/interactive.md).
 */

let listening = false;
const active = new Set<AbortController>();
/** tslab's own SIGINT listeners, called when no run is active. */
let delegates: ((signal: NodeJS.Signals) => void)[] = [];

export class InterruptedError extends Error {
  override readonly name = "InterruptedError";
  /** The signal that ended the process (SIGTERM, SIGHUP); absent for a Stop. */
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

export function inKernel(): boolean {
  if (process.env.DBLAB_IN_KERNEL === "1") return true;
  return Object.keys(require.cache).some((file) => /[\\/]tslab[\\/]dist[\\/]executor\.js$/.test(file));
}

function onSigint(): void {
  const running = [...active].filter((c) => !c.signal.aborted);
  if (running.length > 0) {
    // First Stop during a run: end the run cleanly.
    for (const controller of running) controller.abort(new InterruptedError());
    return;
  }
  // No run, or a second Stop: tslab's behaviour (stop waiting for the cell).
  for (const listener of delegates) listener("SIGINT");
}

/** Makes `onSigint` the only SIGINT listener, with a fresh native handler. */
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
  // Once is enough: vm's wrapper re-adds exactly these listeners outside the watchdog window.
  setImmediate(takeOverSigint);
}

/**
 * Aborts every active run because the process is ending on `signal`, before the shutdown hooks stop
 * the servers: the run then sees the signal as the cause and the server loss as its consequence.
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

/** A signal for one run, aborted by the next SIGINT; end it with `endInterruptible`. */
export function interruptSignal(): AbortSignal {
  listen();
  const controller = new AbortController();
  active.add(controller);
  return controller.signal;
}

export function endInterruptible(signal: AbortSignal): void {
  for (const controller of active) if (controller.signal === signal) active.delete(controller);
  if (active.size === 0) for (const resolve of waitingForEnd.splice(0)) resolve();
}

const waitingForEnd: (() => void)[] = [];

/** Resolves once no run is active (or after `timeoutMs`), so an aborted run can say what it kept. */
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

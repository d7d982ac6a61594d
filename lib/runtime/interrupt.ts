/**
 * Cancellation for notebook cells. A Jupyter interrupt is a SIGINT to the kernel; tslab then only
 * stops *waiting* for the cell's promise, and the workload would go on in the background. Each
 * experiment run takes a fresh signal from here, aborted by the next SIGINT, and checks it between
 * batches; its `finally` then stops the servers it started.
 */

let current: AbortController | undefined;
let listening = false;

export class InterruptedError extends Error {
  override readonly name = "InterruptedError";
  constructor() {
    super("interrupted (SIGINT): the run stopped between batches and its servers were stopped");
  }
}

/** A signal for one run, aborted by the next SIGINT this process receives. */
export function interruptSignal(): AbortSignal {
  if (!listening) {
    listening = true;
    process.on("SIGINT", () => current?.abort(new InterruptedError()));
  }
  current = new AbortController();
  return current.signal;
}

/**
 * The 'error' listener every client, child process and socket the lab creates gets. Node throws an
 * 'error' event nobody listens to as an uncaught exception, and in a kernel that is one step from
 * a dead kernel: measured on notebook 04 after a dropped link to a remote engine, two
 * `UncaughtException: Error: Connection terminated unexpectedly` from node-postgres clients
 * (the activity sampler's, the REINDEX session's) that had none.
 */
import { debugLog } from "./debug";

const log = debugLog("error-events");

interface ErrorEmitter {
  on(event: "error", listener: (error: Error) => void): unknown;
}

/**
 * Gives `emitter` its 'error' listener. `route` hands the error to the owner's failure path (a
 * sampler ends with it, a server start fails with it); without a route the owner learns it from
 * its next call (a query on a lost connection rejects with the same error), and the event itself
 * is logged with DBLAB_DEBUG=1 under `what`.
 */
export function handleErrors<E extends ErrorEmitter>(emitter: E, what: string, route?: (error: Error) => void): E {
  emitter.on("error", (error) => {
    log("%s: %s", what, error.message);
    route?.(error);
  });
  return emitter;
}

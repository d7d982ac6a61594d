/**
 * The 'error' listener every client, child process and socket the lab creates gets: Node throws an
 * unheard 'error' event as an uncaught exception, one step from a dead kernel.
 */
import { debugLog } from "./debug";

const log = debugLog("error-events");

interface ErrorEmitter {
  on(event: "error", listener: (error: Error) => void): unknown;
}

/**
 * Gives `emitter` its 'error' listener. `route` hands the error to the owner's failure path; without
 * one the owner learns it from its next call, and the event is logged with DBLAB_DEBUG=1.
 */
export function handleErrors<E extends ErrorEmitter>(emitter: E, what: string, route?: (error: Error) => void): E {
  emitter.on("error", (error) => {
    log("%s: %s", what, error.message);
    route?.(error);
  });
  return emitter;
}

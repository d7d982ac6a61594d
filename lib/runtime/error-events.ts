/** Node throws an unheard 'error' event as an uncaught exception, one step from a dead kernel. */
import { debugLog } from "./debug";

const log = debugLog("error-events");

interface ErrorEmitter {
  on(event: "error", listener: (error: Error) => void): unknown;
}

/** `route` hands the error to the owner's failure path; else the owner learns it on its next call. */
export function handleErrors<E extends ErrorEmitter>(emitter: E, what: string, route?: (error: Error) => void): E {
  emitter.on("error", (error) => {
    log("%s: %s", what, error.message);
    route?.(error);
  });
  return emitter;
}

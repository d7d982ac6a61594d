/**
 * The lab's debug log: quiet by default; `DBLAB_DEBUG=1` prints every `dblab:*` namespace to stderr
 * (in a notebook, the kernel's stderr: the cell's output). `DBLAB_DEBUG=dblab:ignored` narrows it to
 * one namespace; the `DEBUG` variable works as the `debug` package documents and adds to it.
 *
 * Why the `debug` package and not a hand-written logger: it is already installed (dockerode →
 * docker-modem uses it, so no new download), it gives namespaces and per-line time deltas, and
 * `DBLAB_DEBUG=1 DEBUG=docker-modem` shows dockerode's own requests beside ours, the pair that explains
 * a container cleanup that failed. It lives here, in lib/runtime/, because every layer may import it.
 */
import createDebug from "debug";

export type DebugLog = (formatter: string, ...args: unknown[]) => void;

const wanted = process.env.DBLAB_DEBUG?.trim();
if (wanted && wanted !== "0" && wanted !== "false")
  enableDebug(wanted === "1" || wanted === "true" ? "dblab:*" : wanted);

/** Turns the log on from code (e.g. a notebook cell: `enableDebug()`), keeping what DEBUG already enabled. */
export function enableDebug(namespaces = "dblab:*"): void {
  // debug.enable() replaces the list (and writes it to process.env.DEBUG, so forked helpers inherit it).
  createDebug.enable([process.env.DEBUG, namespaces].filter(Boolean).join(","));
}

/** A log for one area, printed as `dblab:<area>` when enabled: `const log = debugLog("targets:docker")`. */
export function debugLog(area: string): DebugLog {
  return createDebug(`dblab:${area}`);
}

const ignoredLog = debugLog("ignored");

function describe(error: unknown): string {
  return error instanceof Error ? (error.stack ?? error.message) : String(error);
}

/**
 * For a failure that must neither mask the error being reported nor stop the rest of a cleanup:
 * `.catch(ignored("end the probe client"))`, or `ignored("…")(error)` inside a catch block.
 * It is dropped, but `DBLAB_DEBUG=1` prints what was being done and why it failed.
 */
export function ignored(what: string): (error: unknown) => void {
  return (error) => ignoredLog("%s failed: %s", what, describe(error));
}

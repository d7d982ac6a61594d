/**
 * The lab's debug log: quiet by default; `DBLAB_DEBUG=1` prints every `dblab:*` namespace to stderr,
 * `DBLAB_DEBUG=dblab:ignored` one. The `debug` package, already installed by dockerode, so
 * `DEBUG=docker-modem` shows dockerode's requests beside ours.
 */
import createDebug from "debug";

export type DebugLog = (formatter: string, ...args: unknown[]) => void;

const wanted = process.env.DBLAB_DEBUG?.trim();
if (wanted && wanted !== "0" && wanted !== "false")
  enableDebug(wanted === "1" || wanted === "true" ? "dblab:*" : wanted);

/** Turns the log on from code, keeping what DEBUG already enabled. */
export function enableDebug(namespaces = "dblab:*"): void {
  createDebug.enable([process.env.DEBUG, namespaces].filter(Boolean).join(","));
}

/** A log for one area, printed as `dblab:<area>`: `const log = debugLog("targets:docker")`. */
export function debugLog(area: string): DebugLog {
  return createDebug(`dblab:${area}`);
}

const ignoredLog = debugLog("ignored");

function describe(error: unknown): string {
  return error instanceof Error ? (error.stack ?? error.message) : String(error);
}

/**
 * For a failure that must neither mask the error being reported nor stop a cleanup: dropped, printed with
 * DBLAB_DEBUG=1.
 */
export function ignored(what: string): (error: unknown) => void {
  return (error) => ignoredLog("%s failed: %s", what, describe(error));
}

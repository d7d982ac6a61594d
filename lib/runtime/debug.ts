/**
 * `DBLAB_DEBUG=1` prints every `dblab:*` namespace to stderr. The `debug` package comes with
 * dockerode, so `DEBUG=docker-modem` shows its requests beside ours.
 */
import createDebug from "debug";

export type DebugLog = (formatter: string, ...args: unknown[]) => void;

const wanted = process.env.DBLAB_DEBUG?.trim();
if (wanted && wanted !== "0" && wanted !== "false")
  enableDebug(wanted === "1" || wanted === "true" ? "dblab:*" : wanted);

export function enableDebug(namespaces = "dblab:*"): void {
  createDebug.enable([process.env.DEBUG, namespaces].filter(Boolean).join(","));
}

export function debugLog(area: string): DebugLog {
  return createDebug(`dblab:${area}`);
}

const ignoredLog = debugLog("ignored");

function describe(error: unknown): string {
  return error instanceof Error ? (error.stack ?? error.message) : String(error);
}

/** For a failure that must neither mask the reported error nor stop a cleanup. */
export function ignored(what: string): (error: unknown) => void {
  return (error) => ignoredLog("%s failed: %s", what, describe(error));
}

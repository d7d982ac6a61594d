/**
 * A watcher process holds a pipe only the kernel writes; when the kernel dies (SIGKILL runs no
 * exit handler) it removes every record the kernel owned (docs/interactive.md).
 */
import { spawn, type ChildProcess } from "node:child_process";
import fs from "node:fs";
import path from "node:path";
import { inKernel } from "./interrupt";
import { processStartTicks, stateRoot } from "./resource-registry";
import { handleErrors } from "./error-events";

let watcher: ChildProcess | undefined;

/** Scripts end through their exit handlers (DBLAB_WATCHER=1 forces one, =0 none). */
export function watcherWanted(): boolean {
  if (process.env.DBLAB_WATCHER === "0") return false;
  return process.env.DBLAB_WATCHER === "1" || inKernel();
}

export function watcherPid(): number | undefined {
  return watcher?.pid;
}

export function ensureWatcher(): void {
  if (watcher || !watcherWanted()) return;
  const script = path.join(__dirname, "..", "..", "scripts", "watcher.js");
  if (!fs.existsSync(script)) return;
  fs.mkdirSync(stateRoot(), { recursive: true });
  const log = fs.openSync(path.join(stateRoot(), `watcher-${process.pid}.log`), "a");
  try {
    // JPY_PARENT_PID: the watcher ends an orphaned kernel as ipykernel's parent poller would.
    const jupyter = inKernel() ? (process.env.JPY_PARENT_PID ?? "") : "";
    const args = [script, String(process.pid), String(processStartTicks(process.pid) ?? ""), jupyter];
    watcher = spawn(process.execPath, args, {
      // Signals to the kernel's group must not reach it.
      detached: true,
      // Close-on-exec, so servers we spawn cannot keep the pipe open.
      stdio: ["pipe", "ignore", log],
      env: { ...process.env, DBLAB_WATCHER: "0" },
    });
  } finally {
    fs.closeSync(log);
  }
  watcher.once("exit", () => (watcher = undefined));
  handleErrors(watcher, "the kernel's watcher", () => (watcher = undefined));
  watcher.unref();
  const stdin = watcher.stdin as (NodeJS.WritableStream & { unref?: () => void }) | null;
  stdin?.unref?.();
  stdin?.on("error", () => undefined);
}

/**
 * Nothing outlives its kernel: a watcher process holds a pipe only the kernel writes, and when the
 * kernel dies (SIGKILL runs no exit handler) removes every record it owned (docs/interactive.md).
 */
import { spawn, type ChildProcess } from "node:child_process";
import fs from "node:fs";
import path from "node:path";
import { inKernel } from "./interrupt";
import { processStartTicks, stateRoot } from "./resource-registry";
import { handleErrors } from "./error-events";

let watcher: ChildProcess | undefined;

/** Kernels get a watcher; scripts end through their exit handlers (DBLAB_WATCHER=1 forces one, =0 none). */
export function watcherWanted(): boolean {
  if (process.env.DBLAB_WATCHER === "0") return false;
  return process.env.DBLAB_WATCHER === "1" || inKernel();
}

export function watcherPid(): number | undefined {
  return watcher?.pid;
}

/** Starts this process's watcher once. */
export function ensureWatcher(): void {
  if (watcher || !watcherWanted()) return;
  const script = path.join(__dirname, "..", "..", "scripts", "watcher.js");
  if (!fs.existsSync(script)) return;
  fs.mkdirSync(stateRoot(), { recursive: true });
  const log = fs.openSync(path.join(stateRoot(), `watcher-${process.pid}.log`), "a");
  try {
    // The Jupyter server that started the kernel (JPY_PARENT_PID): if it dies without shutting its
    // kernels down, the watcher ends the orphaned kernel as ipykernel's parent poller would.
    const jupyter = inKernel() ? (process.env.JPY_PARENT_PID ?? "") : "";
    const args = [script, String(process.pid), String(processStartTicks(process.pid) ?? ""), jupyter];
    watcher = spawn(process.execPath, args, {
      // Own session and process group: signals to the kernel's group must not reach it.
      detached: true,
      // stdin is the pipe, opened close-on-exec, so servers we spawn cannot keep it open after we die.
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

/**
 * Nothing outlives its kernel: testcontainers' Ryuk, without a container. With the first resource a
 * kernel registers, it starts one small watcher process (scripts/watcher.ts) that holds the read end
 * of a pipe whose write end only the kernel has. When the kernel dies however it dies (Restart and
 * Shut Down end in a SIGKILL to the kernel's process group after 5 s when a run is busy; `kill -9`;
 * the Jupyter server stopping) the kernel's end closes, and the watcher removes every record the
 * kernel owned (servers, proxies, containers: the reaper's per-record removal), then exits.
 *
 * Why a process and not exit handlers: a SIGKILL runs no handler, and that is exactly how Jupyter
 * ends a kernel that does not stop within its shutdown wait. Measured before (index-write-cost
 * `default` on the embedded target, Restart while running): the embedded PostgreSQL lived until the
 * next run or `npm run clean`; after: see docs/interactive.md.
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

/** The watcher's pid while it runs (the watcher test kills its owner and checks the watcher acts). */
export function watcherPid(): number | undefined {
  return watcher?.pid;
}

/** Starts this process's watcher once; a no-op when not wanted or already running. */
export function ensureWatcher(): void {
  if (watcher || !watcherWanted()) return;
  const script = path.join(__dirname, "..", "..", "scripts", "watcher.js");
  if (!fs.existsSync(script)) return; // running from sources (ts-node): nothing to start
  fs.mkdirSync(stateRoot(), { recursive: true });
  const log = fs.openSync(path.join(stateRoot(), `watcher-${process.pid}.log`), "a");
  try {
    // The Jupyter server that started the kernel (jupyter_client sets JPY_PARENT_PID): if it dies
    // without shutting its kernels down (SIGKILL, a crash), the kernel is orphaned and nobody can
    // reach it; the watcher then ends the kernel as ipykernel's parent poller would.
    const jupyter = inKernel() ? (process.env.JPY_PARENT_PID ?? "") : "";
    const args = [script, String(process.pid), String(processStartTicks(process.pid) ?? ""), jupyter];
    watcher = spawn(process.execPath, args, {
      // Own session and process group: Jupyter signals the kernel's group (SIGINT for Stop, SIGKILL
      // for Restart), and a terminal's Ctrl-C its foreground group; none of them must reach the watcher.
      detached: true,
      // stdin is the pipe: libuv opens our end close-on-exec, so servers we spawn do not inherit it
      // and cannot keep it open after we die.
      stdio: ["pipe", "ignore", log],
      env: { ...process.env, DBLAB_WATCHER: "0" },
    });
  } finally {
    fs.closeSync(log);
  }
  watcher.once("exit", () => (watcher = undefined));
  // A watcher that could not start leaves the shutdown hooks and the reaper to clean up.
  handleErrors(watcher, "the kernel's watcher", () => (watcher = undefined));
  // Neither the child nor the pipe may keep the kernel's event loop alive.
  watcher.unref();
  const stdin = watcher.stdin as (NodeJS.WritableStream & { unref?: () => void }) | null;
  stdin?.unref?.();
  stdin?.on("error", () => undefined);
}

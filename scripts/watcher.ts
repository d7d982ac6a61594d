/**
 * The watcher of one kernel (see lib/runtime/watcher.ts): `node watcher.js <ownerPid> <ownerStartTicks>`.
 * A script, not a lib/runtime module: removing a container needs the Docker layer, which sits above
 * the runtime (loaded only when the owner left a container record).
 * Waits for its stdin (a pipe only the owner holds) to close, then removes what the owner
 * registered and exits. Also polls the owner every 2 s, in case something else holds the pipe.
 */
import { removeRecord } from "../lib/runtime/reaper";
import fs from "node:fs";
import path from "node:path";
import { isProcessAlive, listRecords, processStartTicks, stateRoot } from "../lib/runtime/resource-registry";

if (process.argv[2] === "--help" || process.argv[2] === "-h") {
  process.stdout.write(
    "Usage: node build/scripts/watcher.js OWNER_PID [OWNER_START_TICKS] [JUPYTER_PID]\n" +
      "Started by a kernel (lib/runtime/watcher.ts): removes what OWNER_PID registered once its stdin closes.\n",
  );
  process.exit(0);
}
const owner = Number(process.argv[2]);
const ownerTicks = process.argv[3] ? Number(process.argv[3]) : undefined;
const jupyter = process.argv[4] ? Number(process.argv[4]) : undefined;
const jupyterTicks = jupyter ? processStartTicks(jupyter) : undefined;
let orphanSignalled = false;
const numbers = process.argv.slice(3);
if (!Number.isInteger(owner) || owner <= 0 || numbers.length > 2 || numbers.some((a) => a !== "" && !/^\d+$/.test(a))) {
  process.stderr.write(`watcher: bad arguments ${JSON.stringify(process.argv.slice(2))} (--help for usage)\n`);
  process.exit(2);
}

const log = (message: string) => process.stderr.write(`${new Date().toISOString()} watcher of ${owner}: ${message}\n`);
const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));
let reaping = false;

async function reap(reason: string): Promise<void> {
  if (reaping) return;
  reaping = true;
  // The pipe closes while the owner is exiting; its exit handlers may still be stopping servers.
  const deadline = Date.now() + 10_000;
  while (isProcessAlive(owner, ownerTicks) && Date.now() < deadline) await sleep(50);
  if (isProcessAlive(owner, ownerTicks)) {
    log(`${reason}, but the owner is still alive: watching on`);
    reaping = false;
    return;
  }
  let removed = 0;
  if (listRecords().some((r) => r.ownerPid === owner && r.resource.type === "docker-container")) {
    await import("../lib/targets/docker/docker-client"); // installs the reaper's container remover
  }
  // Two passes: a record written in the owner's last moments may appear just after the first.
  for (let pass = 0; pass < 2; pass++) {
    for (const record of listRecords()) {
      if (record.ownerPid !== owner || record.ownerAlive) continue;
      try {
        await removeRecord(record);
        removed++;
        log(`removed ${record.resource.description}`);
      } catch (error) {
        log(`could not remove ${record.resource.description}: ${String(error)}`);
      }
    }
    if (pass === 0) await sleep(300);
  }
  log(`${reason}: removed ${removed} resource(s); exiting`);
  // A kernel that ended cleanly leaves nothing to read: keep only logs of watchers that acted.
  if (removed === 0) fs.rmSync(path.join(stateRoot(), `watcher-${owner}.log`), { force: true });
  process.exit(0);
}

for (const signal of ["SIGINT", "SIGHUP", "SIGPIPE"] as const) process.on(signal, () => undefined);
process.stdin.on("end", () => void reap("the owner's pipe closed"));
process.stdin.on("close", () => void reap("the owner's pipe closed"));
process.stdin.on("error", () => void reap("the owner's pipe failed"));
process.stdin.resume();
setInterval(() => {
  if (!isProcessAlive(owner, ownerTicks)) void reap("the owner is gone");
  else if (jupyter && jupyterTicks !== undefined && !orphanSignalled && !isProcessAlive(jupyter, jupyterTicks)) {
    // Orphaned kernel: SIGTERM lets its own handlers stop its servers; its pipe then closes and
    // reap() removes whatever is left. SIGKILL after 10 s if it does not go.
    orphanSignalled = true;
    log(`the Jupyter server (pid ${jupyter}) is gone: ending the orphaned kernel`);
    try {
      process.kill(owner, "SIGTERM");
    } catch {
      // already gone
    }
    setTimeout(() => {
      try {
        if (isProcessAlive(owner, ownerTicks)) process.kill(owner, "SIGKILL");
      } catch {
        // already gone
      }
    }, 10_000).unref();
  }
}, 2000);
log("watching");

/**
 * Removes the lab's qdiscs from `lo` when the lab that made them goes away without doing it
 * (crash, kill): on IPC disconnect, or on the reaper's signal. "done" means the lab cleaned up.
 */
import { spawnSync } from "node:child_process";

const tc = process.argv[2] ?? "tc";
let done = false;

function teardown(): void {
  if (!done) spawnSync(tc, ["qdisc", "del", "dev", "lo", "root"], { stdio: "ignore", timeout: 10_000 });
  done = true;
  process.exit(0);
}

process.on("message", (m) => {
  if (m === "done") {
    done = true;
    process.exit(0);
  }
});
process.on("disconnect", teardown);
for (const signal of ["SIGTERM", "SIGQUIT", "SIGINT", "SIGHUP"] as const) process.on(signal, teardown);
process.send?.("ready");

/**
 * The delay proxy's alarm clock thread: libuv timers have ms precision, so the next deadline is
 * handed here, slept in Atomics.wait and signalled by a message (which wakes the loop at once).
 * Shared memory: Int32 [0] generation, Int32 [1] stop flag, BigInt64 [0] deadline in hrtime ns (0: none).
 */
import { parentPort, workerData } from "node:worker_threads";

interface ClockData {
  readonly buffer: SharedArrayBuffer;
}

function run(): void {
  const { buffer } = workerData as ClockData;
  const control = new Int32Array(buffer, 0, 2);
  const deadline = new BigInt64Array(buffer, 8, 1);
  for (;;) {
    const generation = Atomics.load(control, 0);
    if (Atomics.load(control, 1) !== 0) return;
    const due = Atomics.load(deadline, 0);
    if (due === 0n) {
      Atomics.wait(control, 0, generation);
      continue;
    }
    const remainingMs = Number(due - process.hrtime.bigint()) / 1e6;
    if (remainingMs > 0) {
      Atomics.wait(control, 0, generation, remainingMs);
      continue;
    }
    // Clear only the deadline we fired for: a newer one may have been set meanwhile.
    Atomics.compareExchange(deadline, 0, due, 0n);
    parentPort?.postMessage(0);
  }
}

run();

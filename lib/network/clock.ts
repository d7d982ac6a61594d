/** The event-loop side of the clock thread (see clock-worker.ts). */
import path from "node:path";
import { Worker } from "node:worker_threads";

export class AlarmClock {
  private readonly buffer = new SharedArrayBuffer(16);
  private readonly control = new Int32Array(this.buffer, 0, 2);
  private readonly deadline = new BigInt64Array(this.buffer, 8, 1);
  private readonly worker: Worker;
  private armedFor = 0n;

  constructor(onAlarm: () => void) {
    this.worker = new Worker(path.join(__dirname, "clock-worker.js"), { workerData: { buffer: this.buffer } });
    this.worker.on("message", () => {
      this.armedFor = 0n;
      onAlarm();
    });
    this.worker.on("error", (error) => {
      process.stderr.write(`delay proxy clock thread failed: ${String(error)}\n`);
      process.exit(70);
    });
    this.worker.unref();
  }

  /** Wakes the event loop at `at` (hrtime ns). Re-arming for the same instant is free. */
  arm(at: bigint): void {
    if (at === this.armedFor) return;
    this.armedFor = at;
    Atomics.store(this.deadline, 0, at);
    Atomics.add(this.control, 0, 1);
    Atomics.notify(this.control, 0);
  }

  disarm(): void {
    if (this.armedFor === 0n) return;
    this.armedFor = 0n;
    Atomics.store(this.deadline, 0, 0n);
    Atomics.add(this.control, 0, 1);
    Atomics.notify(this.control, 0);
  }

  async stop(): Promise<void> {
    Atomics.store(this.control, 1, 1);
    Atomics.add(this.control, 0, 1);
    Atomics.notify(this.control, 0);
    await this.worker.terminate();
  }
}

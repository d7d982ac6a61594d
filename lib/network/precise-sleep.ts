/**
 * Sub-millisecond sleeps without a spinning thread. Node timers round to whole milliseconds, but
 * `Atomics.wait` with a fractional timeout blocks the thread in the kernel and wakes with a steady
 * lateness (here ~60–100 µs, mostly the kernel's timer slack). The sleeper learns that lateness and
 * asks for that much less, then spins only for the few microseconds it woke early.
 */

const NS_PER_MS = 1_000_000;

export function nowNs(): bigint {
  return process.hrtime.bigint();
}

export interface SleeperStats {
  /** The current estimate of Atomics.wait's lateness, µs. */
  readonly lateUs: number;
  /** Sleeps that blocked in Atomics.wait, and sleeps that only spun (shorter than the lateness). */
  readonly blocked: number;
  readonly spunOnly: number;
  /** Total time spent spinning, ms (the CPU the precision costs). */
  readonly spinMs: number;
}

export class PreciseSleeper {
  private readonly cell = new Int32Array(new SharedArrayBuffer(4));
  /** Estimated lateness of Atomics.wait, ns; an EWMA of what was observed. */
  private lateNs: number;
  private blocked = 0;
  private spunOnly = 0;
  private spinNs = 0;

  /**
   * @param marginNs asked-for sleeps end this much before the estimate says they would, so the
   *   wake-up is early more often than late; the spin covers the rest.
   */
  constructor(
    private readonly marginNs = 15_000,
    initialLateNs = 80_000,
  ) {
    this.lateNs = initialLateNs;
  }

  /** Measures Atomics.wait's lateness now (blocks for about `samples` × 0.2 ms). */
  calibrate(samples = 100): number {
    const observed: number[] = [];
    for (let i = 0; i < samples; i++) {
      const asked = 100_000;
      const t0 = nowNs();
      Atomics.wait(this.cell, 0, 0, asked / NS_PER_MS);
      observed.push(Number(nowNs() - t0) - asked);
    }
    observed.sort((a, b) => a - b);
    this.lateNs = observed[Math.floor(observed.length / 2)];
    return this.lateNs;
  }

  /** Blocks the calling thread until `deadline` (hrtime ns); returns at or just after it. */
  sleepUntil(deadline: bigint): void {
    const remaining = Number(deadline - nowNs());
    if (remaining <= 0) return;
    const ask = remaining - this.lateNs - this.marginNs;
    if (ask > 5_000) {
      const t0 = nowNs();
      Atomics.wait(this.cell, 0, 0, ask / NS_PER_MS);
      const late = Number(nowNs() - t0) - ask;
      // Slow EWMA: one preempted wake-up must not throw the estimate off.
      this.lateNs += (Math.max(0, Math.min(late, 1_000_000)) - this.lateNs) / 16;
      this.blocked++;
    } else {
      this.spunOnly++;
    }
    const spinStart = nowNs();
    while (nowNs() < deadline) {
      // Spin: bounded by lateNs + marginNs (tens of µs), never a standing busy loop.
    }
    this.spinNs += Number(nowNs() - spinStart);
  }

  stats(): SleeperStats {
    return {
      lateUs: this.lateNs / 1000,
      blocked: this.blocked,
      spunOnly: this.spunOnly,
      spinMs: this.spinNs / NS_PER_MS,
    };
  }
}

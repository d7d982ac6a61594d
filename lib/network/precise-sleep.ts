/**
 * Sub-millisecond sleeps without a spinning thread: `Atomics.wait` with a fractional timeout wakes
 * with a steady lateness, which the sleeper learns and subtracts, spinning only for what it woke
 * early (docs/bench.md).
 */

const NS_PER_MS = 1_000_000;

export function nowNs(): bigint {
  return process.hrtime.bigint();
}

export interface SleeperStats {
  /** µs. */
  readonly lateUs: number;
  /** Sleeps that blocked in Atomics.wait, and sleeps that only spun (shorter than the lateness). */
  readonly blocked: number;
  readonly spunOnly: number;
  /** ms of spinning (the CPU the precision costs). */
  readonly spinMs: number;
}

export class PreciseSleeper {
  private readonly cell = new Int32Array(new SharedArrayBuffer(4));
  /** ns, an EWMA. */
  private lateNs: number;
  private blocked = 0;
  private spunOnly = 0;
  private spinNs = 0;

  /** @param marginNs sleeps end this much early, so the wake-up is early more often than late. */
  constructor(
    private readonly marginNs = 15_000,
    initialLateNs = 80_000,
  ) {
    this.lateNs = initialLateNs;
  }

  /** Measures the lateness now (blocks about `samples` × 0.2 ms). */
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

  /** Blocks until `deadline` (hrtime ns). */
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
      // Bounded spin (tens of µs).
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

/** A ring of the most recent delivery latenesses (µs), summarised on demand. */

export interface LatenessSummary {
  /** Deliveries since the last reset (the percentiles cover the most recent `capacity`). */
  readonly count: number;
  readonly meanUs: number;
  readonly p50Us: number;
  readonly p90Us: number;
  readonly p99Us: number;
  readonly maxUs: number;
}

export class LatenessRecorder {
  private readonly values: Float64Array;
  private next = 0;
  private count = 0;
  private sum = 0;
  private max = 0;

  constructor(capacity = 8192) {
    this.values = new Float64Array(capacity);
  }

  record(us: number): void {
    this.values[this.next] = us;
    this.next = (this.next + 1) % this.values.length;
    this.count++;
    this.sum += us;
    if (us > this.max) this.max = us;
  }

  reset(): void {
    this.next = 0;
    this.count = 0;
    this.sum = 0;
    this.max = 0;
  }

  summary(): LatenessSummary {
    const n = Math.min(this.count, this.values.length);
    const sorted = Array.from(this.values.subarray(0, n)).sort((a, b) => a - b);
    const q = (p: number) => (n ? sorted[Math.min(n - 1, Math.floor(p * n))] : 0);
    return {
      count: this.count,
      meanUs: this.count ? this.sum / this.count : 0,
      p50Us: q(0.5),
      p90Us: q(0.9),
      p99Us: q(0.99),
      maxUs: this.max,
    };
  }
}

/**
 * The core of the user-space delay proxy: each direction of a connection is a delay line holding
 * every chunk for the one-way delay from when it was read, delivered in order. One scheduler blocks
 * (Atomics.wait) only for the last stretch before a deadline, so the other direction is read on time.
 */
import type { Socket } from "node:net";
import { LatenessRecorder, type LatenessSummary } from "./lateness";
import { nowNs, PreciseSleeper, type SleeperStats } from "./precise-sleep";

export type Direction = "up" | "down";

interface Pending {
  readonly due: bigint;
  /** null: the sender half-closed. */
  readonly data: Buffer | null;
}

/** Pause reading a source when this much is held for it. */
const MAX_QUEUED_BYTES = 8 * 1024 * 1024;

export class DelayLine {
  private queue: Pending[] = [];
  private head = 0;
  private lastDue = 0n;
  private queuedBytes = 0;
  private pausedForQueue = false;
  sourceClosed = false;

  constructor(
    readonly direction: Direction,
    readonly source: Socket,
    readonly dest: Socket,
  ) {}

  get nextDue(): bigint | undefined {
    return this.head < this.queue.length ? this.queue[this.head].due : undefined;
  }

  get idle(): boolean {
    return this.head >= this.queue.length;
  }

  enqueue(data: Buffer | null, arrived: bigint, delayNs: bigint): void {
    // Never earlier than the chunk before: a delay lowered mid-stream must not reorder bytes.
    const due = arrived + delayNs > this.lastDue ? arrived + delayNs : this.lastDue;
    this.lastDue = due;
    this.queue.push({ due, data });
    if (data) {
      this.queuedBytes += data.length;
      if (this.queuedBytes > MAX_QUEUED_BYTES && !this.pausedForQueue) {
        this.pausedForQueue = true;
        this.source.pause();
      }
    }
  }

  /** Writes every chunk due by `limit`; reports each one's lateness (µs) to `record`. */
  deliverDue(limit: bigint, record: (lateUs: number) => void): void {
    while (this.head < this.queue.length && this.queue[this.head].due <= limit) {
      const item = this.queue[this.head++];
      const late = Number(nowNs() - item.due) / 1000;
      record(late);
      this.write(item.data);
    }
    if (this.head > 1024 && this.head * 2 > this.queue.length) {
      this.queue = this.queue.slice(this.head);
      this.head = 0;
    }
  }

  write(data: Buffer | null): void {
    if (this.dest.destroyed) return;
    if (data === null) {
      this.dest.end();
      return;
    }
    this.queuedBytes = Math.max(0, this.queuedBytes - data.length);
    const flushed = this.dest.write(data);
    if (!flushed) {
      this.source.pause();
      this.dest.once("drain", () => {
        if (!this.pausedForQueue) this.source.resume();
      });
    }
    if (this.pausedForQueue && this.queuedBytes < MAX_QUEUED_BYTES / 2) {
      this.pausedForQueue = false;
      if (flushed) this.source.resume();
    }
  }
}

export interface Clock {
  arm(at: bigint): void;
  disarm(): void;
}

export interface SchedulerStats {
  readonly lateness: LatenessSummary;
  readonly sleeper: SleeperStats;
  readonly blockWindowUs: number;
}

export class DelayScheduler {
  private readonly lines = new Set<DelayLine>();
  private readonly lateness = new LatenessRecorder();
  private clock?: Clock;
  private flushing = false;
  private delays: Record<Direction, bigint> = { up: 0n, down: 0n };

  /**
   * @param blockWindowNs how close to a deadline the scheduler blocks the event loop (above the clock thread's
   * lateness).
   */
  constructor(
    private readonly sleeper = new PreciseSleeper(),
    private readonly blockWindowNs = 300_000n,
  ) {}

  attachClock(clock: Clock): void {
    this.clock = clock;
  }

  setDelays(upMs: number, downMs: number): void {
    this.delays = { up: BigInt(Math.round(upMs * 1e6)), down: BigInt(Math.round(downMs * 1e6)) };
  }

  get delaysMs(): { upMs: number; downMs: number } {
    return { upMs: Number(this.delays.up) / 1e6, downMs: Number(this.delays.down) / 1e6 };
  }

  connect(direction: Direction, source: Socket, dest: Socket): DelayLine {
    const line = new DelayLine(direction, source, dest);
    this.lines.add(line);
    source.on("data", (chunk: Buffer) => this.push(line, chunk));
    source.on("end", () => this.push(line, null));
    source.on("close", () => {
      line.sourceClosed = true;
      if (line.idle) this.lines.delete(line);
    });
    return line;
  }

  push(line: DelayLine, data: Buffer | null): void {
    const arrived = nowNs();
    const delay = this.delays[line.direction];
    if (delay === 0n && line.idle) {
      line.write(data);
      return;
    }
    line.enqueue(data, arrived, delay);
    this.flush();
  }

  flush(): void {
    if (this.flushing) return;
    this.flushing = true;
    try {
      const record = (us: number) => this.lateness.record(us);
      for (;;) {
        let earliest: bigint | undefined;
        for (const line of this.lines) {
          const due = line.nextDue;
          if (due !== undefined && (earliest === undefined || due < earliest)) earliest = due;
        }
        if (earliest === undefined) {
          this.clock?.disarm();
          return;
        }
        const remaining = earliest - nowNs();
        if (remaining <= 2_000n) {
          const limit = nowNs() + 2_000n;
          for (const line of this.lines) {
            line.deliverDue(limit, record);
            if (line.sourceClosed && line.idle) this.lines.delete(line);
          }
          continue;
        }
        if (remaining <= this.blockWindowNs || !this.clock) {
          this.sleeper.sleepUntil(earliest);
          continue;
        }
        this.clock.arm(earliest - this.blockWindowNs);
        return;
      }
    } finally {
      this.flushing = false;
    }
  }

  stats(): SchedulerStats {
    return {
      lateness: this.lateness.summary(),
      sleeper: this.sleeper.stats(),
      blockWindowUs: Number(this.blockWindowNs) / 1000,
    };
  }

  resetStats(): void {
    this.lateness.reset();
  }
}

/** A read-only client beside the load: one primary-key lookup on pgbench_accounts at a time, a fixed pause between
 * reads, each read's start and latency kept, so that a read the REINDEX holds up shows as a gap in the reads. */
import type { Client } from "pg";
import { performance } from "node:perf_hooks";
import { connect, endClient } from "../../../engines/postgres/connect";
import type { ConnectionInfo } from "../../../targets/types";
import { errorMessage } from "../../../runtime/error-message";
import { withTimeout } from "../../../runtime/timeout";

/** The statement the seed's own SELECT runs, but on a random row no transaction of this session has touched. */
export const READ_PROBE_SQL = "SELECT abalance FROM pgbench_accounts WHERE aid = $1";
/** pg_stat_activity tells it from pgbench's sessions and the lab's sampler. */
export const READ_PROBE_APP = "dblab-read-probe";
/** A read still waiting when the probe stops is given this long to finish before its connection is closed. */
const STOP_WAIT_MS = 5000;

/** Times in ms on the wall clock (Date.now(), as the REINDEX window); each read's start and latency, in order. */
export interface ReadProbeRecord {
  readonly pauseMs: number;
  /** The zero of `startMs`, `fromMs` and `toMs`: the epoch ms the probe counts from until shifted to the run's. */
  readonly zeroMs: number;
  /** While the probe was reading: from its first read to its stop (or its error). */
  readonly fromMs: number;
  readonly toMs: number;
  readonly startMs: readonly number[];
  readonly latencyMs: readonly number[];
  /** The first error; the probe stops reading at it. */
  readonly error?: string;
}

const round = (x: number, digits: number) => Math.round(x * 10 ** digits) / 10 ** digits;

/** The same record counted from another zero (the run's t0), times rounded to 0.01 ms, latencies to 1 µs. */
export function shiftedTo(r: ReadProbeRecord, zeroMs: number): ReadProbeRecord {
  const d = r.zeroMs - zeroMs;
  return {
    ...r,
    zeroMs,
    fromMs: round(r.fromMs + d, 2),
    toMs: round(r.toMs + d, 2),
    startMs: r.startMs.map((x) => round(x + d, 2)),
    latencyMs: r.latencyMs.map((x) => round(x, 3)),
  };
}

export class ReadProbe {
  private readonly startMs: number[] = [];
  private readonly latencyMs: number[] = [];
  private timer?: NodeJS.Timeout;
  private running?: Promise<void>;
  private stopped = false;
  private error?: string;
  private toMs?: number;
  // Wall clock once, then the monotonic clock: sub-ms latencies, and no step of the wall clock mid-run.
  private readonly zeroMs = Date.now();
  private readonly zeroPerf = performance.now();

  private constructor(
    private readonly client: Client,
    private readonly pauseMs: number,
    private readonly maxAid: number,
  ) {}

  /** Connected before it returns (its first read prepares the statement), so the load's start meets a reading probe. */
  static async start(connection: ConnectionInfo, pauseMs: number, maxAid: number): Promise<ReadProbe> {
    const client = await connect(connection, { applicationName: READ_PROBE_APP });
    const probe = new ReadProbe(client, pauseMs, maxAid);
    probe.loop();
    return probe;
  }

  private now(): number {
    return performance.now() - this.zeroPerf;
  }

  private loop(): void {
    if (this.stopped || this.error) return;
    const aid = 1 + Math.floor(Math.random() * this.maxAid);
    const began = this.now();
    this.running = this.client
      .query({ name: "dblab-read-probe", text: READ_PROBE_SQL, values: [aid] })
      .then(() => {
        this.startMs.push(began);
        this.latencyMs.push(this.now() - began);
      })
      .catch((error: unknown) => {
        // Kept, not thrown: a probe that fails says so in the run's notes and the run goes on without it.
        this.error ??= `read probe: ${errorMessage(error)}`;
        this.toMs ??= this.now();
      })
      .finally(() => {
        if (!this.stopped && !this.error) this.timer = setTimeout(() => this.loop(), this.pauseMs);
      });
  }

  /** Never throws; a read still waiting gets STOP_WAIT_MS, then the connection is closed under it. */
  async stop(): Promise<ReadProbeRecord> {
    if (!this.stopped) {
      this.stopped = true;
      this.toMs ??= this.now();
      if (this.timer) clearTimeout(this.timer);
      await withTimeout(this.running ?? Promise.resolve(), STOP_WAIT_MS, "a read still waiting").catch(
        (error: unknown) => {
          this.error ??= `read probe: stopped with ${errorMessage(error)}`;
        },
      );
      await endClient(this.client);
    }
    return {
      pauseMs: this.pauseMs,
      zeroMs: this.zeroMs,
      fromMs: this.startMs[0] ?? this.toMs ?? 0,
      toMs: this.toMs ?? 0,
      startMs: [...this.startMs],
      latencyMs: [...this.latencyMs],
      ...(this.error ? { error: this.error } : {}),
    };
  }
}

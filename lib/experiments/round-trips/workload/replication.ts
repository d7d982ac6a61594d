/** pg_stat_replication's view of the standbys: the write/flush/replay lags are their share of a synchronous commit. */
import type { Client } from "pg";
import { median } from "simple-statistics";
import { ignored } from "../../../runtime/debug";
import { groupBy } from "../../../stats/summary";

export const SYNC_LEVELS = ["off", "local", "remote_write", "on", "remote_apply"] as const;
export type SyncLevel = (typeof SYNC_LEVELS)[number];

interface StandbyState {
  readonly name: string;
  readonly state: string;
  readonly syncState: string;
  readonly writeLagMs: number | null;
  readonly flushLagMs: number | null;
  readonly replayLagMs: number | null;
}

async function standbyStates(admin: Client): Promise<StandbyState[]> {
  const lag = (what: string) => `(EXTRACT(epoch FROM ${what}_lag) * 1000)::float8 AS "${what}LagMs"`;
  const { rows } = await admin.query<StandbyState>(
    `SELECT application_name AS name, state, sync_state AS "syncState", ${["write", "flush", "replay"].map(lag).join(", ")}
       FROM pg_stat_replication ORDER BY application_name`,
  );
  return rows;
}

/** Waits until every standby has replayed all WAL so far: no replay overlaps a timed phase. */
export async function waitForReplay(admin: Client, timeoutMs = 60_000): Promise<void> {
  const { rows } = await admin.query<{ lsn: string }>("SELECT pg_current_wal_lsn()::text AS lsn");
  const lsn = rows[0].lsn;
  const deadline = Date.now() + timeoutMs;
  // A standby a round trip away replays a reset within milliseconds: look again soon, then less often.
  for (let pauseMs = 1; Date.now() < deadline; pauseMs = Math.min(2 * pauseMs, 20)) {
    const r = await admin.query<{ behind: string }>(
      "SELECT count(*) AS behind FROM pg_stat_replication WHERE replay_lsn IS NULL OR replay_lsn < $1::pg_lsn",
      [lsn],
    );
    if (Number(r.rows[0].behind) === 0) return;
    await new Promise((resolve) => setTimeout(resolve, pauseMs));
  }
  throw new Error(`standbys did not replay up to ${lsn} within ${timeoutMs} ms`);
}

export type LagSummary = ReturnType<typeof summariseLags>;

/** Samples pg_stat_replication's lag gauges during a phase, often enough to catch them (docs/claims-and-regimes.md). */
export class LagSampler {
  private readonly samples: StandbyState[][] = [];
  private timer?: NodeJS.Timeout;
  private busy = false;

  constructor(
    private readonly admin: Client,
    private readonly intervalMs = 10,
  ) {}

  start(): void {
    this.timer = setInterval(() => {
      if (this.busy) return;
      this.busy = true;
      standbyStates(this.admin)
        .then((s) => this.samples.push(s))
        .catch(ignored("round-trips: one sample of the standbys' lag (it is missed)"))
        .finally(() => (this.busy = false));
    }, this.intervalMs);
  }

  async stop(): Promise<LagSummary> {
    if (this.timer) clearInterval(this.timer);
    while (this.busy) await new Promise((r) => setTimeout(r, 5));
    // One last look: short phases may end between two ticks.
    this.samples.push(await standbyStates(this.admin));
    return summariseLags(this.samples);
  }
}

/** f of the finite values, null when there is none. */
const of = (f: (v: number[]) => number) => (values: (number | null)[]) => {
  const v = values.filter((x): x is number => x !== null && Number.isFinite(x));
  return v.length ? f(v) : null;
};
const med = of(median);
const minOf = of((v) => Math.min(...v));
const LAG_KEYS = ["writeLagMs", "flushLagMs", "replayLagMs"] as const;
type Lag = (typeof LAG_KEYS)[number];
const medianLags = (xs: readonly StandbyState[]) =>
  Object.fromEntries(LAG_KEYS.map((k) => [k, med(xs.map((x) => x[k]))])) as Record<Lag, number | null>;

export function summariseLags(samples: readonly (readonly StandbyState[])[]) {
  const perStandby = Object.fromEntries(
    [...groupBy(samples.flat(), (x) => x.name)].map(([name, states]) => [name, medianLags(states)]),
  );
  const fastest = (k: Lag) => med(samples.map((s) => minOf(s.map((x) => x[k]))));
  return {
    samples: samples.length,
    /** Samples in which a standby showed a flush lag (others found them idle). */
    caught: samples.filter((s) => s.some((x) => x.flushLagMs !== null)).length,
    perStandby,
    /** Median over samples of the fastest standby's lag: with ANY 1 the fastest one decides. */
    quorumWriteLagMs: fastest("writeLagMs"),
    quorumFlushLagMs: fastest("flushLagMs"),
    quorumReplayLagMs: fastest("replayLagMs"),
  };
}

/** pg_stat_replication's view of the standbys: the write/flush/replay lags are their share of a synchronous commit. */
import type { Client } from "pg";
import { median } from "simple-statistics";
import { ignored } from "../../../runtime/debug";

export const SYNC_LEVELS = ["off", "local", "remote_write", "on", "remote_apply"] as const;
export type SyncLevel = (typeof SYNC_LEVELS)[number];

export interface StandbyState {
  readonly name: string;
  readonly state: string;
  readonly syncState: string;
  readonly writeLagMs: number | null;
  readonly flushLagMs: number | null;
  readonly replayLagMs: number | null;
}

export async function standbyStates(admin: Client): Promise<StandbyState[]> {
  const { rows } = await admin.query<{
    name: string;
    state: string;
    sync_state: string;
    write_ms: number | null;
    flush_ms: number | null;
    replay_ms: number | null;
  }>(`SELECT application_name AS name, state, sync_state,
            EXTRACT(epoch FROM write_lag) * 1000 AS write_ms,
            EXTRACT(epoch FROM flush_lag) * 1000 AS flush_ms,
            EXTRACT(epoch FROM replay_lag) * 1000 AS replay_ms
       FROM pg_stat_replication ORDER BY application_name`);
  const num = (v: number | string | null) => (v === null ? null : Number(v));
  return rows.map((r) => ({
    name: r.name,
    state: r.state,
    syncState: r.sync_state,
    writeLagMs: num(r.write_ms),
    flushLagMs: num(r.flush_ms),
    replayLagMs: num(r.replay_ms),
  }));
}

/** Waits until every standby has replayed all WAL so far: no replay overlaps a timed phase. */
export async function waitForReplay(admin: Client, timeoutMs = 60_000): Promise<void> {
  const { rows } = await admin.query<{ lsn: string }>("SELECT pg_current_wal_lsn()::text AS lsn");
  const lsn = rows[0].lsn;
  const deadline = Date.now() + timeoutMs;
  while (Date.now() < deadline) {
    const r = await admin.query<{ behind: string }>(
      "SELECT count(*) AS behind FROM pg_stat_replication WHERE replay_lsn IS NULL OR replay_lsn < $1::pg_lsn",
      [lsn],
    );
    if (Number(r.rows[0].behind) === 0) return;
    await new Promise((resolve) => setTimeout(resolve, 20));
  }
  throw new Error(`standbys did not replay up to ${lsn} within ${timeoutMs} ms`);
}

export interface LagSummary {
  readonly samples: number;
  /** Samples in which a standby showed a flush lag (others found them idle). */
  readonly caught?: number;
  readonly perStandby: Readonly<
    Record<
      string,
      { readonly writeLagMs: number | null; readonly flushLagMs: number | null; readonly replayLagMs: number | null }
    >
  >;
  /** Median over samples of the fastest standby's flush lag: with ANY 1 the fastest one decides. */
  readonly quorumFlushLagMs: number | null;
  readonly quorumWriteLagMs: number | null;
  readonly quorumReplayLagMs: number | null;
}

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

const med = (values: (number | null)[]): number | null => {
  const v = values.filter((x): x is number => x !== null && Number.isFinite(x));
  return v.length ? median(v) : null;
};
const minOf = (values: (number | null)[]): number | null => {
  const v = values.filter((x): x is number => x !== null && Number.isFinite(x));
  return v.length ? Math.min(...v) : null;
};

export function summariseLags(samples: readonly (readonly StandbyState[])[]): LagSummary {
  const names = [...new Set(samples.flatMap((s) => s.map((x) => x.name)))];
  const perStandby: Record<
    string,
    { writeLagMs: number | null; flushLagMs: number | null; replayLagMs: number | null }
  > = {};
  for (const name of names) {
    const mine = samples.map((s) => s.find((x) => x.name === name)).filter((x): x is StandbyState => Boolean(x));
    perStandby[name] = {
      writeLagMs: med(mine.map((x) => x.writeLagMs)),
      flushLagMs: med(mine.map((x) => x.flushLagMs)),
      replayLagMs: med(mine.map((x) => x.replayLagMs)),
    };
  }
  return {
    samples: samples.length,
    caught: samples.filter((s) => s.some((x) => x.flushLagMs !== null)).length,
    perStandby,
    quorumWriteLagMs: med(samples.map((s) => minOf(s.map((x) => x.writeLagMs)))),
    quorumFlushLagMs: med(samples.map((s) => minOf(s.map((x) => x.flushLagMs)))),
    quorumReplayLagMs: med(samples.map((s) => minOf(s.map((x) => x.replayLagMs)))),
  };
}

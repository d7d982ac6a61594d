/** Who waits on what, a few times a second (pg_stat_activity, pg_locks, pg_stat_progress_create_index), and what
 * that tells: when pgbench's sessions were blocked on a lock, by whom, and the index build's phases. */
import { median } from "simple-statistics";
import { Client } from "pg";
import type { ConnectionInfo } from "../../../targets/types";
import { ignored } from "../../../runtime/debug";
import { handleErrors } from "../../../runtime/error-events";
import { postgresClientConfig } from "../../../targets/postgres-client";

/** waitType is null while running on CPU; query: whitespace collapsed, first 60 characters. */
export type SessionSample = { readonly pid: number; readonly app: string; readonly blockedBy: readonly number[] } & {
  readonly [k in "state" | "waitType" | "wait" | "lock"]: string | null;
} & { readonly query: string };

type IndexBuildSample = { readonly pid: number; readonly command: string; readonly phase: string } & {
  readonly index: string | null;
  readonly blocksDone: number;
  readonly blocksTotal: number;
};

/** t: the server's clock, Unix ms. */
export type ActivitySample = { readonly t: number; readonly sessions: readonly SessionSample[] } & {
  readonly builds: readonly IndexBuildSample[];
};

const SAMPLE_SQL = `
SELECT (extract(epoch FROM clock_timestamp()) * 1000)::float8 AS t,
  coalesce((
    SELECT json_agg(json_build_object(
      'pid', a.pid, 'app', a.application_name, 'state', a.state,
      'waitType', a.wait_event_type, 'wait', a.wait_event,
      'blockedBy', pg_blocking_pids(a.pid),
      'lock', (SELECT l.locktype || ' ' || coalesce(l.relation::regclass::text, l.virtualxid, l.transactionid::text, '') || ' ' || l.mode
               FROM pg_locks l WHERE l.pid = a.pid AND NOT l.granted LIMIT 1),
      'query', left(regexp_replace(a.query, '\\s+', ' ', 'g'), 60)) ORDER BY a.pid)
    FROM pg_stat_activity a
    WHERE a.datname = current_database() AND a.backend_type = 'client backend' AND a.pid <> pg_backend_pid()
  ), '[]'::json) AS sessions,
  coalesce((
    SELECT json_agg(json_build_object(
      'pid', p.pid, 'command', p.command, 'phase', p.phase, 'index', p.index_relid::regclass::text,
      'blocksDone', p.blocks_done, 'blocksTotal', p.blocks_total))
    FROM pg_stat_progress_create_index p WHERE p.datname = current_database()
  ), '[]'::json) AS builds
`;

export class ActivitySampler {
  private readonly samples: ActivitySample[] = [];
  private timer?: NodeJS.Timeout;
  private running?: Promise<void>;
  private stopped = false;
  /** stop() throws it. */
  error?: unknown;

  private constructor(
    private readonly client: Client,
    private readonly intervalMs: number,
  ) {}

  static async start(connection: ConnectionInfo, intervalMs: number): Promise<ActivitySampler> {
    // One round trip per sample from its own session; a lost connection ends sampling with that error.
    const client = new Client(postgresClientConfig(connection, { applicationName: "dblab-sampler" }));
    const sampler = new ActivitySampler(client, intervalMs);
    handleErrors(client, "activity sampler", (error) => {
      sampler.error ??= error;
    });
    await client.connect();
    // The sampler must not wait behind the locks it observes (catalog lookups for ::regclass).
    await client.query("SET lock_timeout = '100ms'");
    sampler.loop();
    return sampler;
  }

  private loop(): void {
    if (this.stopped) return;
    const began = Date.now();
    this.running = this.client
      .query<{ t: number; sessions: SessionSample[]; builds: IndexBuildSample[] }>(SAMPLE_SQL)
      .then((r) => {
        const row = r.rows[0];
        this.samples.push({ t: Number(row.t), sessions: row.sessions, builds: row.builds });
      })
      .catch((error: unknown) => {
        // A lock_timeout on one sample is a gap, not a failure; anything else ends sampling.
        if (!/lock timeout/i.test(String(error))) this.error = error;
      })
      .finally(() => {
        if (this.error || this.stopped) return;
        this.timer = setTimeout(() => this.loop(), Math.max(0, this.intervalMs - (Date.now() - began)));
      });
  }

  async stop(): Promise<ActivitySample[]> {
    this.stopped = true;
    if (this.timer) clearTimeout(this.timer);
    await this.running;
    await this.client.end().catch(ignored("reindex: end the activity sampler's client"));
    if (this.error)
      throw this.error instanceof Error ? this.error : new Error("the activity sampler failed", { cause: this.error });
    return this.samples;
  }
}

export type Span = { readonly startMs: number; readonly endMs: number };
/** maxSessions: most sessions waiting on a lock at once in the interval. */
export type BlockedInterval = Span & { readonly maxSessions: number; readonly lock: string | null };
export type IndexBuildPhase = Span & { readonly index: string | null; readonly phase: string };

/** Seconds: blocked, at least one pgbench session blocked; allBlocked, every one at once (throughput zero);
 * lockWaitSession, Σ sessions waiting × spacing; blockedByReindex, waiting on a lock the REINDEX holds or wants. */
export type LockTimeline = ReturnType<typeof lockTimeline>;

/** Waiting for a table or index lock, or for anything the REINDEX session holds or queues for (row locks between
 * pgbench's own clients are ordinary contention, in the baseline too). */
const isBlocked = (s: SessionSample, pid?: number) =>
  s.waitType === "Lock" && (s.wait === "relation" || (pid !== undefined && s.blockedBy.includes(pid)));
const waitKey = (s: SessionSample) =>
  s.waitType ? `${s.waitType}:${s.wait}` : s.state === "active" ? "CPU" : (s.state ?? "unknown");

/** Most counted first. */
const byCount = (counts: Map<string, number>) => [...counts.entries()].sort((a, b) => b[1] - a[1]);
function shares(counts: Map<string, number>): Record<string, number> {
  const total = [...counts.values()].reduce((a, b) => a + b, 0);
  return Object.fromEntries(byCount(counts).map(([k, v]) => [k, total ? v / total : 0]));
}

const bump = (m: Map<string, number>, k: string) => m.set(k, (m.get(k) ?? 0) + 1);

export function lockTimeline(samples: readonly ActivitySample[], clientApp = "pgbench", reindexPid?: number) {
  const spacing = samples.length > 1 ? median(samples.slice(1).map((s, i) => s.t - samples[i].t)) : 0;
  const [waits, reindexWaits, locks] = [0, 1, 2].map(() => new Map<string, number>());
  const intervals: BlockedInterval[] = [];
  const perSample: { t: number; sessions: number; lockWaiting: number }[] = [];
  let [allBlocked, byReindex, sessionWait] = [0, 0, 0];
  let open: { startMs: number; lastMs: number; max: number; locks: Map<string, number> } | undefined;
  const close = () => {
    if (!open) return;
    const lock = byCount(open.locks)[0]?.[0] ?? null;
    intervals.push({ startMs: open.startMs, endMs: open.lastMs + spacing, maxSessions: open.max, lock });
    open = undefined;
  };
  const phases: IndexBuildPhase[] = [];
  for (const sample of samples) {
    const clients = sample.sessions.filter((s) => s.app === clientApp);
    const waiting = clients.filter((s) => isBlocked(s, reindexPid));
    for (const s of clients) bump(waits, waitKey(s));
    for (const s of waiting) if (s.lock) bump(locks, s.lock);
    const reindex = reindexPid === undefined ? undefined : sample.sessions.find((s) => s.pid === reindexPid);
    if (reindex && reindex.state === "active") bump(reindexWaits, waitKey(reindex));
    perSample.push({ t: sample.t, sessions: clients.length, lockWaiting: waiting.length });
    sessionWait += waiting.length * spacing;
    if (waiting.length > 0 && clients.length > 0 && waiting.length === clients.length) allBlocked += spacing;
    if (reindexPid !== undefined && waiting.some((s) => s.blockedBy.includes(reindexPid))) byReindex += spacing;
    if (waiting.length === 0) close();
    else {
      open ??= { startMs: sample.t, lastMs: sample.t, max: 0, locks: new Map() };
      open.lastMs = sample.t;
      open.max = Math.max(open.max, waiting.length);
      for (const s of waiting) if (s.lock) bump(open.locks, s.lock);
    }
    for (const b of sample.builds) {
      const last = phases.at(-1);
      if (last && last.phase === b.phase && last.index === b.index)
        phases[phases.length - 1] = { ...last, endMs: sample.t + spacing };
      else phases.push({ index: b.index, phase: b.phase, startMs: sample.t, endMs: sample.t + spacing });
    }
  }
  close();
  return {
    samples: samples.length,
    intervalMs: spacing,
    intervals,
    blockedSeconds: intervals.reduce((a, i) => a + (i.endMs - i.startMs), 0) / 1000,
    allBlockedSeconds: allBlocked / 1000,
    lockWaitSessionSeconds: sessionWait / 1000,
    blockedByReindexSeconds: byReindex / 1000,
    waitShares: shares(waits),
    reindexWaitShares: shares(reindexWaits),
    locks: Object.fromEntries(byCount(locks)),
    phases,
    perSample,
  };
}

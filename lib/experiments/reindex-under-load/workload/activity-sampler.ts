/**
 * Who waits on what, a few times a second, from pg_stat_activity, pg_locks and
 * pg_stat_progress_create_index: one round trip per sample from its own session, so the sampler
 * never queues behind the locks it observes.
 */
import { Client } from "pg";
import type { ConnectionInfo } from "../../../targets/types";
import { ignored } from "../../../runtime/debug";
import { handleErrors } from "../../../runtime/error-events";
import { postgresClientConfig } from "../../../targets/postgres-client";

export interface SessionSample {
  readonly pid: number;
  readonly app: string;
  readonly state: string | null;
  /** Null while running on CPU. */
  readonly waitType: string | null;
  readonly wait: string | null;
  readonly blockedBy: readonly number[];
  readonly lock: string | null;
  /** Whitespace collapsed, first 60 characters. */
  readonly query: string;
}

export interface IndexBuildSample {
  readonly pid: number;
  readonly command: string;
  readonly phase: string;
  readonly index: string | null;
  readonly blocksDone: number;
  readonly blocksTotal: number;
}

export interface ActivitySample {
  /** Server clock, Unix ms. */
  readonly t: number;
  readonly sessions: readonly SessionSample[];
  readonly builds: readonly IndexBuildSample[];
}

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
    const client = new Client(postgresClientConfig(connection, { applicationName: "dblab-sampler" }));
    // A lost connection ends sampling with that error: the run's failure path.
    let lost: Error | undefined;
    const started: { sampler?: ActivitySampler } = {};
    handleErrors(client, "activity sampler", (error) => {
      lost = error;
      if (started.sampler) started.sampler.error ??= error;
    });
    await client.connect();
    // The sampler must not wait behind the locks it observes (catalog lookups for ::regclass).
    await client.query("SET lock_timeout = '100ms'");
    const sampler = new ActivitySampler(client, intervalMs);
    started.sampler = sampler;
    if (lost) sampler.error = lost;
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

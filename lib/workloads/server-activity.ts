/**
 * What a long server-side statement is doing, for the progress line, so a stalled run is told from
 * a busy one: read every ACTIVITY_MS on its own connection, from PostgreSQL's progress views where
 * one covers the statement, else the WAL written since it was first seen.
 */
import { durationText } from "../stats/format";
import { Client } from "pg";
import type { StartedServer } from "../targets/types";
import { ENGINE_FACTS } from "../targets/engines";
import { handleErrors } from "../runtime/error-events";
import { ignored } from "../runtime/debug";
import { postgresClientConfig } from "../targets/postgres-client";

export const ACTIVITY_MS = 15_000;

interface ActivityRow {
  readonly pid: number;
  readonly query_start: Date;
  readonly seconds: number;
  readonly query: string;
  readonly wal_lsn_bytes: string;
  readonly ci_phase: string | null;
  readonly blocks_done: string | null;
  readonly blocks_total: string | null;
  readonly tuples_done: string | null;
  readonly tuples_total: string | null;
  readonly copy_tuples: string | null;
  readonly copy_bytes: string | null;
  readonly copy_bytes_total: string | null;
  readonly vacuum_phase: string | null;
  readonly heap_scanned: string | null;
  readonly heap_total: string | null;
}

/** The lab's probes are left out; its admin connections ("dblab-admin") are the work and stay in. */
const PROBES = [
  "dblab-activity",
  "dblab-watchdog",
  "dblab-speed-probe",
  "dblab-metadata",
  "dblab-wal-hold",
  "dblab-sampler",
];

const ACTIVITY_SQL = `
SELECT a.pid, a.query_start, extract(epoch FROM clock_timestamp() - a.query_start)::float8 AS seconds,
       left(regexp_replace(a.query, '\\s+', ' ', 'g'), 60) AS query,
       (pg_current_wal_lsn() - '0/0'::pg_lsn)::text AS wal_lsn_bytes,
       ci.phase AS ci_phase, ci.blocks_done::text, ci.blocks_total::text, ci.tuples_done::text, ci.tuples_total::text,
       cp.tuples_processed::text AS copy_tuples, cp.bytes_processed::text AS copy_bytes, cp.bytes_total::text AS copy_bytes_total,
       v.phase AS vacuum_phase, v.heap_blks_scanned::text AS heap_scanned, v.heap_blks_total::text AS heap_total
FROM pg_stat_activity a
LEFT JOIN pg_stat_progress_create_index ci ON ci.pid = a.pid
LEFT JOIN pg_stat_progress_copy cp ON cp.pid = a.pid
LEFT JOIN pg_stat_progress_vacuum v ON v.pid = a.pid
WHERE a.state = 'active' AND a.backend_type = 'client backend' AND a.pid <> pg_backend_pid()
  AND coalesce(a.application_name, '') NOT IN (${PROBES.map((n) => `'${n}'`).join(", ")})
ORDER BY a.query_start
LIMIT 1`;

function bytes(n: number): string {
  if (n >= 2 ** 30) return `${(n / 2 ** 30).toFixed(2)} GiB`;
  if (n >= 2 ** 20) return `${(n / 2 ** 20).toFixed(0)} MiB`;
  return `${(n / 1024).toFixed(0)} KiB`;
}

function share(done: string | null, total: string | null): string | undefined {
  const d = Number(done);
  const t = Number(total);
  if (!Number.isFinite(d) || !Number.isFinite(t) || t <= 0) return undefined;
  return `${Math.min(100, Math.round((d / t) * 100))} %`;
}

const duration = (seconds: number): string => durationText(seconds);

/** One reader per watched piece of work: where the WAL was when it first saw a statement. */
export class ActivityReader {
  private firstSeen = new Map<string, { readonly lsn: bigint; readonly at: number }>();

  constructor(private readonly server: StartedServer) {}

  /** e.g. "CREATE INDEX: building index: loading tuples in tree 45 % · 2 min 10 s". */
  async read(timeoutMs: number): Promise<string | undefined> {
    if (!ENGINE_FACTS[this.server.engine].postgresCatalog) return undefined;
    const client = new Client({
      ...postgresClientConfig(this.server.connection, {
        applicationName: "dblab-activity",
        connectionTimeoutMillis: timeoutMs,
      }),
      query_timeout: timeoutMs,
    });
    handleErrors(client, "activity reader");
    try {
      await client.connect();
      const { rows } = await client.query<ActivityRow>(ACTIVITY_SQL);
      const row = rows.at(0);
      if (!row) return undefined;
      return this.describe(row);
    } finally {
      // Not awaited: ending a connection to a server that stopped answering waits as long as it does.
      client.end().catch(ignored("activity: end the reader's client"));
    }
  }

  describe(row: ActivityRow): string {
    const parts: string[] = [];
    if (row.ci_phase) {
      // Each phase moves its own counter; the sort in between moves neither (a share would read "0 %").
      const of = /scanning/.test(row.ci_phase)
        ? share(row.blocks_done, row.blocks_total)
        : /loading tuples/.test(row.ci_phase)
          ? share(row.tuples_done, row.tuples_total)
          : undefined;
      parts.push(`CREATE INDEX: ${row.ci_phase}${of ? ` ${of}` : ""}`);
    } else if (row.copy_tuples !== null) {
      const of = share(row.copy_bytes, row.copy_bytes_total);
      parts.push(
        `COPY: ${Number(row.copy_tuples).toLocaleString("en-US")} rows, ${bytes(Number(row.copy_bytes))}${of ? ` (${of})` : ""}`,
      );
    } else if (row.vacuum_phase) {
      const of = share(row.heap_scanned, row.heap_total);
      parts.push(`VACUUM: ${row.vacuum_phase}${of ? ` ${of}` : ""}`);
    } else {
      const key = `${row.pid} ${row.query_start.toISOString()}`;
      const lsn = BigInt(row.wal_lsn_bytes);
      const first = this.firstSeen.get(key);
      if (first === undefined) this.firstSeen.set(key, { lsn, at: Date.now() });
      const seconds = first === undefined ? 0 : (Date.now() - first.at) / 1000;
      const wal = first === undefined ? 0 : Number(lsn - first.lsn);
      const written =
        seconds > 0 ? ` · ${bytes(wal)} of WAL in the last ${duration(seconds)} (${bytes(wal / seconds)}/s)` : "";
      parts.push(`${row.query}${row.query.length >= 60 ? "…" : ""}${written}`);
    }
    parts.push(`running ${duration(row.seconds)}`);
    return parts.join(" · ");
  }
}

/**
 * Runs `work`, showing what the server does every `intervalMs`; `onAnswer` feeds the watchdog. The reads never fail the
 * work.
 */
export async function withActivity<T>(
  server: StartedServer | undefined,
  say: ((line: string) => void) | undefined,
  work: () => Promise<T>,
  options: {
    readonly intervalMs?: number;
    readonly onAnswer?: () => void;
    readonly quiet?: () => boolean;
    /** Ends the reads before `work` settles (stalled work may never settle). */
    readonly stop?: AbortSignal;
  } = {},
): Promise<T> {
  if (!server || !say || !ENGINE_FACTS[server.engine].postgresCatalog) return work();
  const reader = new ActivityReader(server);
  const intervalMs = options.intervalMs ?? ACTIVITY_MS;
  let reading = false;
  let done = false;
  const timer = setInterval(() => {
    if (reading) return;
    reading = true;
    reader
      .read(Math.min(10_000, intervalMs))
      .then((line) => {
        options.onAnswer?.();
        if (line && !done && !options.quiet?.()) say(line);
      })
      .catch(ignored("activity: read what the server is doing"))
      .finally(() => (reading = false));
  }, intervalMs);
  timer.unref();
  options.stop?.addEventListener("abort", () => clearInterval(timer), { once: true });
  try {
    return await work();
  } finally {
    done = true;
    clearInterval(timer);
  }
}

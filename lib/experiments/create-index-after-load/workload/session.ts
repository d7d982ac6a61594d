/**
 * One PostgreSQL session that runs a trial's statements and times each phase, with the server's
 * counters before and after it and the statement's own report (CPU, file-system blocks, sort trace).
 */
import type { Client } from "pg";
import { autovacuumRuns } from "../../../engines/postgres/autovacuum";
import { connect, endClient } from "../../../engines/postgres/connect";
import {
  isPgServerCounterKey,
  serverCounters,
  type PgServerCounterKey,
} from "../../../engines/postgres/server-counters";
import { counterDelta, type Counters } from "../../../stats/counters";
import type { ConnectionInfo } from "../../../targets/types";
import {
  parseBackendUsage,
  parseSortTrace,
  type BackendUsage,
  type ServerNotice,
  type SortReport,
} from "./statement-log";

export const PHASES = ["load", "index", "checkpoint"] as const;
export type PhaseName = (typeof PHASES)[number];

/** A phase's counters: the whole server's, and autovacuum runs (to flag a window that had one). */
export type CreateIndexCounterKey = PgServerCounterKey | "autovacuum.runs";
export const isCreateIndexCounterKey = (name: string): name is CreateIndexCounterKey =>
  name === "autovacuum.runs" || isPgServerCounterKey(name);
/** A trial's counters, every phase's in one record: `<phase>.<counter>` ("index.wal.records"). */
export type CreateIndexTrialCounterKey = `${PhaseName}.${CreateIndexCounterKey}`;

export interface PhaseRecord {
  readonly phase: PhaseName;
  /** Wall time of the statement as the client saw it, ms. */
  readonly ms: number;
  /** WAL the statement inserted: the insert position's advance, bytes. */
  readonly walBytes: number;
  readonly startLsn: string;
  readonly endLsn: string;
  /** The backend's getrusage() over the statement (log_statement_stats). */
  readonly backend?: BackendUsage;
  /** The index sort's trace (trace_sort), for CREATE INDEX phases. */
  readonly sort?: SortReport;
}

export interface PhaseResult {
  readonly record: PhaseRecord;
  /** Server counters after − before (after the settle pause). */
  readonly counters: Counters<CreateIndexCounterKey>;
}

const sleep = (ms: number) => new Promise<void>((resolve) => setTimeout(resolve, ms));

export class TrialSession {
  private capture: ServerNotice[] | undefined;

  private constructor(readonly client: Client) {
    client.on("notice", (notice) => {
      this.capture?.push({
        severity: notice.severity,
        message: notice.message ?? "",
        detail: notice.detail,
        where: notice.where,
      });
    });
  }

  static async open(connection: ConnectionInfo): Promise<TrialSession> {
    return new TrialSession(await connect(connection));
  }

  async query<R extends object = Record<string, unknown>>(sql: string, values?: readonly unknown[]): Promise<R[]> {
    const result = await this.client.query<R>(sql, values as unknown[] | undefined);
    // A multi-statement string yields one result per statement: the last one is the answer.
    const last = Array.isArray(result) ? (result as { rows: R[] }[]).at(-1) : result;
    return last?.rows ?? [];
  }

  /** The server's counters plus autovacuum runs ("autovacuum.runs"), to flag a window that had one. */
  async counters(): Promise<Counters<CreateIndexCounterKey>> {
    const server = await serverCounters(this.client);
    return { ...server, "autovacuum.runs": await autovacuumRuns(this.client) };
  }

  async walInsertLsn(): Promise<string> {
    const [row] = await this.query<{ lsn: string }>("SELECT pg_current_wal_insert_lsn()::text AS lsn");
    return row.lsn;
  }

  /**
   * Runs one timed statement. The LOG-level reports are switched on around it only (untimed), so
   * the counter queries around it stay quiet; `settleMs` lets the WAL writer, background writer
   * and checkpointer publish what the statement left them before the counters are read.
   */
  async phase(
    phase: PhaseName,
    sql: string,
    options: { readonly settleMs: number; readonly traceSort?: boolean },
  ): Promise<PhaseResult> {
    const before = await this.counters();
    const startLsn = await this.walInsertLsn();
    await this.client.query(
      `SET log_statement_stats = on; SET client_min_messages = log${options.traceSort ? "; SET trace_sort = on" : ""}`,
    );
    const notices: ServerNotice[] = [];
    this.capture = notices;
    const t0 = process.hrtime.bigint();
    try {
      await this.client.query(sql);
    } finally {
      this.capture = undefined;
    }
    const ms = Number(process.hrtime.bigint() - t0) / 1e6;
    await this.client.query("RESET log_statement_stats; RESET client_min_messages; RESET trace_sort");
    const endLsn = await this.walInsertLsn();
    const [wal] = await this.query<{ bytes: string }>("SELECT pg_wal_lsn_diff($1::pg_lsn, $2::pg_lsn)::text AS bytes", [
      endLsn,
      startLsn,
    ]);
    if (options.settleMs > 0) await sleep(options.settleMs);
    const after = await this.counters();
    return {
      record: {
        phase,
        ms,
        walBytes: Number(wal.bytes),
        startLsn,
        endLsn,
        backend: parseBackendUsage(notices),
        sort: options.traceSort ? parseSortTrace(notices) : undefined,
      },
      counters: counterDelta(before, after),
    };
  }

  /** Bounded: after a failure its server may be on a host that no longer answers (see endClient). */
  async close(): Promise<void> {
    await endClient(this.client);
  }
}

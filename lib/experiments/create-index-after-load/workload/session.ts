/** The session that times a trial's phases, with the server's counters around each and its own report (CPU, sort). */
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
import { INDEX, TABLE } from "./sql";
import {
  parseBackendUsage,
  parseSortTrace,
  type BackendUsage,
  type ServerNotice,
  type SortReport,
} from "./statement-log";

export const PHASES = ["load", "index", "checkpoint"] as const;
export type PhaseName = (typeof PHASES)[number];

export type CreateIndexCounterKey = PgServerCounterKey | "autovacuum.runs";
export const isCreateIndexCounterKey = (name: string): name is CreateIndexCounterKey =>
  name === "autovacuum.runs" || isPgServerCounterKey(name);
/** "index.wal.records" */
export type CreateIndexTrialCounterKey = `${PhaseName}.${CreateIndexCounterKey}`;

/** pgstatindex()'s columns: leaf density and fragmentation tell a bottom-up build from a tree grown by splits. */
const SHAPE_COLUMNS = {
  treeLevel: "tree_level",
  indexBytes: "index_size",
  tableBytes: "table_bytes",
  leafPages: "leaf_pages",
  internalPages: "internal_pages",
  emptyPages: "empty_pages",
  deletedPages: "deleted_pages",
  avgLeafDensity: "avg_leaf_density",
  leafFragmentation: "leaf_fragmentation",
} as const;
export type IndexShape = Readonly<Record<keyof typeof SHAPE_COLUMNS, number>>;
export const SHAPE_FIELDS = Object.keys(SHAPE_COLUMNS) as (keyof IndexShape)[];

export type WalRecordType = Awaited<ReturnType<TrialSession["walRecordTypes"]>>[number];

export interface PhaseRecord {
  readonly phase: PhaseName;
  readonly ms: number;
  readonly walBytes: number;
  readonly startLsn: string;
  readonly endLsn: string;
  readonly backend?: BackendUsage;
  readonly sort?: SortReport;
}

export interface PhaseResult {
  readonly record: PhaseRecord;
  readonly counters: Counters<CreateIndexCounterKey>;
}

export const sleep = (ms: number) => new Promise<void>((resolve) => setTimeout(resolve, ms));

export class TrialSession {
  private capture: ServerNotice[] | undefined;

  private constructor(readonly client: Client) {
    client.on("notice", (n) =>
      this.capture?.push({ severity: n.severity, message: n.message ?? "", detail: n.detail, where: n.where }),
    );
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

  async counters(): Promise<Counters<CreateIndexCounterKey>> {
    return { ...(await serverCounters(this.client)), "autovacuum.runs": await autovacuumRuns(this.client) };
  }

  async walInsertLsn(): Promise<string> {
    return (await this.query<{ lsn: string }>("SELECT pg_current_wal_insert_lsn()::text AS lsn"))[0].lsn;
  }

  /** The reports are on around the statement only; `settleMs` lets the WAL writer and checkpointer publish. */
  async phase(
    phase: PhaseName,
    sql: string,
    o: { readonly settleMs: number; readonly traceSort?: boolean },
  ): Promise<PhaseResult> {
    const before = await this.counters();
    const startLsn = await this.walInsertLsn();
    await this.client.query(
      `SET log_statement_stats = on; SET client_min_messages = log${o.traceSort ? "; SET trace_sort = on" : ""}`,
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
    if (o.settleMs > 0) await sleep(o.settleMs);
    const after = await this.counters();
    const backend = parseBackendUsage(notices);
    const sort = o.traceSort ? parseSortTrace(notices) : undefined;
    return {
      record: { phase, ms, walBytes: Number(wal.bytes), startLsn, endLsn, backend, sort },
      counters: counterDelta(before, after),
    };
  }

  async indexShape(): Promise<IndexShape> {
    const [row] = await this.query<Record<string, string | number>>(
      `SELECT s.*, pg_relation_size('${TABLE}') AS table_bytes FROM pgstatindex('${INDEX}') AS s`,
    );
    return Object.fromEntries(SHAPE_FIELDS.map((k) => [k, Number(row[SHAPE_COLUMNS[k]])])) as IndexShape;
  }

  /** The caller holds the WAL (WalHold). */
  async walRecordTypes(startLsn: string, endLsn: string) {
    const rows = await this.query<Record<string, string | number>>(
      `SELECT "resource_manager/record_type" AS type, count, record_size, fpi_size
         FROM pg_get_wal_stats($1::pg_lsn, $2::pg_lsn, true) WHERE count > 0 ORDER BY count DESC`,
      [startLsn, endLsn],
    );
    return rows.map((r) => ({
      type: String(r.type),
      count: Number(r.count),
      recordBytes: Number(r.record_size),
      fpiBytes: Number(r.fpi_size),
    }));
  }

  /** Bounded: after a failure its server may be on a host that no longer answers (see endClient). */
  async close(): Promise<void> {
    await endClient(this.client);
  }
}

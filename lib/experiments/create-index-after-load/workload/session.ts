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
import type { ConnectionInfo, TargetKind } from "../../../targets/types";
import { NewChildren, readCommandLine, readParentPid, readSchedStat } from "../../../results/run-queue";
import { timed } from "../../../workloads/timed";
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
  readonly runQueue?: RunQueueUsage;
}

/** Over the statement, from /proc/<pid>/schedstat: the backend's and its parallel workers' own. */
export interface RunQueueUsage {
  readonly waitS: number;
  readonly cpuS: number;
  readonly workerWaitS: number;
  readonly workerCpuS: number;
  readonly workers: number;
}

/** The backend's pid in this host's /proc, or why there is none. */
async function hostPid(client: Client, kind: TargetKind): Promise<number | string> {
  if (kind === "docker") return "the server runs in Docker: its backend's pid is the container's, not this host's";
  if (kind === "external") return "the server is external: its processes are not on this machine";
  const [{ pid }] = (await client.query<{ pid: number }>("SELECT pg_backend_pid() AS pid")).rows;
  const own = readCommandLine(pid)?.startsWith("postgres") && readSchedStat(pid);
  return own ? pid : `this host's /proc/${pid}/schedstat is not the backend's (or Linux keeps none)`;
}

/** Often enough that a worker exiting between polls loses little of its wait. */
const WORKER_POLL_MS = 20;

export interface PhaseResult {
  readonly record: PhaseRecord;
  readonly counters: Counters<CreateIndexCounterKey>;
}

export const sleep = (ms: number) => new Promise<void>((resolve) => setTimeout(resolve, ms));

/**
 * A trial's seconds outside the seed's timed statements, by part (the run's time account sums every `…Seconds`):
 * writeBack is the closing CHECKPOINT phase and emptyIndex B's CREATE INDEX on the empty table, timed but not the
 * seed's measure; counters are the reads and settings around each phase; buildTable the build sweep's one load.
 */
export type SetupPart =
  | "speed"
  | "recreate"
  | "checkpoint"
  | "settle"
  | "counters"
  | "writeBack"
  | "emptyIndex"
  | "shape"
  | "walDecoding"
  | "buildTable";
export type SetupSeconds = Partial<Record<`${SetupPart}Seconds`, number>>;

export class SetupClock {
  private readonly seconds: Partial<Record<SetupPart, number>> = {};

  add(part: SetupPart, seconds: number): void {
    this.seconds[part] = (this.seconds[part] ?? 0) + seconds;
  }

  async time<T>(part: SetupPart, f: () => Promise<T>): Promise<T> {
    const [value, seconds] = await timed(f);
    this.add(part, seconds);
    return value;
  }

  record(): SetupSeconds {
    return Object.fromEntries(Object.entries(this.seconds).map(([part, s]) => [`${part}Seconds`, s]));
  }
}

export class TrialSession {
  private capture: ServerNotice[] | undefined;

  private constructor(
    readonly client: Client,
    /** A pid: the backend's on this host; a string: why its run-queue wait is not measured. */
    readonly backendPid: number | string,
  ) {
    client.on("notice", (n) =>
      this.capture?.push({ severity: n.severity, message: n.message ?? "", detail: n.detail, where: n.where }),
    );
  }

  static async open(connection: ConnectionInfo, kind: TargetKind): Promise<TrialSession> {
    const client = await connect(connection);
    try {
      return new TrialSession(client, await hostPid(client, kind));
    } catch (e) {
      await endClient(client);
      throw e;
    }
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
    o: { readonly settleMs: number; readonly traceSort?: boolean; readonly clock?: SetupClock },
  ): Promise<PhaseResult> {
    const phaseStart = process.hrtime.bigint();
    const countersBefore = await this.counters();
    const startLsn = await this.walInsertLsn();
    await this.client.query(
      `SET log_statement_stats = on; SET client_min_messages = log${o.traceSort ? "; SET trace_sort = on" : ""}`,
    );
    const notices: ServerNotice[] = [];
    this.capture = notices;
    const pid = typeof this.backendPid === "number" ? this.backendPid : undefined;
    const postmaster = pid === undefined ? undefined : readParentPid(pid);
    const workers =
      postmaster === undefined
        ? undefined
        : new NewChildren(postmaster, (cmd) => cmd.includes(`parallel worker for PID ${pid}`), WORKER_POLL_MS);
    const before = pid === undefined ? undefined : readSchedStat(pid);
    const t0 = process.hrtime.bigint();
    try {
      await this.client.query(sql);
    } finally {
      this.capture = undefined;
    }
    const ms = Number(process.hrtime.bigint() - t0) / 1e6;
    const after = pid === undefined ? undefined : readSchedStat(pid);
    const ran = workers?.stop() ?? [];
    const sum = (f: (x: (typeof ran)[number]) => number) => ran.reduce((a, x) => a + f(x), 0) / 1e9;
    const runQueue: RunQueueUsage | undefined =
      before && after
        ? {
            waitS: (after.waitNs - before.waitNs) / 1e9,
            cpuS: (after.cpuNs - before.cpuNs) / 1e9,
            workerWaitS: sum((x) => x.waitNs),
            workerCpuS: sum((x) => x.cpuNs),
            workers: ran.length,
          }
        : undefined;
    await this.client.query("RESET log_statement_stats; RESET client_min_messages; RESET trace_sort");
    const endLsn = await this.walInsertLsn();
    const [wal] = await this.query<{ bytes: string }>("SELECT pg_wal_lsn_diff($1::pg_lsn, $2::pg_lsn)::text AS bytes", [
      endLsn,
      startLsn,
    ]);
    const [, settleSeconds] = await timed(() => (o.settleMs > 0 ? sleep(o.settleMs) : Promise.resolve()));
    const countersAfter = await this.counters();
    const phaseSeconds = Number(process.hrtime.bigint() - phaseStart) / 1e9;
    o.clock?.add("settle", settleSeconds);
    o.clock?.add("counters", phaseSeconds - settleSeconds - ms / 1000);
    const backend = parseBackendUsage(notices);
    const sort = o.traceSort ? parseSortTrace(notices) : undefined;
    return {
      record: { phase, ms, walBytes: Number(wal.bytes), startLsn, endLsn, backend, sort, runQueue },
      counters: counterDelta(countersBefore, countersAfter),
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

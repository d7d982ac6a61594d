/** The session that times a trial's phases, with the server's counters around each and its own report (CPU, sort). */
import { setTimeout as sleep } from "node:timers/promises";
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
import { SetupClock, timed } from "../../../workloads/timed";
import { walRecordsBetween } from "../../../engines/postgres/wal-records";
import { INDEX, TABLE } from "./sql";

/** log_statement_stats' and trace_sort's LOG notices, alike on every target; a parallel worker's via its leader. */
export interface ServerNotice {
  readonly message: string;
  readonly detail?: string;
  readonly where?: string;
}

export type BackendUsage = NonNullable<ReturnType<typeof parseBackendUsage>>;
export type SortReport = NonNullable<ReturnType<typeof parseSortTrace>>;

const USAGE = /([\d.]+) s user, ([\d.]+) s system, ([\d.]+) s elapsed/;
const BLOCKS = /(\d+)\/(\d+) \[\d+\/\d+\] filesystem blocks in\/out/;
const SWITCHES = /(\d+)\/(\d+) \[\d+\/\d+\] voluntary\/involuntary context switches/;

/** getrusage deltas; file-system blocks are 512-byte units on Linux. */
export function parseBackendUsage(notices: readonly ServerNotice[]) {
  const detail = notices.filter((n) => n.message === "QUERY STATISTICS" && n.detail).at(-1)?.detail;
  const usage = detail ? USAGE.exec(detail) : null;
  if (!detail || !usage) return undefined;
  const blocks = BLOCKS.exec(detail);
  const switches = SWITCHES.exec(detail);
  return {
    userS: Number(usage[1]),
    systemS: Number(usage[2]),
    elapsedS: Number(usage[3]),
    fsBlocksIn: blocks ? Number(blocks[1]) : 0,
    fsBlocksOut: blocks ? Number(blocks[2]) : 0,
    voluntarySwitches: switches ? Number(switches[1]) : 0,
    involuntarySwitches: switches ? Number(switches[2]) : 0,
  };
}

const SORT_END = /(?:parallel )?(external|internal) sort of worker (-?\d+) ended, (\d+) (disk blocks|KB) used/;
const PERFORMSORT = /performsort of worker (\d+) starting/;
const CPU = /CPU: user: ([\d.]+) s, system: ([\d.]+) s/;
const RUN_WRITTEN = /worker (-?\d+) finished writing run (\d+) to tape/;
const MILESTONE =
  /begin index sort|switching to external sort|sort of worker -?\d+ ended|starting merge pass|performsort of worker -?\d+ done/;

export function parseSortTrace(notices: readonly ServerNotice[]) {
  const messages = notices.map((n) => n.message);
  const ends = messages.map((m) => SORT_END.exec(m)).filter((m): m is RegExpExecArray => m !== null);
  if (!ends.length) return undefined;
  const participants = new Set(messages.map((m) => PERFORMSORT.exec(m)?.[1]).filter((w) => w !== undefined));
  // The leader (worker -1) reports the whole sort; a serial sort has only the leader.
  const leader = ends.filter((e) => e[2] === "-1").at(-1);
  const relevant = leader ? [leader] : ends;
  const sum = (unit: string) => relevant.filter((e) => e[4] === unit).reduce((a, e) => a + Number(e[3]), 0);
  const runs = new Map<string, number>();
  for (const r of messages.map((m) => RUN_WRITTEN.exec(m)))
    if (r) runs.set(r[1], Math.max(runs.get(r[1]) ?? 0, Number(r[2])));
  const maxRuns = Math.max(0, ...runs.values());
  // The leader's CPU is in its getrusage().
  let workerCpuS = 0;
  for (const n of notices) {
    const cpu = SORT_END.test(n.message) && n.where?.includes("parallel worker") ? CPU.exec(n.message) : null;
    if (cpu) workerCpuS += Number(cpu[1]) + Number(cpu[2]);
  }
  return {
    parallelParticipants: participants.size,
    // A parallel worker always hands the leader one run.
    spilled: participants.size > 0 ? maxRuns > 1 : maxRuns > 0,
    maxRuns,
    diskBlocks: sum("disk blocks"),
    workerCpuS,
    memoryKB: sum("KB"),
    lines: messages.filter((m) => MILESTONE.test(m)),
  };
}

export const PHASES = ["load", "index", "checkpoint"] as const;
export type PhaseName = (typeof PHASES)[number];

export type CreateIndexCounterKey = PgServerCounterKey | "autovacuum.runs";
export const isCreateIndexCounterKey = (name: string): name is CreateIndexCounterKey =>
  name === "autovacuum.runs" || isPgServerCounterKey(name);
export const checkpoints = (c: Counters<CreateIndexCounterKey>) =>
  (c["checkpointer.timed"] ?? 0) + (c["checkpointer.requested"] ?? 0);
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
  /** Over the statement, from /proc/<pid>/schedstat: the backend's and its parallel workers' own. */
  readonly runQueue?: Readonly<Record<"waitS" | "cpuS" | "workerWaitS" | "workerCpuS" | "workers", number>>;
  /** How long the late counters took to report after the statement (TrialSession.settle). */
  readonly settledMs?: number;
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

export type PhaseResult = Awaited<ReturnType<TrialSession["phase"]>>;

/**
 * What reports after a statement returns: the WAL writer's writes and syncs and the checkpointer's counts (each
 * publishes right after its work), and the WAL not yet flushed, which the WAL writer has still to write. The
 * background writer's cleaning is work of its own that need never end: not waited for.
 */
const LATE_SQL = `SELECT w.wal_write::float8 AS wal_write, w.wal_sync::float8 AS wal_sync,
    w.wal_write_time::float8 AS wal_write_time, w.wal_sync_time::float8 AS wal_sync_time,
    (c.num_timed + c.num_requested)::float8 AS checkpoints, c.buffers_written::float8 AS buffers_written,
    c.write_time::float8 AS checkpoint_write_time, c.sync_time::float8 AS checkpoint_sync_time,
    pg_wal_lsn_diff(pg_current_wal_insert_lsn(), pg_current_wal_flush_lsn())::float8 AS unflushed
  FROM pg_stat_wal w, pg_stat_checkpointer c`;
export interface Late {
  readonly [counter: string]: number;
  readonly checkpoints: number;
  readonly unflushed: number;
}
/** An insert position just past a page header (24 bytes, 40 at a segment's start) leaves nothing to write. */
const PAGE_HEADER_BYTES = 40;
/** Two readings this far apart, alike, with the WAL flushed: nothing is left to report. */
const SETTLE_POLL_MS = 20;

/** Nothing left to report: the WAL flushed, the counters as in the last reading, a CHECKPOINT's count published. */
export const settled = (last: Late, now: Late, checkpointsAbove?: number): boolean =>
  now.unflushed <= PAGE_HEADER_BYTES &&
  (checkpointsAbove === undefined || now.checkpoints > checkpointsAbove) &&
  Object.keys(now).every((k) => k === "unflushed" || now[k] === last[k]);

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
export type TrialClock = SetupClock<SetupPart>;

export class TrialSession {
  private capture: ServerNotice[] | undefined;

  private constructor(
    readonly client: Client,
    /** A pid: the backend's on this host; a string: why its run-queue wait is not measured. */
    readonly backendPid: number | string,
  ) {
    client.on("notice", (n) => this.capture?.push({ message: n.message ?? "", detail: n.detail, where: n.where }));
  }

  /** `setupSql` runs before the session is handed out; on a failure the connection is closed. */
  static async open(connection: ConnectionInfo, kind: TargetKind, setupSql?: string): Promise<TrialSession> {
    const client = await connect(connection);
    try {
      const session = new TrialSession(client, await hostPid(client, kind));
      if (setupSql) await client.query(setupSql);
      return session;
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

  /** The reports are on around the statement only; `settleMs` lets the WAL writer and checkpointer publish. */
  async phase(
    phase: PhaseName,
    sql: string,
    o: {
      readonly settleMs: number;
      readonly traceSort?: boolean;
      readonly clock?: TrialClock;
      /** A CHECKPOINT: its count is among what reports late. */
      readonly checkpoint?: boolean;
    },
  ) {
    const phaseStart = process.hrtime.bigint();
    const countersBefore = await this.counters();
    const [{ lsn: startLsn }] = await this.query<{ lsn: string }>("SELECT pg_current_wal_insert_lsn()::text AS lsn");
    await this.client.query(
      `SET log_statement_stats = on; SET client_min_messages = log${o.traceSort ? "; SET trace_sort = on" : ""}`,
    );
    const notices: ServerNotice[] = [];
    this.capture = notices;
    const pid = typeof this.backendPid === "number" ? this.backendPid : undefined;
    const postmaster = pid === undefined ? undefined : readParentPid(pid);
    const isWorker = (cmd: string) => cmd.includes(`parallel worker for PID ${pid}`);
    const workers = postmaster === undefined ? undefined : new NewChildren(postmaster, isWorker, WORKER_POLL_MS);
    const before = pid === undefined ? undefined : readSchedStat(pid);
    const [, querySeconds] = await timed(() => this.client.query(sql)).finally(() => (this.capture = undefined));
    const ms = querySeconds * 1000;
    const after = pid === undefined ? undefined : readSchedStat(pid);
    const ran = workers?.stop() ?? [];
    const sum = (f: (x: (typeof ran)[number]) => number) => ran.reduce((a, x) => a + f(x), 0) / 1e9;
    const runQueue: PhaseRecord["runQueue"] =
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
    const [{ endLsn, bytes }] = await this.query<{ endLsn: string; bytes: string }>(
      `SELECT l::text AS "endLsn", pg_wal_lsn_diff(l, $1::pg_lsn)::text AS bytes FROM pg_current_wal_insert_lsn() AS l`,
      [startLsn],
    );
    const checkpointsAbove = o.checkpoint ? checkpoints(countersBefore) : undefined;
    const [, settleSeconds] = await timed(() => this.settle(o.settleMs, checkpointsAbove));
    const countersAfter = await this.counters();
    const phaseSeconds = Number(process.hrtime.bigint() - phaseStart) / 1e9;
    o.clock?.add("settle", settleSeconds);
    o.clock?.add("counters", phaseSeconds - settleSeconds - ms / 1000);
    return {
      record: {
        phase,
        ms,
        walBytes: Number(bytes),
        startLsn,
        endLsn,
        backend: parseBackendUsage(notices),
        sort: o.traceSort ? parseSortTrace(notices) : undefined,
        runQueue,
        settledMs: Math.round(settleSeconds * 1e4) / 10,
      },
      counters: counterDelta(countersBefore, countersAfter),
    };
  }

  private async late(): Promise<Late> {
    return (await this.query<Late>(LATE_SQL))[0];
  }

  /**
   * Waits until what reports late has reported, as the seed read its counters once wal_write stopped rising:
   * the WAL flushed, two readings alike and, after a CHECKPOINT, its count above `checkpointsAbove`. At most
   * `maxMs`: a background that keeps writing never holds the trial longer than the old fixed pause.
   */
  async settle(maxMs: number, checkpointsAbove?: number): Promise<void> {
    if (maxMs <= 0) return;
    const deadline = Date.now() + maxMs;
    let last = await this.late();
    while (Date.now() < deadline) {
      await sleep(Math.min(SETTLE_POLL_MS, deadline - Date.now()));
      const now = await this.late();
      if (settled(last, now, checkpointsAbove)) return;
      last = now;
    }
  }

  /** A CHECKPOINT outside the timed phases, its count reported before the next phase's counters are read. */
  async checkpoint(settleMs: number, clock: TrialClock): Promise<void> {
    const { checkpoints } = await clock.time("settle", () => this.late());
    await clock.time("checkpoint", () => this.query("CHECKPOINT"));
    await clock.time("settle", () => this.settle(settleMs, checkpoints));
  }

  async indexShape(): Promise<IndexShape> {
    const [row] = await this.query<Record<string, string | number>>(
      `SELECT s.*, pg_relation_size('${TABLE}') AS table_bytes FROM pgstatindex('${INDEX}') AS s`,
    );
    return Object.fromEntries(SHAPE_FIELDS.map((k) => [k, Number(row[SHAPE_COLUMNS[k]])])) as IndexShape;
  }

  /** The caller holds the WAL (WalHold). Most records first. */
  async walRecordTypes(startLsn: string, endLsn: string) {
    return Object.entries(await walRecordsBetween(this.client, startLsn, endLsn))
      .map(([type, r]) => ({ type, count: r.count, recordBytes: r.bytes - r.fpiBytes, fpiBytes: r.fpiBytes }))
      .sort((x, y) => y.count - x.count);
  }

  /** Bounded: after a failure its server may be on a host that no longer answers (see endClient). */
  async close(): Promise<void> {
    await endClient(this.client);
  }
}

/**
 * What the server says about one statement when asked (`client_min_messages = log`):
 * `log_statement_stats` gives the backend's own getrusage() (CPU, file-system blocks) and
 * `trace_sort` narrates tuplesort (in memory or on disk, parallel participants). Both arrive as
 * LOG notices on the session, so they work the same on every target, containers included.
 */

/** A notice as node-postgres delivers it (the fields used here). */
export interface ServerNotice {
  readonly severity?: string;
  readonly message: string;
  readonly detail?: string;
  /** CONTEXT: "parallel worker" marks a message a parallel worker sent through its leader. */
  readonly where?: string;
}

/** The backend process's resource usage during the statement (getrusage deltas). */
export interface BackendUsage {
  readonly userS: number;
  readonly systemS: number;
  readonly elapsedS: number;
  /** File-system blocks read / written by the backend process (512-byte units on Linux). */
  readonly fsBlocksIn: number;
  readonly fsBlocksOut: number;
  readonly voluntarySwitches: number;
  readonly involuntarySwitches: number;
}

export interface SortReport {
  /** Participants of a parallel sort (leader included); 0 for a serial sort. */
  readonly parallelParticipants: number;
  /**
   * The input did not fit in memory: a serial sort wrote runs to disk, or a parallel worker wrote
   * more than the one sorted run every worker hands to the leader.
   */
  readonly spilled: boolean;
  /** Most sorted runs any one participant wrote to temporary files. */
  readonly maxRuns: number;
  /** Temporary-file blocks (8 kB) the final sort or merge used; 0 for an in-memory sort. */
  readonly diskBlocks: number;
  /**
   * CPU (user + system) the parallel worker processes spent scanning and sorting, from the last
   * line each sent: the leader's own share is in its getrusage(), so this completes the picture.
   */
  readonly workerCpuS: number;
  /** Internal sort: memory used, kB. */
  readonly memoryKB: number;
  /** The milestones of the trace, for the reader (the abbreviated-key chatter is left out). */
  readonly lines: readonly string[];
}

const USAGE = /([\d.]+) s user, ([\d.]+) s system, ([\d.]+) s elapsed/;
const BLOCKS = /(\d+)\/(\d+) \[\d+\/\d+\] filesystem blocks in\/out/;
const SWITCHES = /(\d+)\/(\d+) \[\d+\/\d+\] voluntary\/involuntary context switches/;

/** The QUERY STATISTICS notice of log_statement_stats, or undefined if none was sent. */
export function parseBackendUsage(notices: readonly ServerNotice[]): BackendUsage | undefined {
  const stats = notices.filter((n) => n.message === "QUERY STATISTICS" && n.detail).at(-1);
  const detail = stats?.detail;
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

/** The trace_sort narration of the statement's last index sort, or undefined if it had none. */
export function parseSortTrace(notices: readonly ServerNotice[]): SortReport | undefined {
  const messages = notices.map((n) => n.message);
  const ends = messages.map((m) => SORT_END.exec(m)).filter((m): m is RegExpExecArray => m !== null);
  if (!ends.length) return undefined;
  const participants = new Set(
    messages.map((m) => PERFORMSORT.exec(m)?.[1]).filter((w): w is string => w !== undefined),
  );
  // The leader (worker -1) reports the whole sort; a serial sort has only the leader.
  const leader = ends.filter((e) => e[2] === "-1").at(-1);
  const relevant = leader ? [leader] : ends;
  const sum = (unit: string) => relevant.filter((e) => e[4] === unit).reduce((a, e) => a + Number(e[3]), 0);
  const runs = new Map<string, number>();
  for (const m of messages) {
    const r = RUN_WRITTEN.exec(m);
    if (r) runs.set(r[1], Math.max(runs.get(r[1]) ?? 0, Number(r[2])));
  }
  const maxRuns = Math.max(0, ...runs.values());
  let workerCpuS = 0;
  for (const n of notices) {
    const end = SORT_END.exec(n.message);
    const cpu = CPU.exec(n.message);
    if (end && cpu && n.where?.includes("parallel worker")) workerCpuS += Number(cpu[1]) + Number(cpu[2]);
  }
  return {
    parallelParticipants: participants.size,
    spilled: participants.size > 0 ? maxRuns > 1 : maxRuns > 0,
    maxRuns,
    diskBlocks: sum("disk blocks"),
    workerCpuS,
    memoryKB: sum("KB"),
    lines: messages.filter((m) => MILESTONE.test(m)),
  };
}

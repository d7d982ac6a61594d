/** log_statement_stats and trace_sort arrive as LOG notices on the session: the same on every target. */

/** `where` "parallel worker": a worker sent it through its leader. */
export interface ServerNotice {
  readonly severity?: string;
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

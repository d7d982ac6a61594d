/**
 * A process's CPU time and run-queue wait, from /proc/<pid>/schedstat (Linux): the wait is time the
 * process was runnable but another one had the CPU, which wall time includes and CPU time does not.
 * Beside quietness.ts, the other /proc reader. Elsewhere, or for a pid not on this host: undefined.
 */
import fs from "node:fs";

export interface SchedStat {
  /** On a CPU since the process started. */
  readonly cpuNs: number;
  /** Runnable and waiting on a run queue since the process started. */
  readonly waitNs: number;
  readonly timeslices: number;
}

const read = (file: string): string | undefined => {
  try {
    return fs.readFileSync(file, "utf8");
  } catch {
    return undefined; // the process ended, or this is not Linux
  }
};

export function readSchedStat(pid: number): SchedStat | undefined {
  const v = read(`/proc/${pid}/schedstat`)?.trim().split(/\s+/).map(Number);
  return v && v.length >= 3 && v.every(Number.isFinite) ? { cpuNs: v[0], waitNs: v[1], timeslices: v[2] } : undefined;
}

/** The command line, NULs as spaces ("postgres: parallel worker for PID 123"). */
export const readCommandLine = (pid: number): string | undefined =>
  read(`/proc/${pid}/cmdline`)?.replace(/\0/g, " ").trim();

/** /proc/<pid>/stat from its third field (state, ppid, …): comm may hold spaces and ")", so after the last ")". */
export function readStatFields(pid: number | string): string[] | undefined {
  const stat = read(`/proc/${pid}/stat`);
  return stat?.slice(stat.lastIndexOf(")") + 2).split(" ");
}

export function readParentPid(pid: number): number | undefined {
  const ppid = Number(readStatFields(pid)?.[1]);
  return Number.isInteger(ppid) ? ppid : undefined;
}

export const readChildren = (pid: number): number[] =>
  (read(`/proc/${pid}/task/${pid}/children`) ?? "").trim().split(/\s+/).filter(Boolean).map(Number);

/**
 * Children of `parent` started after `start()` and accepted by `accept`, polled every `everyMs`:
 * schedstat is cumulative from a process's start, so each child's last reading stands for it, short
 * by at most one poll's worth when it exits between polls.
 */
export class NewChildren {
  private readonly known: Set<number>;
  private readonly last = new Map<number, SchedStat>();
  private readonly timer: NodeJS.Timeout;

  constructor(
    private readonly parent: number,
    private readonly accept: (commandLine: string) => boolean,
    everyMs: number,
  ) {
    this.known = new Set(readChildren(parent));
    this.timer = setInterval(() => this.poll(), everyMs);
    this.timer.unref();
  }

  private poll(): void {
    for (const pid of readChildren(this.parent)) {
      // Asked again each poll: a child just forked still shows its parent's command line.
      if (this.known.has(pid) || (!this.last.has(pid) && !this.accept(readCommandLine(pid) ?? ""))) continue;
      const s = readSchedStat(pid);
      if (s) this.last.set(pid, s);
    }
  }

  /** Each accepted child's last reading. */
  stop(): SchedStat[] {
    this.poll();
    clearInterval(this.timer);
    return [...this.last.values()];
  }
}

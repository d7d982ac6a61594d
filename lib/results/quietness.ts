/**
 * Load average, CPU steal and CPU used outside this process tree, plus a `SELECT 1` loop's jitter.
 * From /proc (no npm package reports steal); elsewhere the CPU figures are left out, and say so.
 */
import fs from "node:fs";
import os from "node:os";
import { percent } from "../stats/format";
import { readParentPid, readStatFields } from "./run-queue";

export interface CpuTimes {
  readonly total: number;
  readonly idle: number;
  readonly steal: number;
  /** user + nice + system: what processes used, which their own /proc/<pid>/stat counts (not irq and softirq). */
  readonly processes: number;
}

export function readCpuTimes(): CpuTimes | undefined {
  try {
    const line = fs.readFileSync("/proc/stat", "utf8").split("\n")[0];
    // cpu  user nice system idle iowait irq softirq steal guest guest_nice
    const v = line.trim().split(/\s+/).slice(1).map(Number);
    const total = v.slice(0, 8).reduce((a, b) => a + b, 0);
    return { total, idle: v[3] + v[4], steal: v[7] ?? 0, processes: v[0] + v[1] + v[2] };
  } catch {
    return undefined; // not Linux: the report says the CPU figures were not measured
  }
}

export interface HostSample {
  readonly loadAverage1m: number;
  readonly stealShare?: number;
  readonly busyShare?: number;
  /** Busy outside this run's process tree: other work on the host (where every server is in the tree). */
  readonly otherBusyShare?: number;
  readonly seconds: number;
}

/** `ownTicks`: what this run's process tree used over the window (processTreeTicks), when all its work is in it. */
export function hostWindow(
  from: CpuTimes | undefined,
  to: CpuTimes | undefined,
  seconds: number,
  ownTicks?: number,
): HostSample {
  const loadAverage1m = os.loadavg()[0];
  if (!from || !to || to.total <= from.total) return { loadAverage1m, seconds };
  const total = to.total - from.total;
  const steal = (to.steal - from.steal) / total;
  const idle = (to.idle - from.idle) / total;
  const busyShare = Math.max(0, 1 - idle - steal);
  return {
    loadAverage1m,
    stealShare: steal,
    busyShare,
    ...(ownTicks === undefined
      ? {}
      : { otherBusyShare: Math.max(0, (to.processes - from.processes - ownTicks) / total) }),
    seconds,
  };
}

/** Before a run: the load without ours. */
export async function sampleHost(ms = 1000): Promise<HostSample> {
  const from = readCpuTimes();
  await new Promise((r) => setTimeout(r, ms));
  return hostWindow(from, readCpuTimes(), ms / 1000);
}

export interface OpenWindow {
  readonly cpu: CpuTimes | undefined;
  /** This process tree's ticks at the start; undefined when they are not asked for or cannot be read. */
  readonly own: number | undefined;
  readonly at: number;
}

/**
 * `npm run reproduce` names itself here to the kernels it starts, so its notebook executor counts as the run's own
 * work; it runs one notebook at a time. Taken only from an ancestor of this process: elsewhere this process's tree.
 */
export const OWN_TREE_ROOT_ENV = "DBLAB_OWN_TREE_ROOT";

export function ownTreeRoot(): number {
  const named = Number(process.env[OWN_TREE_ROOT_ENV]);
  if (!Number.isInteger(named) || named <= 1) return process.pid;
  for (let pid: number | undefined = process.pid; pid !== undefined && pid > 1; pid = readParentPid(pid))
    if (pid === named) return named;
  return process.pid;
}

/** `ownTree`: count this process tree's ticks, to leave them out of what the window calls other work. */
export const openWindow = (ownTree: boolean): OpenWindow => ({
  cpu: readCpuTimes(),
  own: ownTree ? processTreeTicks(ownTreeRoot()) : undefined,
  at: Date.now(),
});

/** The host over a window until now. */
export function windowSample(w: OpenWindow): HostSample {
  const own = w.own === undefined ? undefined : processTreeTicks(ownTreeRoot());
  const used = own === undefined || w.own === undefined ? undefined : Math.max(0, own - w.own);
  return hostWindow(w.cpu, readCpuTimes(), (Date.now() - w.at) / 1000, used);
}

/** The host over a window at least `minMs` long (it waits out the rest): a shorter one counts too few ticks. */
export async function closeWindow(w: OpenWindow, minMs: number): Promise<HostSample> {
  const left = w.at + minMs - Date.now();
  if (left > 0) await new Promise((r) => setTimeout(r, left));
  return windowSample(w);
}

/**
 * CPU ticks (USER_HZ, as /proc/stat counts) used by `root` and its live descendants, with the children each has
 * reaped: a process that ends moves its ticks into its parent's, so the sum over a tree carries across exits (a
 * backend the postmaster reaps, a postmaster this process reaps). Undefined off Linux or when `root` is gone.
 */
export function processTreeTicks(root: number = process.pid): number | undefined {
  const stats = new Map<number, { ppid: number; ticks: number }>();
  let pids: string[];
  try {
    pids = fs.readdirSync("/proc").filter((name) => /^\d+$/.test(name));
  } catch {
    return undefined;
  }
  for (const pid of pids) {
    const f = readStatFields(pid)?.map(Number);
    if (!f) continue; // it ended since the listing
    // From the third field: ppid is the fourth, utime, stime, cutime and cstime the 14th to 17th.
    stats.set(Number(pid), { ppid: f[1], ticks: f[11] + f[12] + f[13] + f[14] });
  }
  if (!stats.has(root)) return undefined;
  const children = new Map<number, number[]>();
  for (const [pid, { ppid }] of stats) {
    const siblings = children.get(ppid);
    if (siblings) siblings.push(pid);
    else children.set(ppid, [pid]);
  }
  let ticks = 0;
  for (const queue = [root]; queue.length;) {
    const pid = queue.pop() as number;
    ticks += stats.get(pid)?.ticks ?? 0;
    queue.push(...(children.get(pid) ?? []));
  }
  return ticks;
}

export interface RttJitter {
  readonly samples: number;
  readonly medianMs: number;
  readonly p99Ms: number;
  readonly relativeIqr: number;
}

export function rttJitter(ms: readonly number[]): RttJitter | undefined {
  if (!ms.length) return undefined;
  const s = [...ms].sort((a, b) => a - b);
  const q = (p: number) => s[Math.min(s.length - 1, Math.floor(p * (s.length - 1)))];
  const med = q(0.5);
  return { samples: s.length, medianMs: med, p99Ms: q(0.99), relativeIqr: med > 0 ? (q(0.75) - q(0.25)) / med : 0 };
}

export interface Quietness {
  before?: HostSample;
  during?: HostSample & { readonly maxLoadAverage1m: number };
  selectOneBefore?: RttJitter;
  selectOneAfter?: RttJitter;
  readonly cpus: number;
}

export class HostMonitor {
  private readonly window = openWindow(true);
  private maxLoad = os.loadavg()[0];
  private readonly timer: NodeJS.Timeout;

  constructor(everyMs = 5000) {
    this.timer = setInterval(() => {
      this.maxLoad = Math.max(this.maxLoad, os.loadavg()[0]);
    }, everyMs);
    this.timer.unref();
  }

  /** `ownTree`: every server ran in this process's tree, so what the tree used is the run's own work. */
  stop(ownTree = false): Quietness["during"] {
    clearInterval(this.timer);
    const w = windowSample(ownTree ? this.window : { ...this.window, own: undefined });
    return { ...w, maxLoadAverage1m: Math.max(this.maxLoad, w.loadAverage1m) };
  }
}

const pct = (x: number | undefined) => percent(x, 1);

export function quietnessText(q: Quietness): string {
  const parts: string[] = [];
  const b = q.before;
  if (b) {
    parts.push(
      b.otherBusyShare === undefined
        ? `before: load ${b.loadAverage1m.toFixed(2)} on ${q.cpus} CPUs, busy ${pct(b.busyShare)}, steal ${pct(b.stealShare)}`
        : `before (while the servers started): load ${b.loadAverage1m.toFixed(2)} on ${q.cpus} CPUs, ` +
            `other work ${pct(b.otherBusyShare)}, steal ${pct(b.stealShare)}`,
    );
  }
  if (q.during) {
    parts.push(
      `during (the lab's own servers included): load up to ${q.during.maxLoadAverage1m.toFixed(2)}, ` +
        `steal ${pct(q.during.stealShare)}` +
        (q.during.otherBusyShare === undefined ? "" : `, other work ${pct(q.during.otherBusyShare)}`),
    );
  }
  const j = (label: string, r: RttJitter | undefined) =>
    r
      ? `${label} SELECT 1 median ${(r.medianMs * 1000).toFixed(0)} µs, p99 ${(r.p99Ms * 1000).toFixed(0)} µs, IQR/median ${pct(r.relativeIqr)}`
      : "";
  parts.push(...[j("before:", q.selectOneBefore), j("after:", q.selectOneAfter)].filter(Boolean));
  return parts.join(" · ");
}

/** A quarter of the CPUs: on 2 cores, half of one core busy with something else. */
const OTHER_WORK_LIMIT = 0.25;

/** A closing table's cell: the CPUs' share other work used during the run; "—" where it was not measured. */
export const otherWorkCell = (q: Quietness | undefined): string => percent(q?.during?.otherBusyShare, 0, "—");

/** Said under the ETAs when other work is busy as they are printed: they are a quiet machine's times. */
export function busyHostNote(s: HostSample): string | undefined {
  const other = s.otherBusyShare ?? s.busyShare;
  return other !== undefined && other > OTHER_WORK_LIMIT
    ? `note: other work is using ${pct(other)} of the CPUs now; the ETAs above are for a machine with nothing else ` +
        "running, so these notebooks will likely take longer"
    : undefined;
}

export function disturbances(q: Quietness): string[] {
  const out: string[] = [];
  const before = q.before?.otherBusyShare ?? q.before?.busyShare;
  if (before !== undefined && before > OTHER_WORK_LIMIT) {
    out.push(`other work used ${pct(before)} of the CPUs before the run`);
  }
  const during = q.during?.otherBusyShare;
  if (during !== undefined && during > OTHER_WORK_LIMIT) {
    out.push(`other work used ${pct(during)} of the CPUs during the run`);
  }
  if (q.during?.stealShare !== undefined && q.during.stealShare > 0.05) {
    out.push(`the hypervisor took ${pct(q.during.stealShare)} of the CPU time during the run`);
  }
  if (q.selectOneBefore && q.selectOneBefore.relativeIqr > 0.5) {
    out.push(`SELECT 1 round trips varied by ${pct(q.selectOneBefore.relativeIqr)} (IQR/median) before the run`);
  }
  return out;
}

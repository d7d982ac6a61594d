/**
 * Is the machine quiet? Load average, CPU steal and CPU used outside this process tree, sampled
 * before and during a run, plus a `SELECT 1` loop's jitter. Read from /proc (no npm package reports
 * steal); elsewhere the CPU figures are left out, and say so.
 */
import fs from "node:fs";
import os from "node:os";
import { percent } from "../stats/format";

export interface CpuTimes {
  readonly total: number;
  readonly idle: number;
  readonly steal: number;
}

export function readCpuTimes(): CpuTimes | undefined {
  try {
    const line = fs.readFileSync("/proc/stat", "utf8").split("\n")[0];
    // cpu  user nice system idle iowait irq softirq steal guest guest_nice
    const v = line.trim().split(/\s+/).slice(1).map(Number);
    const total = v.slice(0, 8).reduce((a, b) => a + b, 0);
    return { total, idle: v[3] + v[4], steal: v[7] ?? 0 };
  } catch {
    return undefined; // not Linux: the report says the CPU figures were not measured
  }
}

export interface HostSample {
  readonly loadAverage1m: number;
  /** Shares of all CPU time in the window: stolen, and busy. */
  readonly stealShare?: number;
  readonly busyShare?: number;
  readonly seconds: number;
}

export function hostWindow(from: CpuTimes | undefined, to: CpuTimes | undefined, seconds: number): HostSample {
  const loadAverage1m = os.loadavg()[0];
  if (!from || !to || to.total <= from.total) return { loadAverage1m, seconds };
  const total = to.total - from.total;
  const steal = (to.steal - from.steal) / total;
  const idle = (to.idle - from.idle) / total;
  return { loadAverage1m, stealShare: steal, busyShare: Math.max(0, 1 - idle - steal), seconds };
}

/** Host figures over the next `ms` (before a run: the load without ours). */
export async function sampleHost(ms = 1000): Promise<HostSample> {
  const from = readCpuTimes();
  await new Promise((r) => setTimeout(r, ms));
  return hostWindow(from, readCpuTimes(), ms / 1000);
}

export interface RttJitter {
  readonly samples: number;
  readonly medianMs: number;
  readonly p99Ms: number;
  /** Interquartile range ÷ median of a round trip to the server. */
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
  /** The lab's own work included. */
  during?: HostSample & { readonly maxLoadAverage1m: number };
  selectOneBefore?: RttJitter;
  selectOneAfter?: RttJitter;
  readonly cpus: number;
}

/** Samples the host every few seconds while a run goes on (an unref'd timer). */
export class HostMonitor {
  private readonly start = readCpuTimes();
  private readonly t0 = Date.now();
  private maxLoad = os.loadavg()[0];
  private readonly timer: NodeJS.Timeout;

  constructor(everyMs = 5000) {
    this.timer = setInterval(() => {
      this.maxLoad = Math.max(this.maxLoad, os.loadavg()[0]);
    }, everyMs);
    this.timer.unref();
  }

  stop(): Quietness["during"] {
    clearInterval(this.timer);
    const w = hostWindow(this.start, readCpuTimes(), (Date.now() - this.t0) / 1000);
    return { ...w, maxLoadAverage1m: Math.max(this.maxLoad, w.loadAverage1m) };
  }
}

const pct = (x: number | undefined) => percent(x, 1);

/** One line for the run header. */
export function quietnessText(q: Quietness): string {
  const parts: string[] = [];
  if (q.before) {
    parts.push(
      `before: load ${q.before.loadAverage1m.toFixed(2)} on ${q.cpus} CPUs, busy ${pct(q.before.busyShare)}, steal ${pct(q.before.stealShare)}`,
    );
  }
  if (q.during) {
    parts.push(
      `during (the lab's own servers included): load up to ${q.during.maxLoadAverage1m.toFixed(2)}, ` +
        `steal ${pct(q.during.stealShare)}`,
    );
  }
  const j = (label: string, r: RttJitter | undefined) =>
    r
      ? `${label} SELECT 1 median ${(r.medianMs * 1000).toFixed(0)} µs, p99 ${(r.p99Ms * 1000).toFixed(0)} µs, IQR/median ${pct(r.relativeIqr)}`
      : "";
  parts.push(...[j("before:", q.selectOneBefore), j("after:", q.selectOneAfter)].filter(Boolean));
  return parts.join(" · ");
}

/**
 * The reasons the machine was not quiet enough to read small effects (steal, others on the CPUs); empty when it was.
 */
export function disturbances(q: Quietness): string[] {
  const out: string[] = [];
  if (q.before?.busyShare !== undefined && q.before.busyShare > 0.25) {
    out.push(`other work used ${pct(q.before.busyShare)} of the CPUs before the run`);
  }
  if (q.during?.stealShare !== undefined && q.during.stealShare > 0.05) {
    out.push(`the hypervisor took ${pct(q.during.stealShare)} of the CPU time during the run`);
  }
  if (q.selectOneBefore && q.selectOneBefore.relativeIqr > 0.5) {
    out.push(`SELECT 1 round trips varied by ${pct(q.selectOneBefore.relativeIqr)} (IQR/median) before the run`);
  }
  return out;
}

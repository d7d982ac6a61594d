/** From activity samples: when pgbench's sessions were blocked on a lock, by whom, and the index build's phases. */
import { median } from "simple-statistics";
import type { ActivitySample, SessionSample } from "./activity-sampler";

export interface BlockedInterval {
  readonly startMs: number;
  readonly endMs: number;
  /** Most sessions waiting on a lock at once in the interval. */
  readonly maxSessions: number;
  readonly lock: string | null;
}

export interface IndexBuildPhase {
  readonly index: string | null;
  readonly phase: string;
  readonly startMs: number;
  readonly endMs: number;
}

export interface LockTimeline {
  readonly samples: number;
  readonly intervalMs: number;
  readonly intervals: readonly BlockedInterval[];
  /** At least one pgbench session was blocked (see isBlocked), s. */
  readonly blockedSeconds: number;
  /** Every pgbench session blocked at once (throughput zero), s. */
  readonly allBlockedSeconds: number;
  /** Σ over samples of (sessions waiting × spacing), s. */
  readonly lockWaitSessionSeconds: number;
  /** Waiting on a lock the REINDEX session holds or queues for, s. */
  readonly blockedByReindexSeconds: number;
  readonly waitShares: Readonly<Record<string, number>>;
  readonly reindexWaitShares: Readonly<Record<string, number>>;
  readonly locks: Readonly<Record<string, number>>;
  readonly phases: readonly IndexBuildPhase[];
  readonly perSample: readonly { readonly t: number; readonly sessions: number; readonly lockWaiting: number }[];
}

/**
 * Blocked = waiting for a table or index lock, or for anything the REINDEX session holds or queues
 * for. Row locks between pgbench's own clients are ordinary contention, in the baseline too.
 */
export function isBlocked(s: SessionSample, reindexPid?: number): boolean {
  if (s.waitType !== "Lock") return false;
  return s.wait === "relation" || (reindexPid !== undefined && s.blockedBy.includes(reindexPid));
}

export function waitKey(s: SessionSample): string {
  if (s.waitType) return `${s.waitType}:${s.wait}`;
  return s.state === "active" ? "CPU" : (s.state ?? "unknown");
}

function shares(counts: Map<string, number>): Record<string, number> {
  const total = [...counts.values()].reduce((a, b) => a + b, 0);
  const out: Record<string, number> = {};
  for (const [k, v] of [...counts.entries()].sort((a, b) => b[1] - a[1])) out[k] = total ? v / total : 0;
  return out;
}

const bump = (m: Map<string, number>, k: string) => m.set(k, (m.get(k) ?? 0) + 1);

export function lockTimeline(
  samples: readonly ActivitySample[],
  clientApp = "pgbench",
  reindexPid?: number,
): LockTimeline {
  const spacing = samples.length > 1 ? median(samples.slice(1).map((s, i) => s.t - samples[i].t)) : 0;
  const waits = new Map<string, number>();
  const reindexWaits = new Map<string, number>();
  const locks = new Map<string, number>();
  const intervals: BlockedInterval[] = [];
  const perSample: { t: number; sessions: number; lockWaiting: number }[] = [];
  let allBlocked = 0;
  let byReindex = 0;
  let sessionWait = 0;
  let open: { startMs: number; lastMs: number; max: number; locks: Map<string, number> } | undefined;
  const close = () => {
    if (!open) return;
    const lock = [...open.locks.entries()].sort((a, b) => b[1] - a[1])[0]?.[0] ?? null;
    intervals.push({ startMs: open.startMs, endMs: open.lastMs + spacing, maxSessions: open.max, lock });
    open = undefined;
  };
  const phases: IndexBuildPhase[] = [];
  for (const sample of samples) {
    const clients = sample.sessions.filter((s) => s.app === clientApp);
    const waiting = clients.filter((s) => isBlocked(s, reindexPid));
    for (const s of clients) bump(waits, waitKey(s));
    for (const s of waiting) if (s.lock) bump(locks, s.lock);
    const reindex = reindexPid === undefined ? undefined : sample.sessions.find((s) => s.pid === reindexPid);
    if (reindex && reindex.state === "active") bump(reindexWaits, waitKey(reindex));
    perSample.push({ t: sample.t, sessions: clients.length, lockWaiting: waiting.length });
    sessionWait += waiting.length * spacing;
    if (waiting.length > 0 && clients.length > 0 && waiting.length === clients.length) allBlocked += spacing;
    if (reindexPid !== undefined && waiting.some((s) => s.blockedBy.includes(reindexPid))) byReindex += spacing;
    if (waiting.length > 0) {
      open ??= { startMs: sample.t, lastMs: sample.t, max: 0, locks: new Map() };
      open.lastMs = sample.t;
      open.max = Math.max(open.max, waiting.length);
      for (const s of waiting) if (s.lock) bump(open.locks, s.lock);
    } else {
      close();
    }
    for (const b of sample.builds) {
      const last = phases[phases.length - 1];
      if (last && last.phase === b.phase && last.index === b.index) {
        phases[phases.length - 1] = { ...last, endMs: sample.t + spacing };
      } else {
        phases.push({ index: b.index, phase: b.phase, startMs: sample.t, endMs: sample.t + spacing });
      }
    }
  }
  close();
  return {
    samples: samples.length,
    intervalMs: spacing,
    intervals,
    blockedSeconds: intervals.reduce((a, i) => a + (i.endMs - i.startMs), 0) / 1000,
    allBlockedSeconds: allBlocked / 1000,
    lockWaitSessionSeconds: sessionWait / 1000,
    blockedByReindexSeconds: byReindex / 1000,
    waitShares: shares(waits),
    reindexWaitShares: shares(reindexWaits),
    locks: Object.fromEntries([...locks.entries()].sort((a, b) => b[1] - a[1])),
    phases,
    perSample,
  };
}

/**
 * A target round trip T is emulated by adding T − what the machine itself takes, measured, never
 * assumed. Load only ever adds time to a round trip, so what the machine takes is read from the
 * fastest round trip seen (its floor), never from a median: a busy moment inflates a median, and a
 * delay computed from it would fall short of T as soon as the load eased. The added delay is thus
 * fixed by the target and the floor alone; what the link reached (the median, load included) is
 * recorded beside it. A target below the direct round trip's floor is never pretended.
 */
import { median } from "simple-statistics";
import type { DelayLink } from "./types";

export type RttProbe = (samples: number) => Promise<number[]>;

export interface RttMeasurement {
  readonly medianMs: number;
  /** The fastest sample: the closest this batch came to what the path takes without load. */
  readonly floorMs: number;
}

export async function measureRtt(probe: RttProbe, samples: number, warmup = 20): Promise<RttMeasurement> {
  await probe(warmup);
  const xs = await probe(samples);
  return { medianMs: median(xs), floorMs: Math.min(...xs) };
}

export async function medianRtt(probe: RttProbe, samples: number, warmup = 20): Promise<number> {
  return (await measureRtt(probe, samples, warmup)).medianMs;
}

export type CalibrationMode =
  | "delayed"
  /** At or below the direct round trip: no link. */
  | "direct"
  | "link-at-zero";

export interface LinkCalibration {
  readonly targetRttMs: number;
  /** The direct round trip, median and floor. */
  readonly baselineRttMs: number;
  readonly baselineFloorMs: number;
  /** Baseline + the link's overhead, median. */
  readonly linkZeroRttMs: number;
  /** The link's own cost at 0 ms added, its floor: what the added delay makes up to the target. */
  readonly linkZeroFloorMs: number;
  /** Through the link as left, median (load included) and fastest. */
  readonly achievedRttMs: number;
  readonly achievedFloorMs: number;
  readonly oneWayDelayMs: number;
  /** 2 × oneWayDelayMs: the round trip the link adds, whatever the load. */
  readonly addedRttMs: number;
  readonly mode: CalibrationMode;
  readonly note: string;
  readonly steps: readonly { readonly oneWayMs: number; readonly rttMs: number; readonly floorMs: number }[];
}

export interface CalibrationOptions {
  readonly targetRttMs: number;
  /** The direct round trip's median, recorded. */
  readonly baselineRttMs: number;
  /** The direct round trip's floor, which decides whether the target lies below it; default baselineRttMs. */
  readonly baselineFloorMs?: number;
  /** The link's lowest round trip at 0 ms seen by earlier calibrations: a floor only falls. */
  readonly linkFloorMs?: number;
  readonly samples?: number;
  readonly maxSteps?: number;
  /** Default max(3 % of the target, 10 µs). */
  readonly toleranceMs?: number;
}

const fmt = (ms: number) => `${ms.toFixed(3)} ms`;

/** How far below the target a round trip may fall and still count as reaching it: max(3 %, 10 µs). */
export const reachTolerance = (targetMs: number): number => Math.max(0.03 * targetMs, 0.01);

export async function calibrateLink(link: DelayLink, probe: RttProbe, o: CalibrationOptions): Promise<LinkCalibration> {
  const samples = o.samples ?? 300;
  const target = o.targetRttMs;
  const base = o.baselineRttMs;
  const baseFloor = o.baselineFloorMs ?? base;
  const steps: { oneWayMs: number; rttMs: number; floorMs: number }[] = [];
  await link.setOneWayDelay(0);
  const zero = await measureRtt(probe, samples);
  steps.push({ oneWayMs: 0, rttMs: zero.medianMs, floorMs: zero.floorMs });
  let floor = Math.min(zero.floorMs, o.linkFloorMs ?? Infinity);
  const result = (mode: CalibrationMode, reached: RttMeasurement, oneWay: number, note: string): LinkCalibration => ({
    targetRttMs: target,
    baselineRttMs: base,
    baselineFloorMs: baseFloor,
    linkZeroRttMs: zero.medianMs,
    linkZeroFloorMs: floor,
    achievedRttMs: reached.medianMs,
    achievedFloorMs: reached.floorMs,
    oneWayDelayMs: oneWay,
    addedRttMs: 2 * oneWay,
    mode,
    note,
    steps,
  });
  const direct = { medianMs: base, floorMs: baseFloor };
  if (target <= baseFloor) {
    return result(
      "direct",
      direct,
      0,
      `target ${fmt(target)} is at or below this machine's direct round trip (${fmt(baseFloor)} at its fastest): run direct, nothing added`,
    );
  }
  if (target <= floor) {
    return target - baseFloor <= floor - target
      ? result(
          "direct",
          direct,
          0,
          `target ${fmt(target)} lies below what the ${link.kind} link costs by itself (${fmt(floor)} at its fastest); the direct round trip (${fmt(baseFloor)}) is closer`,
        )
      : result(
          "link-at-zero",
          zero,
          0,
          `target ${fmt(target)} lies below what the ${link.kind} link costs by itself; the link at 0 ms (${fmt(floor)} at its fastest) is the closest`,
        );
  }
  const tolerance = o.toleranceMs ?? reachTolerance(target);
  const maxSteps = Math.max(1, o.maxSteps ?? 5);
  let oneWay = (target - floor) / 2;
  let reached = zero;
  // A step can only raise the delay: its fastest round trip less what it added is the link's own
  // cost seen once more, and the floor keeps the lowest. A slow (loaded) step changes nothing.
  for (let i = 0; i < maxSteps; i++) {
    await link.setOneWayDelay(oneWay);
    reached = await measureRtt(probe, samples);
    steps.push({ oneWayMs: oneWay, rttMs: reached.medianMs, floorMs: reached.floorMs });
    floor = Math.min(floor, reached.floorMs - 2 * oneWay);
    if (reached.floorMs >= target - tolerance) break;
    if (i + 1 < maxSteps) oneWay = (target - floor) / 2;
  }
  const short = target - reached.floorMs;
  const note =
    short <= tolerance
      ? `added ${fmt(2 * oneWay)} to the link's own ${fmt(floor)} (its fastest round trip at 0 ms); reached ${fmt(reached.medianMs)} in the median, ${fmt(reached.floorMs)} at the fastest`
      : `added ${fmt(2 * oneWay)}; the fastest round trip still ${(short * 1000).toFixed(0)} µs below the target after ${steps.length - 1} steps (median ${fmt(reached.medianMs)})`;
  return result("delayed", reached, oneWay, note);
}

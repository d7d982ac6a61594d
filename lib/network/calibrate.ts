/**
 * Making a link add what was asked for: a target round trip T is emulated by adding T − what the
 * machine already takes, measured, never assumed (set a delay, measure, correct, repeat). A target
 * below the local round trip is never pretended.
 */
import { median } from "simple-statistics";
import type { DelayLink } from "./types";

/** n round trips, ms each. */
export type RttProbe = (samples: number) => Promise<number[]>;

export async function medianRtt(probe: RttProbe, samples: number, warmup = 20): Promise<number> {
  await probe(warmup);
  return median(await probe(samples));
}

export type CalibrationMode =
  /** The link adds a calibrated delay. */
  | "delayed"
  /** The target is at or below the direct round trip: no link. */
  | "direct"
  /** The target lies between the direct round trip and the link's own overhead. */
  | "link-at-zero";

export interface LinkCalibration {
  readonly targetRttMs: number;
  /** Median ms without a link. */
  readonly baselineRttMs: number;
  /** Through the link at 0: baseline + its overhead. */
  readonly linkZeroRttMs: number;
  /** Median ms at the chosen setting. */
  readonly achievedRttMs: number;
  readonly oneWayDelayMs: number;
  readonly mode: CalibrationMode;
  readonly note: string;
  readonly steps: readonly { readonly oneWayMs: number; readonly rttMs: number }[];
}

export interface CalibrationOptions {
  readonly targetRttMs: number;
  readonly baselineRttMs: number;
  readonly samples?: number;
  readonly maxSteps?: number;
  /** Default max(3 % of the target, 10 µs). */
  readonly toleranceMs?: number;
}

const fmt = (ms: number) => `${ms.toFixed(3)} ms`;

export async function calibrateLink(link: DelayLink, probe: RttProbe, o: CalibrationOptions): Promise<LinkCalibration> {
  const samples = o.samples ?? 300;
  const target = o.targetRttMs;
  const base = o.baselineRttMs;
  const steps: { oneWayMs: number; rttMs: number }[] = [];
  await link.setOneWayDelay(0);
  const zero = await medianRtt(probe, samples);
  steps.push({ oneWayMs: 0, rttMs: zero });
  const result = (mode: CalibrationMode, achieved: number, oneWay: number, note: string): LinkCalibration => ({
    targetRttMs: target,
    baselineRttMs: base,
    linkZeroRttMs: zero,
    achievedRttMs: achieved,
    oneWayDelayMs: oneWay,
    mode,
    note,
    steps,
  });
  if (target <= base) {
    return result(
      "direct",
      base,
      0,
      `target ${fmt(target)} is at or below this machine's direct round trip (${fmt(base)}): run direct, nothing added`,
    );
  }
  if (target <= zero) {
    const direct = target - base <= zero - target;
    return direct
      ? result(
          "direct",
          base,
          0,
          `target ${fmt(target)} lies below what the ${link.kind} link costs by itself (${fmt(zero)}); the direct round trip (${fmt(base)}) is closer`,
        )
      : result(
          "link-at-zero",
          zero,
          0,
          `target ${fmt(target)} lies below what the ${link.kind} link costs by itself; the link at 0 ms (${fmt(zero)}) is the closest`,
        );
  }
  const tolerance = o.toleranceMs ?? Math.max(0.03 * target, 0.01);
  let oneWay = (target - zero) / 2;
  // Above the link at 0, the best is chosen among delayed steps only: a step thrown off by a load spike
  // must not send the link back to no delay.
  let best: { oneWay: number; rtt: number } | undefined;
  for (let i = 0; i < (o.maxSteps ?? 5); i++) {
    await link.setOneWayDelay(oneWay);
    const rtt = await medianRtt(probe, samples);
    steps.push({ oneWayMs: oneWay, rttMs: rtt });
    if (!best || Math.abs(rtt - target) < Math.abs(best.rtt - target)) best = { oneWay, rtt };
    if (Math.abs(rtt - target) <= tolerance) break;
    // Never down to 0 ms (measured already): halve instead.
    const next = oneWay + (target - rtt) / 2;
    oneWay = next > 0 ? next : oneWay / 2;
  }
  best ??= { oneWay: 0, rtt: zero };
  await link.setOneWayDelay(best.oneWay);
  const off = best.rtt - target;
  const note =
    Math.abs(off) <= tolerance
      ? `added ${fmt(best.rtt - base)} to the direct ${fmt(base)}`
      : `closest reached ${fmt(best.rtt)} (${off > 0 ? "+" : ""}${(off * 1000).toFixed(0)} µs from the target) after ${steps.length - 1} steps`;
  return result("delayed", best.rtt, best.oneWay, note);
}

/**
 * Making a link add what was asked for. A target round trip T is emulated by adding T − (what the
 * machine already takes) — never pretending a target below the local round trip can be reached.
 * The link's own overhead (two extra socket hops for the proxy) and the timer's lateness are
 * measured, not assumed: set a delay, measure the round trip, correct, repeat.
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
  /** The link adds a calibrated delay; achieved ≈ target. */
  | "delayed"
  /** The target is at or below the direct round trip: use no link (achieved = baseline). */
  | "direct"
  /** The target lies between the direct round trip and the link's own overhead: the link at 0 was closer. */
  | "link-at-zero";

export interface LinkCalibration {
  readonly targetRttMs: number;
  /** The direct round trip (no link), median ms. */
  readonly baselineRttMs: number;
  /** Through the link with no delay: baseline + the link's own overhead. */
  readonly linkZeroRttMs: number;
  /** The round trip the chosen setting achieved, median ms. */
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
  /** Stop when |achieved − target| ≤ this; default max(3 % of the target, 10 µs). */
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
  // The target lies above the link at 0 ms, so some delay is needed: the best is chosen among the
  // delayed steps only. A step measured far off on a loaded machine never sends the link back to no
  // delay at all (it did: every step overshot by a load spike, and the link ran with nothing added).
  let best: { oneWay: number; rtt: number } | undefined;
  for (let i = 0; i < (o.maxSteps ?? 5); i++) {
    await link.setOneWayDelay(oneWay);
    const rtt = await medianRtt(probe, samples);
    steps.push({ oneWayMs: oneWay, rttMs: rtt });
    if (!best || Math.abs(rtt - target) < Math.abs(best.rtt - target)) best = { oneWay, rtt };
    if (Math.abs(rtt - target) <= tolerance) break;
    // Never down to 0 ms (the link at 0 is measured already and lies below the target): halve instead.
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

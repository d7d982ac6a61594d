/**
 * The machine's speed state from a write-path probe before each timed run, and what its spread means
 * for the claims (docs/claims-and-regimes.md, "The speed state of the machine").
 */
import { median, quantile } from "simple-statistics";

export interface SpeedProbe {
  /** What was timed, e.g. "400 single-row UPDATE + COMMIT (synchronous_commit off), own database". */
  readonly what: string;
  /** ms, client-side. */
  readonly medianMs: number;
  readonly p90Ms: number;
  readonly n: number;
  readonly at: string;
  readonly sharedBy?: string;
}

/** A probe more than this ratio from the run's median marks its trial as run in another speed state. */
export const SPEED_STATE_RATIO = 1.25;

export interface SpeedSpread {
  readonly n: number;
  readonly medianMs: number;
  readonly minMs: number;
  readonly maxMs: number;
  /** Upper ÷ lower quartile of the probes: robust to one warm-up probe, unlike slowest ÷ fastest. */
  readonly quartileRatio: number;
  readonly flagged: readonly string[];
  /** e.g. "probe median 0.090 ms, quartiles ×1.06 (range 0.081–0.152) over 10 trials; …". */
  readonly text: string;
}

export function speedSpread(
  trials: readonly { readonly key: string; readonly speed?: SpeedProbe }[],
): SpeedSpread | undefined {
  const probed = trials.filter((t): t is { key: string; speed: SpeedProbe } => t.speed !== undefined);
  if (!probed.length) return undefined;
  const ms = probed.map((t) => t.speed.medianMs);
  const m = median(ms);
  const minMs = Math.min(...ms);
  const maxMs = Math.max(...ms);
  const q1 = quantile(ms, 0.25);
  const q3 = quantile(ms, 0.75);
  const quartileRatio = q1 > 0 ? q3 / q1 : 1;
  const flagged = probed.filter((t) => !sameState(t.speed.medianMs, m)).map((t) => t.key);
  const f = (x: number) => x.toFixed(3);
  return {
    n: probed.length,
    medianMs: m,
    minMs,
    maxMs,
    quartileRatio,
    flagged,
    text:
      `write-path probe median ${f(m)} ms, upper ÷ lower quartile ×${quartileRatio.toFixed(2)} ` +
      `(range ${f(minMs)}–${f(maxMs)}) over ${probed.length} trial(s); ` +
      (flagged.length
        ? `${flagged.length} in another speed state (beyond ×${SPEED_STATE_RATIO} of the median): ${flagged.join(", ")}`
        : `none beyond ×${SPEED_STATE_RATIO} of the median`),
  };
}

export function sameState(aMs: number, bMs: number): boolean {
  if (!(aMs > 0) || !(bMs > 0)) return true;
  return Math.max(aMs, bMs) / Math.min(aMs, bMs) <= SPEED_STATE_RATIO;
}

/**
 * The rule for a paired statistic: every pair counts; pairs whose probes differ by more than
 * ×SPEED_STATE_RATIO are named, with the verdict without them beside it (a stratum, not a filter).
 */
export const PAIR_STATE_RULE =
  `every pair counts; a pair whose two trials' write-path probes differ by more than ×${SPEED_STATE_RATIO} ` +
  `(perhaps two speed states) is named, and the verdict without such pairs is given beside it`;

export interface StatePairs<T> {
  readonly kept: readonly T[];
  /** Pairs whose probes agree (or were not probed). */
  readonly oneState: readonly T[];
  readonly split: readonly { readonly item: T; readonly label: string; readonly ratio: number }[];
  /** e.g. "r3: probes ×1.71 apart"; "" when none. */
  readonly text: string;
}

/** Applies PAIR_STATE_RULE; an unprobed trial's pair counts as one state. */
export function sameStatePairs<T>(
  pairs: readonly T[],
  probes: (pair: T) => readonly (number | undefined)[],
  label: (pair: T) => string,
): StatePairs<T> {
  const oneState: T[] = [];
  const split: { item: T; label: string; ratio: number }[] = [];
  for (const p of pairs) {
    const ms = probes(p).filter((x): x is number => x !== undefined && x > 0);
    const ratio = ms.length >= 2 ? Math.max(...ms) / Math.min(...ms) : 1;
    if (ratio > SPEED_STATE_RATIO) split.push({ item: p, label: label(p), ratio });
    else oneState.push(p);
  }
  const text = split.map((e) => `${e.label}: probes ×${e.ratio.toFixed(2)} apart`).join("; ");
  return { kept: [...pairs], oneState, split, text };
}

/** Whether `verdict` stands on the pairs in one state (`judge` re-decides on a subset); "" when no pair split. */
export function stateSensitivity<T>(
  pairs: StatePairs<T>,
  verdict: string,
  judge: (pairs: readonly T[]) => { readonly verdict: string; readonly decidedBy: string } | undefined,
): string {
  if (!pairs.split.length) return "";
  const what =
    `${pairs.split.length} of ${pairs.kept.length} pair(s) had write-path probes more than ×${SPEED_STATE_RATIO} apart ` +
    `(${pairs.text}); without them`;
  const again = pairs.oneState.length ? judge(pairs.oneState) : undefined;
  if (!again) return `${what} no pair is left to judge on.`;
  return again.verdict === verdict ? `${what}: the same verdict.` : `${what}: "${again.verdict}" (${again.decidedBy}).`;
}

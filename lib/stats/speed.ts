/**
 * The machine's speed state, measured before each timed run by a fixed write-path probe
 * (lib/engines/postgres/speed-probe.ts), and what a run's spread of it means for its claims.
 *
 * A machine can change speed between runs while load, steal and `SELECT 1` jitter stay quiet, so a
 * between-run ratio can carry the machine's state besides the effect. The probe names the state each
 * trial ran in. A paired statistic takes every pair; the pairs whose two trials' probes differ beyond
 * PAIR_STATE_RULE's ratio are named, and the verdict without them is given beside it as a
 * sensitivity sentence (`stateSensitivity`), never in place of it.
 */
import { median, quantile } from "simple-statistics";

/** One probe's result, recorded on the trial it preceded (`speed` on the trial record). */
export interface SpeedProbe {
  /** What was timed, as text: "400 single-row UPDATE + COMMIT (synchronous_commit off), own database". */
  readonly what: string;
  /** Median and 90th percentile of the statements' client-side latency, ms. */
  readonly medianMs: number;
  readonly p90Ms: number;
  readonly n: number;
  /** When the probe ran (ISO). */
  readonly at: string;
  /** The probe result was taken once for several trials (e.g. once per repeat of 01): which. */
  readonly sharedBy?: string;
}

/**
 * A probe more than this far from the run's median probe (as a ratio, either way) marks its trial as
 * run in another speed state: the two states seen here differ by ~1.7× in the UPDATE's latency, while
 * repeated probes in one state agree within a few per cent.
 */
export const SPEED_STATE_RATIO = 1.25;

export interface SpeedSpread {
  readonly n: number;
  readonly medianMs: number;
  readonly minMs: number;
  readonly maxMs: number;
  /**
   * Upper ÷ lower quartile of the probes: the run's spread, robust to the one warm-up probe or the
   * one trial in another state that sets slowest ÷ fastest (and that ratio only grows with more
   * probes, where the quartiles settle).
   */
  readonly quartileRatio: number;
  /** Keys of trials whose probe differs from the median by more than SPEED_STATE_RATIO. */
  readonly flagged: readonly string[];
  /** "probe median 0.090 ms, quartiles ×1.06 (range 0.081–0.152) over 10 trials; 2 in another state: …". */
  readonly text: string;
}

/** The spread of the speed probes over a run's trials; undefined when no trial has one. */
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

/** Two probe medians within ×SPEED_STATE_RATIO of each other: the same speed state (the edge included). */
export function sameState(aMs: number, bMs: number): boolean {
  if (!(aMs > 0) || !(bMs > 0)) return true;
  return Math.max(aMs, bMs) / Math.min(aMs, bMs) <= SPEED_STATE_RATIO;
}

/**
 * The declared rule for a paired statistic. Every pair counts: each round runs its conditions back to
 * back, so state that differs between rounds is carried by the interval over rounds, and a median of
 * paired ratios tolerates a pair that a flip inside its round bent. The probe cannot sort single
 * trials into states: within one quiet run three consecutive probes read 0.305, 0.103 and 0.194 ms,
 * and every notebook's default run spread its probes over ×2.8–×3.6, wider than the ×1.7 between the
 * two states the probe was built to see (the trial before a probe leaves its checkpoint and dirty
 * buffers behind). Leaving pairs out by it dropped pairs at random (3 of 5 of 04's, all 5 of 02's on
 * a busy machine). So the probe is a stratum for a sensitivity check: a pair whose probes differ by
 * more than ×SPEED_STATE_RATIO is named, and the verdict over the other pairs is given beside it.
 */
export const PAIR_STATE_RULE =
  `every pair counts; a pair whose two trials' write-path probes differ by more than ×${SPEED_STATE_RATIO} ` +
  `(perhaps two speed states) is named, and the verdict without such pairs is given beside it`;

export interface StatePairs<T> {
  /** Every pair: the statistic's input. */
  readonly kept: readonly T[];
  /** The pairs whose probes agree within ×SPEED_STATE_RATIO (or were not probed): the sensitivity check's input. */
  readonly oneState: readonly T[];
  /** The pairs whose probes differ by more than ×SPEED_STATE_RATIO. */
  readonly split: readonly { readonly item: T; readonly label: string; readonly ratio: number }[];
  /** "r3: probes ×1.71 apart", or "" when no pair's probes differ beyond the rule. */
  readonly text: string;
}

/**
 * Applies PAIR_STATE_RULE: `probes` gives a pair's members' probe medians (undefined where a trial
 * was not probed: such a pair is in `oneState`, as nothing says it changed state).
 */
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

/**
 * PAIR_STATE_RULE's sensitivity sentence: whether `verdict` (decided on every pair) stands on the
 * pairs in one state. `judge` re-decides the claim on a subset of the pairs; "" when no pair split.
 */
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

/**
 * The machine's speed state, measured before each timed run by a fixed write-path probe
 * (lib/engines/postgres/speed-probe.ts), and what a run's spread of it means for its claims.
 *
 * This machine flips between two speeds that last whole 30 s runs: tpcb-like at 2.8k ↔ 2.0k TPS and
 * UPDATE pgbench_accounts at 0.088 ↔ 0.15 ms, while a select-only pgbench stayed at 8.0–8.8k TPS and
 * load, steal and `SELECT 1` jitter stayed quiet. A between-run ratio then carries up to ~1.7× of
 * state; the probe names the state each run was in.
 */
import { median } from "simple-statistics";

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
  /** Slowest ÷ fastest probe. */
  readonly ratio: number;
  /** Keys of trials whose probe differs from the median by more than SPEED_STATE_RATIO. */
  readonly flagged: readonly string[];
  /** "probe 0.081–0.152 ms (median 0.090, ×1.88 slowest ÷ fastest); 2 of 10 trials in another state". */
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
  const flagged = probed
    .filter((t) => t.speed.medianMs > m * SPEED_STATE_RATIO || t.speed.medianMs < m / SPEED_STATE_RATIO)
    .map((t) => t.key);
  const f = (x: number) => x.toFixed(3);
  return {
    n: probed.length,
    medianMs: m,
    minMs,
    maxMs,
    ratio: maxMs / minMs,
    flagged,
    text:
      `write-path probe ${f(minMs)}–${f(maxMs)} ms (median ${f(m)}, slowest ÷ fastest ×${(maxMs / minMs).toFixed(2)}) ` +
      `over ${probed.length} trial(s); ` +
      (flagged.length
        ? `${flagged.length} in another speed state (beyond ×${SPEED_STATE_RATIO} of the median): ${flagged.join(", ")}`
        : `none beyond ×${SPEED_STATE_RATIO} of the median`),
  };
}

/**
 * The run-level doubt on a between-run ratio: the spread of the probes, as the distance from 1 that a
 * change of speed state alone could give (slowest ÷ fastest − 1). A claim decided between runs passes
 * it to `decide` as its noise, so the verdict is `inconclusive` when the spread is as large as the effect.
 */
export function speedNoise(
  spread: SpeedSpread | undefined,
): { readonly size: number; readonly neutral: number; readonly what: string } | undefined {
  if (!spread || spread.n < 2) return undefined;
  return {
    size: spread.ratio - 1,
    neutral: 1,
    what: `the run-level spread of the write-path speed probe (×${spread.ratio.toFixed(2)} slowest ÷ fastest)`,
  };
}

/**
 * A seed's claim as a declared hypothesis, and its verdict on this run.
 *
 * A claim names, before any number is seen: the seed's statement and figure, the regime in which the
 * seed made it (sizes, durations, settings), the statistic we compute (which ratio, paired how) and a
 * decision rule with its margins. The verdict then follows from where this run's interval lies
 * against those margins — never from a point estimate alone (criterion and benchstat do the same):
 *
 * - `held` / `did not hold`: the interval lies wholly on one side of the margin (or, for an
 *   equivalence or band rule, wholly inside it / wholly outside it);
 * - `inconclusive`: the interval straddles a margin, is too wide for its coverage, or the run's own
 *   noise is as large as the effect; the verdict says what would decide it;
 * - `not tested at this scale`: the run is outside the claim's regime; says what would test it;
 * - `emulated`: the outcome follows from an input of the run (an emulated delay): a consistency check
 *   of the emulation, never evidence about the seed's system.
 */
import type { Interval } from "./intervals";
import { intervalText } from "./intervals";

export const VERDICTS = ["held", "did not hold", "inconclusive", "not tested at this scale", "emulated"] as const;
export type Verdict = (typeof VERDICTS)[number];

/** What a claim is, declared before the run's numbers: shown in every report beside the verdict. */
export interface Declaration {
  readonly id: string;
  /** The seed's statement, in our words. */
  readonly claim: string;
  /** The seed's own numbers, as text. */
  readonly seed: string;
  /** Where the seed made the claim: sizes, durations, settings. */
  readonly regime: string;
  /** What this notebook computes to test it, paired how. */
  readonly statistic: string;
  /** The decision rule with its margins, as text (see `describeRule`). */
  readonly rule: string;
}

export interface ClaimCheck extends Declaration {
  /** Ours, as text (this run's numbers). */
  readonly ours: string;
  /** The interval the verdict was decided on, when the rule reads one. */
  readonly interval?: Interval;
  readonly verdict: Verdict;
  /** Why this verdict: which side of which margin, or what would decide it. */
  readonly decidedBy: string;
  /** Why the effect is what it is, from this run's server counters; empty when nothing was measured. */
  readonly why: string;
  /** Whether the verdict changes without the trials flagged as outliers or disturbed (checkpoint, autovacuum). */
  readonly sensitivity?: string;
}

/**
 * A decision rule on an interval of the statistic.
 * - `above` / `below`: a directional claim ("B is slower than A": ratio above 1 + margin).
 * - `inside`: an equivalence ("about the same": within ±margin) or a band ("20–30 % lower").
 */
export type Rule =
  | { readonly kind: "above"; readonly margin: number }
  | { readonly kind: "below"; readonly margin: number }
  | { readonly kind: "inside"; readonly low: number; readonly high: number };

export interface Decision {
  readonly verdict: Verdict;
  readonly decidedBy: string;
}

/**
 * The least coverage an interval must have before it can decide a claim. An exact interval of the
 * median from n paired values reaches ≥ 90 % at n = 5 (the min–max range covers it with
 * 1 − 2·0.5⁵ = 93.75 %); with 3 repeats the range covers only 75 %, too little to call a claim.
 */
export const MIN_COVERAGE = 0.9;

const fmtDefault = (x: number) => (Math.abs(x) >= 100 ? x.toFixed(0) : Math.abs(x) >= 10 ? x.toFixed(1) : x.toFixed(2));

export function describeRule(rule: Rule, fmt: (x: number) => string = fmtDefault): string {
  switch (rule.kind) {
    case "above":
      return `held if the whole interval is above ${fmt(rule.margin)}; did not hold if it is wholly at or below ${fmt(rule.margin)}`;
    case "below":
      return `held if the whole interval is below ${fmt(rule.margin)}; did not hold if it is wholly at or above ${fmt(rule.margin)}`;
    case "inside":
      return (
        `held if the whole interval lies inside ${fmt(rule.low)}–${fmt(rule.high)}; ` +
        `did not hold if it lies wholly outside it`
      );
  }
}

export interface DecideOptions {
  /** Formats the statistic in the reasons. */
  readonly fmt?: (x: number) => string;
  /**
   * The run's own noise on the statistic's scale (e.g. the run-to-run spread of the baseline, as a
   * ratio's distance from 1): when the effect (distance of the estimate from `neutral`) is not larger
   * than it, the claim is inconclusive whatever the interval says.
   */
  readonly noise?: { readonly size: number; readonly neutral: number; readonly what: string };
  readonly minCoverage?: number;
}

/** The verdict of a rule on an interval: a pure function, unit-tested at its margins. */
export function decide(rule: Rule, interval: Interval | undefined, options: DecideOptions = {}): Decision {
  const fmt = options.fmt ?? fmtDefault;
  const minCoverage = options.minCoverage ?? MIN_COVERAGE;
  if (!interval || !Number.isFinite(interval.low) || !Number.isFinite(interval.high)) {
    return { verdict: "inconclusive", decidedBy: "no interval: the conditions it needs did not finish" };
  }
  const shown = intervalText(interval, fmt);
  let side: "held" | "did not hold" | undefined;
  let straddles = "";
  switch (rule.kind) {
    case "above":
      if (interval.low > rule.margin) side = "held";
      else if (interval.high <= rule.margin) side = "did not hold";
      else straddles = `${shown} straddles ${fmt(rule.margin)}`;
      break;
    case "below":
      if (interval.high < rule.margin) side = "held";
      else if (interval.low >= rule.margin) side = "did not hold";
      else straddles = `${shown} straddles ${fmt(rule.margin)}`;
      break;
    case "inside":
      if (interval.low >= rule.low && interval.high <= rule.high) side = "held";
      else if (interval.high < rule.low || interval.low > rule.high) side = "did not hold";
      else straddles = `${shown} reaches across the edge of ${fmt(rule.low)}–${fmt(rule.high)}`;
      break;
  }
  if (side === undefined) {
    return { verdict: "inconclusive", decidedBy: `${straddles}: a narrower interval (more repeats) would decide it` };
  }
  if (interval.coverage < minCoverage) {
    const need = repeatsForCoverage(minCoverage);
    return {
      verdict: "inconclusive",
      decidedBy:
        `${shown} would say "${side}", but it covers the median with only ${Math.round(interval.coverage * 100)} %: ` +
        `needs ≥ ${need} paired repeats (has ${interval.n})`,
    };
  }
  if (options.noise) {
    const effect = Math.abs(interval.estimate - options.noise.neutral);
    if (options.noise.size >= effect) {
      return {
        verdict: "inconclusive",
        decidedBy:
          `${shown} would say "${side}", but the effect (${fmt(effect)}) is not larger than ${options.noise.what} ` +
          `(${fmt(options.noise.size)}): a quieter machine or more repeats would decide it`,
      };
    }
  }
  return {
    verdict: side,
    decidedBy:
      side === "held" ? `${shown}: ${describeSide(rule, fmt, true)}` : `${shown}: ${describeSide(rule, fmt, false)}`,
  };
}

function describeSide(rule: Rule, fmt: (x: number) => string, held: boolean): string {
  switch (rule.kind) {
    case "above":
      return held ? `wholly above ${fmt(rule.margin)}` : `wholly at or below ${fmt(rule.margin)}`;
    case "below":
      return held ? `wholly below ${fmt(rule.margin)}` : `wholly at or above ${fmt(rule.margin)}`;
    case "inside":
      return held
        ? `wholly inside ${fmt(rule.low)}–${fmt(rule.high)}`
        : `wholly outside ${fmt(rule.low)}–${fmt(rule.high)}`;
  }
}

/** Paired repeats needed for the min–max range to cover the median with `coverage`: 1 − 2·0.5ⁿ ≥ coverage. */
export function repeatsForCoverage(coverage: number): number {
  let n = 1;
  while (1 - 2 * 0.5 ** n < coverage) n++;
  return n;
}

/** A claim outside its regime: no verdict on the seed's statement, and what would test it. */
export function notTestedAtThisScale(
  declaration: Declaration,
  ours: string,
  outside: string,
  howToTest: string,
): ClaimCheck {
  return {
    ...declaration,
    ours,
    verdict: "not tested at this scale",
    decidedBy: `${outside}; ${howToTest}`,
    why: "",
  };
}

/** A claim whose outcome follows from an input of this run: checks the emulation, not the seed's system. */
export function emulated(declaration: Declaration, ours: string, consistency: string, why = ""): ClaimCheck {
  return { ...declaration, ours, verdict: "emulated", decidedBy: consistency, why };
}

/** A claim that cannot be judged: the conditions it needs are missing from this run. */
export function missing(declaration: Declaration, needs: string): ClaimCheck {
  return { ...declaration, ours: "no data", verdict: "inconclusive", decidedBy: needs, why: "" };
}

/** Rows for the claims table: the declaration beside the verdict, as the reader needs both. */
export function claimRows(claims: readonly ClaimCheck[]): Record<string, string>[] {
  return claims.map((c) => ({
    claim: `${c.id}. ${c.claim}`,
    seed: c.seed,
    regime: c.regime,
    statistic: c.statistic,
    rule: c.rule,
    "this run": c.ours,
    verdict: c.verdict,
    "decided by": c.decidedBy + (c.sensitivity ? ` ${c.sensitivity}` : ""),
    why: c.why,
  }));
}

/** One line per verdict value: "2 held, 1 inconclusive". */
export function verdictSummary(claims: readonly ClaimCheck[]): string {
  const counts = new Map<Verdict, number>();
  for (const c of claims) counts.set(c.verdict, (counts.get(c.verdict) ?? 0) + 1);
  return VERDICTS.filter((v) => counts.has(v))
    .map((v) => `${counts.get(v)} ${v}`)
    .join(", ");
}

/**
 * Attaches to each claim whether its verdict changes without the flagged trials (outliers by
 * OUTLIER_RULE, or a checkpoint/autovacuum inside the timed window): `without` are the same claims
 * judged on the data with those trials left out.
 */
export function withSensitivity(
  claims: readonly ClaimCheck[],
  without: readonly ClaimCheck[],
  flagged: number,
): ClaimCheck[] {
  if (flagged === 0)
    return claims.map((c) => ({
      ...c,
      sensitivity: "No trial was flagged (outlier, checkpoint or autovacuum in its window).",
    }));
  return claims.map((c) => {
    const other = without.find((w) => w.id === c.id);
    const what = `Without the ${flagged} flagged trial(s) (outliers, or a checkpoint/autovacuum in the timed window)`;
    if (!other) return { ...c, sensitivity: `${what}: this claim cannot be judged.` };
    return {
      ...c,
      sensitivity:
        other.verdict === c.verdict
          ? `${what}: the same verdict.`
          : `${what}: "${other.verdict}" instead (${other.decidedBy}).`,
    };
  });
}

/**
 * Combines the verdicts of one claim's parts (e.g. two operations): all held → held; any did not hold → did not hold.
 */
export function allOf(parts: readonly Decision[]): Verdict {
  if (parts.length && parts.every((p) => p.verdict === "held")) return "held";
  if (parts.some((p) => p.verdict === "did not hold")) return "did not hold";
  return "inconclusive";
}

/**
 * One step of an adaptive design: after the planned rounds, add one at a time while a headline claim
 * is inconclusive, up to a cap and a time budget; the looks share the claim's stated error (`lookPlan`).
 */
import { medianRank } from "./intervals";

/** As stats/claims' MIN_COVERAGE (not imported: claims imports nothing of this). */
const STATED = 0.9;

/**
 * How an adaptive design spends its stated coverage: each look's interval reaches `level`, chosen so
 * that all looks' intervals cover the median together with probability ≥ `coverage`.
 */
export interface LookPlan {
  readonly coverage: number;
  readonly level: number;
  /** Rounds at which a look can decide: the planned ones, then each n where the interval at `level` moves inward. */
  readonly looks: readonly number[];
  /** All looks' intervals cover the median together with this probability (≥ `coverage`). */
  readonly family: number;
}

/** Exact probability that every look's interval covers the median (the count below it is a fair coin walk). */
export function familyCoverage(looks: readonly { readonly n: number; readonly rank: number }[]): number {
  let dist = [1];
  let at = 0;
  for (const { n, rank } of [...looks].sort((a, b) => a.n - b.n)) {
    for (; at < n; at++) {
      const next = new Array<number>(dist.length + 1).fill(0);
      dist.forEach((p, b) => {
        next[b] += p / 2;
        next[b + 1] += p / 2;
      });
      dist = next;
    }
    if (rank > 0) dist = dist.map((p, below) => (below >= rank && below <= n - rank ? p : 0));
  }
  return dist.reduce((a, b) => a + b, 0);
}

/** The least per-look coverage (0.05 % steps) whose looks keep `coverage` together (Pocock's idea, exact intervals). */
export function lookPlan(planned: number, maxRounds: number, coverage = STATED): LookPlan {
  const key = `${planned}/${maxRounds}/${coverage}`;
  const known = plans.get(key);
  if (known) return known;
  const plan = searchPlan(planned, maxRounds, coverage);
  plans.set(key, plan);
  return plan;
}

/** Memoised: the answer depends only on the design's sizes. */
const plans = new Map<string, LookPlan>();

function searchPlan(planned: number, maxRounds: number, coverage: number): LookPlan {
  for (let step = 0; step < 200; step++) {
    const level = Math.round((coverage + step * 0.0005) * 1e4) / 1e4;
    const looks = [planned, ...informativeRounds(level, maxRounds).filter((n) => n > planned && n <= maxRounds)];
    const family = familyCoverage(looks.map((n) => ({ n, rank: medianRank(n, level) })));
    if (family >= coverage) return { coverage, level, looks, family };
  }
  // Never reached for the designs' sizes; one look at the stated coverage always keeps it.
  return { coverage, level: coverage, looks: [planned], family: coverage };
}

const pct = (x: number) => `${(Math.round(x * 1000) / 10).toString()} %`;

export function lookLevel(s: unknown): number | undefined {
  const looks = typeof s === "object" && s !== null ? (s as { readonly looks?: LookPlan }).looks : undefined;
  return looks && looks.level > looks.coverage ? looks.level : undefined;
}

/** The plan in words, e.g. "adaptive: up to 2 looks that can decide (n = 5, 9), each at coverage ≥ 93 % …". */
export function lookText(p: LookPlan): string {
  const deciding = p.looks.filter((n) => medianRank(n, p.level) > 0);
  if (deciding.length <= 1)
    return deciding.length
      ? `adaptive: one look that can decide (n = ${deciding[0]}), at coverage ≥ ${pct(p.level)}`
      : `adaptive: no look can decide (up to n = ${Math.max(...p.looks)} the interval covers less than ${pct(p.level)})`;
  return (
    `adaptive: up to ${deciding.length} looks that can decide (n = ${deciding.join(", ")}), each at coverage ≥ ` +
    `${pct(p.level)} so that all looks together keep ${pct(p.coverage)} (exactly ${pct(p.family)})`
  );
}

export interface RoundWords {
  /** e.g. "repeat"/"repeats", "round"/"rounds". */
  readonly one: string;
  readonly many: string;
  /** e.g. "maxRepeats", "maxSets". */
  readonly cap: string;
}

export interface RoundState {
  readonly done: number;
  readonly planned: number;
  readonly maxRepeats: number;
  readonly elapsedSeconds: number;
  readonly budgetSeconds: number;
  /** Average seconds per added round: rounds are added only if those needed fit the budget (else until it is spent). */
  readonly secondsPerRound?: number;
  readonly needed?: number;
  /** Inconclusive claims more rounds are for, e.g. "claim (2)". */
  readonly undecided: readonly string[];
  /** How the claims stand once none is undecided, e.g. "(1) held, (2) did not hold". */
  readonly decided: string;
  readonly words: RoundWords;
  /** 90 % unless given. */
  readonly coverage?: number;
}

export interface RoundStep {
  readonly more: boolean;
  readonly reason: string;
}

/**
 * Rounds at which more rounds can change a decision at `level`: the first n reaching the coverage,
 * then every n where the order statistic moves inward; in between the interval can only widen.
 */
export function informativeRounds(level = 0.9, upTo = 64): number[] {
  const out: number[] = [];
  let prevRank = 0;
  for (let n = 1; n <= upTo; n++) {
    const k = medianRank(n, level);
    if (k > prevRank) out.push(n);
    prevRank = Math.max(prevRank, k);
  }
  return out;
}

export function nextInformativeRound(done: number, level = 0.9): number {
  return informativeRounds(level, Math.max(64, done + 64)).find((n) => n > done) ?? done + 1;
}

/** Whether to run one more round, and why. */
export function nextRound(s: RoundState): RoundStep {
  const plan = lookPlan(s.planned, s.maxRepeats, s.coverage);
  const step = stepTo(s, plan);
  return step.more || s.maxRepeats <= s.planned ? step : { ...step, reason: `${step.reason}; ${lookText(plan)}` };
}

function stepTo(s: RoundState, plan: LookPlan): RoundStep {
  const { one, many, cap } = s.words;
  const looks = plan.looks.filter((n) => n === s.planned || n <= s.done);
  const looked = looks.length > 1 ? ` (looked at n = ${looks.join(", ")})` : "";
  if (!s.undecided.length) {
    const after = s.done > s.planned ? `${s.done} ${many}` : `the planned ${many}`;
    return { more: false, reason: `${s.decided} after ${after}${looked}` };
  }
  const open = s.undecided.join(", ");
  const target = Math.max(
    plan.looks.find((n) => n > s.done) ?? nextInformativeRound(s.done, plan.level),
    s.needed ?? 0,
  );
  if (s.done >= s.maxRepeats)
    return { more: false, reason: `${open} still inconclusive at ${cap} = ${s.maxRepeats}${looked}` };
  if (target > s.maxRepeats) {
    return {
      more: false,
      reason:
        `${open} still inconclusive after ${s.done} ${many}${looked}: the next n at which the exact interval of ` +
        `the median can move at the per-look coverage ${pct(plan.level)} is ${target}, above ${cap} = ${s.maxRepeats}`,
    };
  }
  const more = target - s.done;
  if (s.secondsPerRound === undefined) {
    if (s.elapsedSeconds >= s.budgetSeconds) {
      return {
        more: false,
        reason: `${open} still inconclusive when the time budget (${s.budgetSeconds} s) was spent, after ${s.done} ${many}${looked}`,
      };
    }
    return {
      more: true,
      reason: `${open} inconclusive after ${s.done} ${many}, within the time budget: on to n = ${target}`,
    };
  }
  if (s.elapsedSeconds + more * s.secondsPerRound > s.budgetSeconds) {
    return {
      more: false,
      reason:
        `${open} still inconclusive after ${s.done} ${one}(s)${looked}: ${more} more (to n = ${target}, where the ` +
        `interval can move) at ~${Math.round(s.secondsPerRound)} s a ${one} would pass the time budget (${s.budgetSeconds} s)`,
    };
  }
  return {
    more: true,
    reason: `${open} inconclusive after ${s.done} ${many}: ${more} more fit in the time budget (to n = ${target})`,
  };
}

export interface PlannedRoundState {
  readonly round: number;
  /** Rounds a verdict needs: never cut before them. */
  readonly needed: number;
  readonly elapsedSeconds: number;
  readonly secondsPerRound: number;
  readonly budgetSeconds: number;
}

/** Whether a planned round starts: past the rounds a verdict needs, not if it would end after the budget. */
export function plannedRoundFits(s: PlannedRoundState): boolean {
  return s.round <= s.needed || s.elapsedSeconds + s.secondsPerRound <= s.budgetSeconds;
}

/**
 * One step of an adaptive design (notebooks 01, 03, 04, 06): after the planned rounds (repeats,
 * sets), add one more at a time while a headline claim is inconclusive, up to a cap and a time
 * budget. Each look at the data may decide, so the looks share the error a claim states: every look
 * is decided at a higher per-look coverage chosen so that all looks together keep it (`lookPlan`).
 * Pure, so that each stop reason is unit-tested without servers (test/unit/adaptive.test.ts).
 */
import { medianRank } from "./intervals";

/** The coverage a claim states, as stats/claims' MIN_COVERAGE (not imported: claims imports nothing of this). */
const STATED = 0.9;

/**
 * How an adaptive design spends its stated coverage over its looks: each look's interval of the
 * median must reach `level`, chosen so that the chance that every look's interval covers the median
 * is at least `coverage`. A look can only decide a claim wrongly when its interval misses the median
 * (with the median on the margin, an interval wholly on one side misses it), so all the looks
 * together err at most 1 − coverage, however many of them the design takes.
 */
export interface LookPlan {
  /** The coverage all looks together keep: the one a claim states. */
  readonly coverage: number;
  /** The coverage each look's interval must reach. */
  readonly level: number;
  /**
   * The numbers of rounds at which a look can decide: the planned rounds, then each n up to the cap
   * where the interval at `level` moves inward.
   */
  readonly looks: readonly number[];
  /** All looks' intervals cover the median together with this probability (exact, ≥ `coverage`). */
  readonly family: number;
}

/**
 * The exact probability that the order-statistic intervals of the median at every look cover it
 * together, for independent values of a continuous distribution: at a look of n values with rank k
 * the interval misses when fewer than k values lie below the median or fewer than k above, and the
 * count below is a walk of fair coin flips, so one pass over its distribution gives the answer.
 * A look with rank 0 decides nothing (it cannot miss).
 */
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

/**
 * The spending rule: the least per-look coverage (in steps of 0.05 %) whose looks — the planned
 * rounds, then every n up to `maxRounds` where the interval at that coverage moves inward — keep
 * `coverage` together (Pocock's idea: one level for every look, on the exact order-statistic
 * intervals instead of a normal approximation). With no added rounds it is `coverage` itself.
 */
export function lookPlan(planned: number, maxRounds: number, coverage = STATED): LookPlan {
  const key = `${planned}/${maxRounds}/${coverage}`;
  const known = plans.get(key);
  if (known) return known;
  const plan = searchPlan(planned, maxRounds, coverage);
  plans.set(key, plan);
  return plan;
}

/** Plans already searched: a design asks after every round, and the answer depends only on its sizes. */
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

/**
 * An adaptive run's per-look coverage: its summary carries the design's look plan as `looks`
 * (stats/adaptive `lookPlan`), and every claim on it is decided at that level, so that the looks
 * together keep the coverage a claim states.
 */
export function lookLevel(s: unknown): number | undefined {
  const looks = typeof s === "object" && s !== null ? (s as { readonly looks?: LookPlan }).looks : undefined;
  return looks && looks.level > looks.coverage ? looks.level : undefined;
}

/**
 * The plan as the declaration and the run's notes say it: "adaptive: up to 2 looks that can decide
 * (n = 5, 9), each at coverage ≥ 93 % so that all looks together keep 90 % (exactly 91.8 %)". A look
 * with too few rounds for the level (n = 3 at 90 %) decides nothing and is not counted.
 */
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

/** How a design names its rounds and its cap in the reasons it records. */
export interface RoundWords {
  /** One round and several: "repeat"/"repeats", "round"/"rounds", "set"/"sets". */
  readonly one: string;
  readonly many: string;
  /** The parameter that caps them, as the user sets it: "maxRepeats", "maxSets". */
  readonly cap: string;
}

export interface RoundState {
  /** Rounds run so far, and the rounds planned before any was added. */
  readonly done: number;
  readonly planned: number;
  readonly maxRepeats: number;
  /** Seconds since the run started, and the run's time budget. */
  readonly elapsedSeconds: number;
  readonly budgetSeconds: number;
  /**
   * Seconds one more round took so far, on average. With it, a round is added only if the rounds a
   * verdict needs (`needed`) fit in the budget at that pace; without it (01), rounds are added until
   * the budget is spent.
   */
  readonly secondsPerRound?: number;
  /** Rounds an interval needs before it can decide a claim (one more where it has them already). */
  readonly needed?: number;
  /** The claims more rounds are for that are still inconclusive, as the reason names them ("claim (2)"). */
  readonly undecided: readonly string[];
  /** How the claims stand once none is undecided ("(1) held, (2) did not hold"); the reason begins with it. */
  readonly decided: string;
  readonly words: RoundWords;
  /** The coverage the claims state, spent over the looks (`lookPlan`); 90 % unless given. */
  readonly coverage?: number;
}

export interface RoundStep {
  /** Run one more round. */
  readonly more: boolean;
  /** Why: what stopped the design, or what the next round is for. */
  readonly reason: string;
}

/**
 * The numbers of rounds at which more rounds can change a decision, for the exact interval of the
 * median at `level` (intervals.ts): the first n whose interval reaches the coverage a claim needs
 * (5 at 90 %), then every n where the order statistic it uses moves inward (8: 2nd–7th, 11: 3rd–9th,
 * …). Between two of them the rank stays and the interval can only widen as values are added (the
 * k-th smallest of more values is never larger), so a look there cannot turn "inconclusive" into a
 * verdict the interval decides. Written here: a few lines on the binomial tail, as in intervals.ts.
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

/** The next number of rounds after `done` at which a look can change a decision. */
export function nextInformativeRound(done: number, level = 0.9): number {
  return informativeRounds(level, Math.max(64, done + 64)).find((n) => n > done) ?? done + 1;
}

/**
 * Whether to run one more round, and why. The rounds it adds go to the looks of the design's
 * `lookPlan`, and a reason it stops with says how the looks share the stated coverage.
 */
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
  // The next look of the plan; past the last one, where the interval at the plan's level next moves.
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
  /** The planned round about to start (1-based). */
  readonly round: number;
  /** Rounds a verdict needs (5 at 90 %): never cut before them, whatever the budget. */
  readonly needed: number;
  /** Seconds since the run started, the pace of the rounds so far, and the run's time budget. */
  readonly elapsedSeconds: number;
  readonly secondsPerRound: number;
  readonly budgetSeconds: number;
}

/**
 * Whether a planned round starts: past the rounds a verdict needs, a round that would end after the
 * budget (at the pace so far) is not started, so a slow machine ends near its budget with the
 * rounds it could afford instead of running every planned round late. Ending exactly at the budget fits.
 */
export function plannedRoundFits(s: PlannedRoundState): boolean {
  return s.round <= s.needed || s.elapsedSeconds + s.secondsPerRound <= s.budgetSeconds;
}

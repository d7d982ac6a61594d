/**
 * One step of an adaptive design (notebooks 01, 03, 04): after the planned rounds (repeats, sets),
 * add one more at a time while a headline claim is inconclusive, up to a cap and a time budget.
 * Pure, so that each stop reason is unit-tested without servers (test/unit/adaptive.test.ts).
 */
import { medianRank } from "./intervals";

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

export function nextRound(s: RoundState): RoundStep {
  const { one, many, cap } = s.words;
  const looksAt = informativeRounds(0.9, Math.max(s.done, s.planned)).filter((n) => n > s.planned && n <= s.done);
  const looks = [s.planned, ...looksAt];
  const looked = looks.length > 1 ? ` (looked at n = ${looks.join(", ")})` : "";
  if (!s.undecided.length) {
    const after = s.done > s.planned ? `${s.done} ${many}` : `the planned ${many}`;
    return { more: false, reason: `${s.decided} after ${after}${looked}` };
  }
  const open = s.undecided.join(", ");
  const target = Math.max(nextInformativeRound(s.done), s.needed ?? 0);
  if (s.done >= s.maxRepeats)
    return { more: false, reason: `${open} still inconclusive at ${cap} = ${s.maxRepeats}${looked}` };
  if (target > s.maxRepeats) {
    return {
      more: false,
      reason:
        `${open} still inconclusive after ${s.done} ${many}${looked}: the next n at which the exact interval of ` +
        `the median can move is ${target}, above ${cap} = ${s.maxRepeats}`,
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

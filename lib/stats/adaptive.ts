/**
 * One step of an adaptive design (notebooks 01, 03, 04): after the planned rounds (repeats, sets),
 * add one more at a time while a headline claim is inconclusive, up to a cap and a time budget.
 * Pure, so that each stop reason is unit-tested without servers (test/unit/adaptive.test.ts).
 */

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

export function nextRound(s: RoundState): RoundStep {
  const { one, many, cap } = s.words;
  if (!s.undecided.length) {
    const after = s.done > s.planned ? `${s.done} ${many}` : `the planned ${many}`;
    return { more: false, reason: `${s.decided} after ${after}` };
  }
  const open = s.undecided.join(", ");
  if (s.done >= s.maxRepeats) return { more: false, reason: `${open} still inconclusive at ${cap} = ${s.maxRepeats}` };
  if (s.secondsPerRound === undefined) {
    if (s.elapsedSeconds >= s.budgetSeconds) {
      return {
        more: false,
        reason: `${open} still inconclusive when the time budget (${s.budgetSeconds} s) was spent, after ${s.done} ${many}`,
      };
    }
    return { more: true, reason: `${open} inconclusive after ${s.done} ${many}, within the time budget` };
  }
  const more = Math.max(1, (s.needed ?? 0) - s.done);
  if (s.elapsedSeconds + more * s.secondsPerRound > s.budgetSeconds) {
    return {
      more: false,
      reason:
        `${open} still inconclusive after ${s.done} ${one}(s): ${more} more at ~${Math.round(s.secondsPerRound)} s a ${one} ` +
        `would pass the time budget (${s.budgetSeconds} s)`,
    };
  }
  return { more: true, reason: `${open} inconclusive after ${s.done} ${many}: ${more} more fit in the time budget` };
}

import { plannedRoundFits, type RoundState } from "../stats/adaptive";
import { MIN_COVERAGE, repeatsForCoverage } from "../stats/claims";
import type { PlannedTrial } from "../workloads/trials";

export async function addRounds(
  planned: number,
  stopAfter: (done: number) => string | undefined,
  runRound: (round: number) => Promise<void>,
): Promise<{ readonly rounds: number; readonly stoppedBy: string }> {
  for (let done = planned; ; done++) {
    const stoppedBy = stopAfter(done);
    if (stoppedBy !== undefined) return { rounds: done, stoppedBy };
    await runRound(done + 1);
  }
}

export interface RoundPace {
  /** Since the run started: the budget counts from there. */
  readonly elapsedSeconds: number;
  /** The rounds' own time: no server start, no load. */
  readonly secondsPerRound: number;
}

export interface AdaptiveRounds {
  /** `needed`: the least a verdict needs, never cut below it. */
  readonly planned: number;
  readonly needed: number;
  readonly budgetSeconds: number;
  readonly startedAt: number;
  /** What a round is called in the cut's sentence ("rounds", "sets"). */
  readonly many: string;
  readonly signal?: AbortSignal;
  /** A resumed run's finished trials are skipped inside. */
  readonly runRound: (round: number) => Promise<void>;
  /** Why to stop after `done`, or undefined for one more. */
  readonly stopAfter: (done: number, pace: RoundPace) => string | undefined;
}

/** Planned rounds start only if they fit the budget at the pace so far (docs/statistics.md); a cut lowers `planned`. */
export async function runAdaptiveRounds(o: AdaptiveRounds) {
  const roundsStarted = Date.now();
  const pace = (done: number): RoundPace => ({
    elapsedSeconds: (Date.now() - o.startedAt) / 1000,
    secondsPerRound: done > 0 ? (Date.now() - roundsStarted) / 1000 / done : 0,
  });
  let planned = 0;
  let cut: string | undefined;
  for (let round = 1; round <= o.planned; round++) {
    const state = { round, needed: o.needed, budgetSeconds: o.budgetSeconds, ...pace(round - 1) };
    if (!plannedRoundFits(state)) {
      cut =
        `planned ${o.many} cut at ${planned} of ${o.planned}: one more at ~${state.secondsPerRound.toFixed(0)} s ` +
        `would pass the time budget (${o.budgetSeconds} s)`;
      break;
    }
    await o.runRound(round);
    planned = round;
  }
  const { rounds, stoppedBy } = cut
    ? { rounds: planned, stoppedBy: cut }
    : await addRounds(
        planned,
        (done) => (o.signal?.aborted ? "interrupted" : o.stopAfter(done, pace(done))),
        (round) => o.runRound(round),
      );
  return { planned, rounds, stoppedBy, ...(cut ? { cut } : {}) };
}

/** What a notebook's adaptive step is given: the rounds done and planned, the cap, the budget and the pace. */
export type RoundsSoFar = Omit<RoundState, "undecided" | "decided" | "words">;

export interface AdaptivePlan<PT extends PlannedTrial<object>> extends Omit<
  AdaptiveRounds,
  "needed" | "runRound" | "stopAfter"
> {
  /** The cap on rounds (maxRepeats, maxSets). */
  readonly max: number;
  /** The run's notes: the cut, if any, and the design's end. */
  readonly notes: string[];
  /** Round `r`'s trials (`repeat` r). */
  readonly part: (round: number) => readonly PT[];
  /** `plan`: every trial so far, an added round's among them. */
  readonly runPart: (part: readonly PT[], plan: readonly PT[]) => Promise<unknown>;
  /** A round past the planned ones joins the plan (the ETA plans for it). */
  readonly onAdded?: (round: number) => void;
  readonly stopAfter: (r: RoundsSoFar) => string | undefined;
}

/** runAdaptiveRounds over a plan of rounds that grows as rounds are added; returns the plan of the rounds run. */
export async function runAdaptivePlan<PT extends PlannedTrial<object>>(o: AdaptivePlan<PT>) {
  const needed = repeatsForCoverage(MIN_COVERAGE);
  let plan = Array.from({ length: o.planned }, (_, i) => o.part(i + 1)).flat();
  const r = await runAdaptiveRounds({
    ...o,
    needed,
    runRound: async (round) => {
      const part = round > o.planned ? o.part(round) : plan.filter((t) => t.repeat === round);
      if (round > o.planned) {
        plan = [...plan, ...part];
        o.onAdded?.(round);
      }
      await o.runPart(part, plan);
    },
    stopAfter: (done, pace) =>
      o.stopAfter({ done, planned: o.planned, maxRepeats: o.max, needed, budgetSeconds: o.budgetSeconds, ...pace }),
  });
  if (r.cut) o.notes.push(r.cut);
  const design = `planned ${o.planned} ${o.many}, at most ${o.max}, budget ${o.budgetSeconds} s`;
  o.notes.push(`adaptive design: ${r.stoppedBy} (${design})`);
  return { ...r, plan: plan.filter((t) => t.repeat <= r.rounds) };
}

/** Rounds = the params' `repeats`, up to `maxRepeats`, within `budgetSeconds`; an added round re-plans the ETA. */
export const repeatedRounds = <
  P extends { readonly repeats: number; readonly maxRepeats: number; readonly budgetSeconds: number },
>(
  p: P,
  estimateAs: (p: P) => void,
) => ({
  planned: p.repeats,
  max: p.maxRepeats,
  budgetSeconds: p.budgetSeconds,
  many: "rounds",
  onAdded: (round: number) => estimateAs({ ...p, repeats: round }),
});

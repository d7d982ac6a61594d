/**
 * The loop of an adaptive design (01, 03, 04, 06): after the planned rounds have run, ask whether one
 * more is worth running (each experiment decides with lib/stats/adaptive.ts's `nextRound` on this
 * run's claims so far), run it, and ask again.
 */
import { plannedRoundFits } from "../stats/adaptive";

export async function addRounds(
  planned: number,
  /** Why to stop after `done` rounds, or undefined to run one more. */
  stopAfter: (done: number) => string | undefined,
  /** Runs round number `round` (planned + 1, planned + 2, …). */
  runRound: (round: number) => Promise<void>,
): Promise<{ readonly rounds: number; readonly stoppedBy: string }> {
  for (let done = planned; ; done++) {
    const stoppedBy = stopAfter(done);
    if (stoppedBy !== undefined) return { rounds: done, stoppedBy };
    await runRound(done + 1);
  }
}

/** The pace so far, for the next step's budget check. */
export interface RoundPace {
  /** Seconds since the run started (the budget counts from there). */
  readonly elapsedSeconds: number;
  /** Seconds a round took so far, on average (the rounds' own time: no server start, no load). */
  readonly secondsPerRound: number;
}

export interface AdaptiveRounds {
  /** Rounds the params plan, and the least a verdict needs (never cut below it). */
  readonly planned: number;
  readonly needed: number;
  readonly budgetSeconds: number;
  /** Date.now() at the run's start. */
  readonly startedAt: number;
  /** "rounds", "sets": what a round is called in the cut's sentence. */
  readonly many: string;
  readonly signal?: AbortSignal;
  /** Runs round `round` (1-based), planned or added; a resumed run's finished trials are skipped inside. */
  readonly runRound: (round: number) => Promise<void>;
  /** After the planned rounds: why to stop after `done`, or undefined for one more (`nextRound`). */
  readonly stopAfter: (done: number, pace: RoundPace) => string | undefined;
}

export interface AdaptiveOutcome {
  /** Planned rounds that ran (fewer than planned when the budget cut them). */
  readonly planned: number;
  /** Rounds that ran in all. */
  readonly rounds: number;
  readonly stoppedBy: string;
  /** Why the planned rounds were cut, when they were. */
  readonly cut?: string;
}

/**
 * One driver for every adaptive design: the planned rounds one at a time, each started only if it
 * fits the budget at the pace so far once the rounds a verdict needs have run (`plannedRoundFits`:
 * on this machine a default round of 06 took 29–42 s as other load came and went, so eight planned
 * rounds alone could pass the profile's budget), then one more at a time while `stopAfter` says so.
 */
export async function runAdaptiveRounds(o: AdaptiveRounds): Promise<AdaptiveOutcome> {
  const roundsStarted = Date.now();
  const pace = (done: number): RoundPace => ({
    elapsedSeconds: (Date.now() - o.startedAt) / 1000,
    secondsPerRound: done > 0 ? (Date.now() - roundsStarted) / 1000 / done : 0,
  });
  let planned = 0;
  let cut: string | undefined;
  for (let round = 1; round <= o.planned; round++) {
    const { elapsedSeconds, secondsPerRound } = pace(round - 1);
    if (
      !plannedRoundFits({ round, needed: o.needed, elapsedSeconds, secondsPerRound, budgetSeconds: o.budgetSeconds })
    ) {
      cut =
        `planned ${o.many} cut at ${planned} of ${o.planned}: one more at ~${secondsPerRound.toFixed(0)} s would ` +
        `pass the time budget (${o.budgetSeconds} s)`;
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

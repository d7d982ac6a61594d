/**
 * The loop of an adaptive design (01, 03, 04): after the planned rounds have run, ask whether one
 * more is worth running (each experiment decides with lib/stats/adaptive.ts's `nextRound` on this
 * run's claims so far), run it, and ask again.
 */
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

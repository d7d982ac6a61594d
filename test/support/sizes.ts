/**
 * 02 with the `full` profile's code path at a size this machine runs in about a minute: its 300k-row
 * trials take seconds, so a fault injected once two trials are on disk lands inside the next one.
 */
export const SMALL_FULL_02 = {
  rows: 300_000,
  rowSweep: [30_000],
  repeats: 2,
  sweepRepeats: 1,
  memorySweepMB: [64],
  workerSweep: [0],
  keyOrders: ["random"] as const,
  walAnatomyRows: 0,
};

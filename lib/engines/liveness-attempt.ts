/** One liveness probe under way (each engine's lives in its folder; the list in liveness.ts). */
export interface LivenessAttempt {
  /** Resolves when the server answered; rejects with the driver's error. */
  readonly answered: Promise<void>;
  /** Ends the probe's connection (may wait as long as a frozen server does: do not await it). */
  readonly close: () => Promise<void>;
}

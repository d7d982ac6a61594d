export interface LivenessAttempt {
  readonly answered: Promise<void>;
  /** May wait as long as a frozen server does: do not await it. */
  readonly close: () => Promise<void>;
}

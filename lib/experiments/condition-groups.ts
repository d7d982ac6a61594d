/** A run's trials per condition, as the summarisers that time whole trials start from. */
import { isOk, type OkOf, type TrialRecord } from "../results/run-store";
import { outlierFlags } from "../stats/intervals";
import { groupBy } from "../stats/summary";

export interface ConditionGroup<T extends TrialRecord<object, string>> {
  /** The condition's finished trials, in the run's order. */
  readonly all: OkOf<T>[];
  /** How many of the condition's trials failed. */
  readonly failed: number;
  /** The repeats whose seconds are outliers among the condition's (lib/stats/intervals.ts). */
  readonly outlierRepeats: number[];
}

/** One group per condition with a finished trial, in the order its first finished trial ran. */
export function conditionGroups<C extends object, T extends TrialRecord<C, string>>(
  trials: readonly T[],
  keyOf: (condition: C) => string,
): ConditionGroup<T>[] {
  const failed = groupBy(
    trials.filter((t) => t.status === "failed"),
    (t) => keyOf(t.condition),
  );
  return [...groupBy(trials.filter(isOk), (t) => keyOf(t.condition))].map(([key, all]) => {
    const flags = outlierFlags(all.map((t) => t.seconds));
    return {
      all,
      failed: failed.get(key)?.length ?? 0,
      outlierRepeats: all.filter((_, i) => flags[i]).map((t) => t.repeat),
    };
  });
}

/** A run's trials per condition, as the summarisers that time whole trials start from. */
import { isOk, type OkOf, type TrialRecord } from "../results/run-store";
import type { Counters } from "../stats/counters";
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
  const failedTrials = trials.filter((t) => t.status === "failed");
  const failed = groupBy(failedTrials, (t) => keyOf(t.condition));
  return [...groupBy(trials.filter(isOk), (t) => keyOf(t.condition))].map(([key, all]) => {
    const flags = outlierFlags(all.map((t) => t.seconds));
    const outlierRepeats = all.filter((_, i) => flags[i]).map((t) => t.repeat);
    return { all, failed: failed.get(key)?.length ?? 0, outlierRepeats };
  });
}

/** The repeats a checkpoint or an autovacuum of the table ran in, by the trials' counters. */
export const checkpointOrAutovacuumRepeats = (
  trials: readonly {
    readonly repeat: number;
    readonly counters?: Counters<"checkpoints" | "table.autovacuum_count">;
  }[],
): number[] =>
  trials
    .filter((t) => (t.counters?.["checkpoints"] ?? 0) > 0 || (t.counters?.["table.autovacuum_count"] ?? 0) > 0)
    .map((t) => t.repeat);

/** What a condition's summary says of its timed trials, as the helpers below read it. */
export type TimedConditionSummary = Readonly<
  Record<"trials" | "failed" | "medianSeconds" | "minSeconds" | "maxSeconds", number> &
    Record<"outlierRepeats" | "disturbedRepeats", readonly number[]>
>;

/** summary.csv's columns for a condition's trials and their seconds. */
export const secondsColumns = (
  s: Pick<TimedConditionSummary, "trials" | "failed" | "medianSeconds" | "minSeconds" | "maxSeconds">,
) => ({
  trials: s.trials,
  failed: s.failed,
  median_s: s.medianSeconds,
  min_s: s.minSeconds,
  max_s: s.maxSeconds,
});

/** summary.csv's columns for the repeats the sensitivity summary leaves out. */
export const flaggedColumns = (s: TimedConditionSummary) => ({
  outlier_repeats: s.outlierRepeats.join(" "),
  disturbed_repeats: s.disturbedRepeats.join(" "),
});

/** The summary table's "flagged" cell: the outlier repeats and the disturbed ones, each named as the notebook says. */
export const flaggedCell = (s: TimedConditionSummary, repeat: string, disturbance: string): string =>
  [
    s.outlierRepeats.length ? `outlier: ${repeat} ${s.outlierRepeats.join(", ")}` : "",
    s.disturbedRepeats.length ? `${disturbance}: ${repeat} ${s.disturbedRepeats.join(", ")}` : "",
  ]
    .filter(Boolean)
    .join("; ");

/** How many trials are flagged: a repeat both an outlier and disturbed counts once. */
export const flaggedTrials = (summary: readonly TimedConditionSummary[]): number =>
  summary.reduce((n, s) => n + new Set([...s.outlierRepeats, ...s.disturbedRepeats]).size, 0);

/** The progress line of trials timed in seconds: the last one's time (or that it failed), then the next one. */
export const timedTrialProgress = (last: TrialRecord<object, string> | undefined, next: string | undefined): string =>
  `${last ? `last: ${last.key} ${last.status === "ok" ? `${last.seconds.toFixed(3)} s` : "failed"} · ` : ""}` +
  `${next !== undefined ? `next: ${next}` : "done"}`;

/** The claims table's caption where the claims are PostgreSQL's documentation's, not a seed's. */
export const POSTGRES_DOCS_CLAIMS_CAPTION =
  "PostgreSQL's documented behaviour on this machine: each claim declared with its regime, statistic and decision " +
  "rule; the verdict follows from where the interval lies against the rule's margins";

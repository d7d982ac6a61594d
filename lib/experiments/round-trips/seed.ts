/** Seed 004's published figures (data/reference/published-results.csv, experiment commit_latency). */
import { publishedFigures } from "../../results/reference";

export type SeedCondition = "local" | "same_az" | "cross_az";
export const SEED_CONDITIONS: readonly SeedCondition[] = ["local", "same_az", "cross_az"];
export const SEED_LABELS: Readonly<Record<SeedCondition, string>> = {
  local: "local (Docker on macOS)",
  same_az: "Aurora, same AZ",
  cross_az: "Aurora, other AZ",
};

export type SeedSeries =
  "rtt_select1" | "update_autocommit_seconds" | "update_one_transaction_seconds" | "aurora_commit_latency_seconds";

/** Undefined where the seed has none (an environment that stands for no seed condition: null). */
export function seedValue(series: SeedSeries, condition: SeedCondition | null): number | undefined {
  return publishedFigures("commit_latency").find((f) => f.series === series && f.condition === condition)?.value;
}

export function seedCommitMs(condition: SeedCondition): number | undefined {
  const a = seedValue("update_autocommit_seconds", condition);
  const b = seedValue("update_one_transaction_seconds", condition);
  return a !== undefined && b !== undefined ? ((a - b) * 1000) / 10_000 : undefined;
}

/** The seed's table 1 totals for 10,000 × SELECT 1, s: the reference CSV has them only in its notes. */
export const SEED_SELECT1_TOTAL_S: Readonly<Record<SeedCondition, number>> = {
  local: 9.26,
  same_az: 2.05,
  cross_az: 16.96,
};

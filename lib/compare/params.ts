/**
 * Parameters of notebook 00 (compare runs): which stored runs to compare, and how strictly.
 * Runs named by id or prefix are looked up here, so that `npm run reproduce -- --only 00 --set
 * runs=[…]` refuses an unknown run, a run in progress or runs of different notebooks before a kernel
 * starts; "latest of notebook NN" is resolved when the notebook runs (an earlier notebook of the same
 * `reproduce` may be about to write it).
 */
import { CompareInputError, isLatestRef, resolveForComparison } from "../results/stored-runs";
import { checkProfile } from "../params/profiles";
import { ParameterError, rejectUnknownKeys } from "../params/validate";

export interface CompareRunsParams {
  /** Run ids, unique prefixes, or "latest of notebook NN"; the first is the baseline. */
  readonly runs: readonly string[];
  /** Significance level of the rank test (0.10: see lib/compare/stats.ts). */
  readonly alpha: number;
  /** "seconds" or "tps"; null: the notebook's usual metric (tps where every trial is a pgbench run: 03, 04, 06). */
  readonly metric: string | null;
  /** Mark conditions worse than the baseline by more than this fraction (0.05 = 5 %) and distinguishable. */
  readonly failOnRegression: number | null;
}

/** The same on every profile. */
export const COMPARE_RUNS_DEFAULTS: CompareRunsParams = { runs: [], alpha: 0.1, metric: null, failOnRegression: null };

export function compareRunsParams(profile: string, overrides: Partial<CompareRunsParams> = {}): CompareRunsParams {
  checkProfile(profile);
  rejectUnknownKeys("00-compare-runs", overrides, Object.keys(COMPARE_RUNS_DEFAULTS));
  const p = { ...COMPARE_RUNS_DEFAULTS, ...overrides };
  const runs: unknown = p.runs;
  if (!Array.isArray(runs) || runs.some((r) => typeof r !== "string" || !r.trim())) {
    throw new ParameterError(
      `runs must be a list of run ids, prefixes or "latest of notebook NN", got ${JSON.stringify(p.runs)}`,
    );
  }
  if (p.runs.length === 1) throw new ParameterError("runs names one run; name at least two to compare");
  if (typeof p.alpha !== "number" || !(p.alpha > 0 && p.alpha < 1))
    throw new ParameterError(`alpha must be between 0 and 1, got ${JSON.stringify(p.alpha)}`);
  if (p.metric !== null && p.metric !== "seconds" && p.metric !== "tps")
    throw new ParameterError(`metric must be "seconds", "tps" or null, got ${JSON.stringify(p.metric)}`);
  if (p.failOnRegression !== null && (typeof p.failOnRegression !== "number" || !(p.failOnRegression >= 0))) {
    throw new ParameterError(
      `failOnRegression must be a fraction ≥ 0 (0.05 = 5 %) or null, got ${JSON.stringify(p.failOnRegression)}`,
    );
  }
  const named = p.runs.filter((r) => !isLatestRef(r));
  if (named.length) {
    try {
      resolveForComparison(named);
    } catch (e) {
      if (e instanceof CompareInputError) throw new ParameterError(`runs: ${e.message}`);
      throw e;
    }
  }
  return { runs: [...p.runs], alpha: p.alpha, metric: p.metric, failOnRegression: p.failOnRegression };
}

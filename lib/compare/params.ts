/**
 * Parameters of notebook 00 (compare runs): which stored runs to compare, and how strictly.
 * Runs named by id or prefix are looked up here, so that `npm run reproduce -- --only 00 --set
 * runs=[…]` refuses an unknown run, a run in progress or runs of different notebooks before a kernel
 * starts; "latest of notebook NN" is resolved when the notebook runs (an earlier notebook of the same
 * `reproduce` may be about to write it).
 */
import { CompareInputError, isLatestRef, resolveForComparison } from "../results/stored-runs";
import { checkProfile } from "../params/profiles";
import { custom, declareParams, number, oneOf, orNull, type ParamsOf } from "../params/declare";
import { ParameterError, rejectUnknownKeys } from "../params/validate";

export const CompareRunsParams = declareParams({
  runs: custom(
    "string[]",
    'Run ids, unique prefixes, or "latest of notebook NN"; the first is the baseline.',
    (name, v): readonly string[] => {
      if (!Array.isArray(v) || v.some((r) => typeof r !== "string" || !r.trim()))
        throw new ParameterError(
          `${name} must be a list of run ids, prefixes or "latest of notebook NN", got ${JSON.stringify(v)}`,
        );
      return [...(v as string[])];
    },
  ),
  alpha: number("Significance level of the rank test (0.10: see lib/compare/stats.ts).", {
    min: 0,
    aboveMin: true,
    max: 1,
    belowMax: true,
  }),
  metric: orNull(
    oneOf(
      ["seconds", "tps"],
      '"seconds" or "tps"; null: the notebook\'s usual metric (tps where every trial is a pgbench run: 03, 04, 06).',
    ),
  ),
  failOnRegression: orNull(
    number("Mark conditions worse than the baseline by more than this fraction (0.05 = 5 %) and distinguishable.", {
      min: 0,
      hint: "0.05 = 5 %",
    }),
  ),
});
export type CompareRunsParams = ParamsOf<typeof CompareRunsParams>;

/** The same on every profile. */
export const COMPARE_RUNS_DEFAULTS: CompareRunsParams = { runs: [], alpha: 0.1, metric: null, failOnRegression: null };

export function compareRunsParams(profile: string, overrides: Partial<CompareRunsParams> = {}): CompareRunsParams {
  checkProfile(profile);
  rejectUnknownKeys("00-compare-runs", overrides, CompareRunsParams.names);
  const p = CompareRunsParams.check({ ...COMPARE_RUNS_DEFAULTS, ...overrides });
  if (p.runs.length === 1) throw new ParameterError("runs names one run; name at least two to compare");
  const named = p.runs.filter((r) => !isLatestRef(r));
  if (named.length) {
    try {
      resolveForComparison(named);
    } catch (e) {
      if (e instanceof CompareInputError) throw new ParameterError(`runs: ${e.message}`);
      throw e;
    }
  }
  return p;
}

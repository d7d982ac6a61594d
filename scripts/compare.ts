/**
 * `npm run compare -- <run A> <run B> [more runs]`: did a change make a difference? A benchstat for
 * the lab's stored runs (lib/compare). Runs are named by id, a unique prefix, or "latest of notebook NN".
 *
 * Exit status: 0 compared; 1 the regression gate found a regression; 2 refused (bad arguments,
 * unknown runs, runs of different notebooks, a run in progress, no condition in common).
 */
import { compareRuns, METRICS } from "../lib/compare/compare";
import { formatJson, formatMarkdown, formatText } from "../lib/compare/format";
import { CompareInputError } from "../lib/results/stored-runs";
import { DEFAULT_ALPHA } from "../lib/compare/stats";
import { readArgs, valueOf } from "./cli-args";

const USAGE = `Usage: npm run compare -- [options] <run A> <run B> [more runs]

Compares stored runs of one notebook (data/results/<run-id>/, or DBLAB_RESULTS_DIR): what differed in
their configuration, then per condition the medians, the change against the first run and whether it
is distinguishable from noise, then the claims' verdicts. A run is an id, a unique prefix of one,
or "latest of notebook NN". \`npm run runs\` lists them.

Options:
  --format text|md|json         terminal table (default), Markdown (PR comment) or JSON (CI)
  --fail-on-regression PCT      exit 1 when a condition is worse than the first run by more than PCT
                                (e.g. 5%) and distinguishable from noise
  --alpha A                     significance level of the rank test (default ${DEFAULT_ALPHA})
  --metric NAME                 ${Object.keys(METRICS).join(" | ")} (default: tps for notebooks 03/04, else seconds)
  --help                        show this help`;

export interface CompareArgs {
  refs: string[];
  format: "text" | "md" | "json";
  threshold?: number;
  alpha?: number;
  metric?: string;
  help: boolean;
}

/** "5%", "5 %", "0.05" → 0.05; "5" → 0.05 (a bare number above 1 is read as percent). */
export function parseThreshold(raw: string): number {
  const m = /^\s*(\d+(?:\.\d+)?)\s*(%?)\s*$/.exec(raw);
  if (!m) throw new CompareInputError(`--fail-on-regression needs a percentage like 5%, got "${raw}"`);
  const n = Number(m[1]);
  return m[2] || n > 1 ? n / 100 : n;
}

const COMPARE_OPTIONS = {
  help: { type: "boolean", short: "h" },
  format: { type: "string" },
  "fail-on-regression": { type: "string" },
  alpha: { type: "string" },
  metric: { type: "string" },
} as const;

export function parseCompareArgs(argv: readonly string[]): CompareArgs {
  const parsed = readArgs(argv, COMPARE_OPTIONS, {
    usage: (message) => new CompareInputError(message),
    unknown: (arg) => `unknown option "${arg}"`,
  });
  const a: CompareArgs = { refs: [...parsed.positionals], format: "text", help: false };
  for (const option of parsed.options) {
    switch (option.name) {
      case "help":
        a.help = true;
        break;
      case "format": {
        const f = valueOf(option);
        if (f !== "text" && f !== "md" && f !== "json")
          throw new CompareInputError(`--format must be text, md or json, got "${f}"`);
        a.format = f;
        break;
      }
      case "fail-on-regression":
        a.threshold = parseThreshold(valueOf(option));
        break;
      case "alpha": {
        const raw = valueOf(option);
        a.alpha = Number(raw);
        if (!(a.alpha > 0 && a.alpha < 1)) throw new CompareInputError(`--alpha must be between 0 and 1, got "${raw}"`);
        break;
      }
      case "metric":
        a.metric = valueOf(option);
        break;
    }
  }
  return a;
}

function main(): number {
  let args: CompareArgs;
  try {
    args = parseCompareArgs(process.argv.slice(2));
    if (args.help) {
      console.log(USAGE);
      return 0;
    }
    const c = compareRuns(args.refs, { alpha: args.alpha, regressionThreshold: args.threshold, metric: args.metric });
    console.log(args.format === "json" ? formatJson(c) : args.format === "md" ? formatMarkdown(c) : formatText(c));
    const regressions = c.pairs.reduce((n, p) => n + p.regressions, 0);
    if (args.threshold !== undefined && regressions > 0) {
      console.error(
        `compare: ${regressions} regression(s) beyond ${Math.round(args.threshold * 1000) / 10} % ` +
          "that are distinguishable from noise",
      );
      return 1;
    }
    return 0;
  } catch (e) {
    if (e instanceof CompareInputError) {
      console.error(`compare: ${e.message}`);
      console.error("Run `npm run compare -- --help` for usage.");
      return 2;
    }
    throw e;
  }
}

if (require.main === module) process.exit(main());

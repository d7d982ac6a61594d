/**
 * `npm run eta:reference [-- --notebook 02]`: how each notebook's no-stored-runs ETA (its model's
 * `reference` rates times this machine's CPU probe) reads the runs stored here, and the rates those
 * runs give when refitted (the literal a model's `reference` takes). A machine's first `full` run
 * has nothing stored to fit: the reference is what its ETA rests on, so it is refitted from runs
 * that span the sizes users ask for (smoke and full), and checked against them here.
 */
import fs from "node:fs";
import { EXPERIMENTS } from "../lib/experiments/registry";
import { cpuProbeSeconds, REFERENCE_PROBE_SECONDS, type ReferenceRates } from "../lib/experiments/eta";
import { resultsRoot } from "../lib/results/run-store";
import { durationText } from "../lib/stats/format";
import { textTable } from "../lib/compare/format";
import { has, lastValue, noPositionals, readCommandArgs, refuse, UsageError } from "./cli-args";

const USAGE = `Usage: npm run eta:reference -- [--notebook NN] [--fit-from DIR]

For each notebook with runs in data/results (or DBLAB_RESULTS_DIR): each stored run's trials, their
measured seconds beside the no-stored-runs ETA (the model's reference rates × this machine's CPU
probe) under the current reference and under the one refitted from stored runs, and that refitted
reference as the literal the notebook's eta.ts takes. No server starts.

Options:
  --notebook NN     only that notebook (e.g. 02)
  --fit-from DIR    refit from the runs in DIR instead (a folder of run folders, e.g. links to the
                    full runs only), to read the others out of sample
  --help            show this help`;

const OPTIONS = {
  help: { type: "boolean", short: "h" },
  notebook: { type: "string" },
  "fit-from": { type: "string" },
} as const;

/** A number as a short literal: 2 significant digits, exponent form below 1e-3. */
export function literalNumber(n: number): string {
  if (n === 0) return "0";
  const p = Number(n.toPrecision(2));
  return Math.abs(p) < 1e-3 ? p.toExponential() : String(p);
}

/** The `reference: {…}` literal of a model's eta.ts. */
export function referenceLiteral(r: ReferenceRates): string {
  const kinds = r.kinds
    ? `, kinds: { ${Object.entries(r.kinds)
        .map(
          ([k, g]) =>
            `${JSON.stringify(k)}: { size: ${g.size}, seconds: ${literalNumber(g.seconds)}, exponent: ${literalNumber(g.exponent)}, untimedSeconds: ${literalNumber(g.untimedSeconds)} }`,
        )
        .join(", ")} }`
    : "";
  return `reference: { timedPerSizeSeconds: ${literalNumber(r.timedPerSizeSeconds)}, overheadSeconds: ${literalNumber(r.overheadSeconds)}, untimedPerSizeSeconds: ${literalNumber(r.untimedPerSizeSeconds)}, constantSetup: ${r.constantSetup}${kinds} }`;
}

const ratio = (estimated: number, measured: number) =>
  `${durationText(estimated, "estimate")} (${(estimated / measured).toFixed(2)}×)`;

function main(): number {
  let notebook: string | undefined;
  let fitFrom: string | undefined;
  try {
    const parsed = readCommandArgs(process.argv.slice(2), OPTIONS);
    noPositionals(parsed);
    if (has(parsed, "help")) {
      console.log(USAGE);
      return 0;
    }
    const raw = lastValue(parsed, "notebook");
    if (raw !== undefined && !/^\d{1,2}$/.test(raw))
      throw new UsageError(`--notebook needs a notebook number like 02, got "${raw}"`);
    notebook = raw?.padStart(2, "0");
    fitFrom = lastValue(parsed, "fit-from");
    if (fitFrom !== undefined && !fs.statSync(fitFrom, { throwIfNoEntry: false })?.isDirectory())
      throw new UsageError(`--fit-from needs a folder of stored runs, got "${fitFrom}"`);
  } catch (e) {
    if (e instanceof UsageError) return refuse("eta:reference", e);
    throw e;
  }
  const root = resultsRoot();
  const probe = cpuProbeSeconds();
  console.log(
    `CPU probe here ${probe.toFixed(3)} s, ${(probe / REFERENCE_PROBE_SECONDS).toFixed(2)}× the reference machine's; runs in ${root}` +
      (fitFrom !== undefined ? `, refitted from ${fitFrom}` : ""),
  );
  for (const entry of EXPERIMENTS) {
    if (notebook !== undefined && entry.id !== notebook) continue;
    const eta = entry.etaReference;
    if (!eta) continue;
    const refitted = eta.fit(fitFrom ?? root, probe);
    const current = eta.check(root, () => probe);
    if (!refitted && !current.length) {
      console.log(`\n${entry.slug}: no stored trial here`);
      continue;
    }
    const again = new Map(refitted ? eta.check(root, () => probe, refitted).map((c) => [c.run, c]) : []);
    console.log(`\n${entry.slug}`);
    if (current.length)
      console.log(
        textTable(
          ["run", "trials", "measured", "current reference", "refitted"],
          current.map((c) => {
            const other = again.get(c.run);
            return [
              c.run,
              String(c.trials),
              durationText(c.measuredSeconds, "measured"),
              ratio(c.estimatedSeconds, c.measuredSeconds),
              other ? ratio(other.estimatedSeconds, c.measuredSeconds) : "no run to refit from",
            ];
          }),
        ),
      );
    console.log(refitted ? `  ${referenceLiteral(refitted)}` : "  no stored trial to refit from");
  }
  return 0;
}

if (require.main === module) process.exitCode = main();

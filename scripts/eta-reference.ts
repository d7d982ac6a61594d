/**
 * `npm run eta:reference [-- --notebook 02] [--write]`: how each notebook's no-stored-runs ETA (the
 * nearest of its reference files' rates, scaled by this machine's CPU and write-path probes) reads
 * the runs stored here, and the rates those runs give when refitted. `--write` writes them, with this
 * machine's CPU model, probe readings and the day, as the notebook's reference file for this machine
 * kind (eta-reference.<machine>.json beside its eta.ts). A machine's first `full` run has nothing
 * stored to fit: the references are what its ETA rests on, so they are refitted from runs that span
 * the sizes users ask for (smoke and full), on more than one machine kind, and checked here.
 */
import fs from "node:fs";
import path from "node:path";
import { EXPERIMENTS } from "../lib/experiments/registry";
import {
  cpuModel,
  cpuProbeSeconds,
  referenceFileContent,
  storedProbes,
  writeProbeSeconds,
  type MachineReference,
  type Probes,
  type ReferenceRates,
} from "../lib/experiments/eta";
import { resultsRoot } from "../lib/results/run-store";
import { durationText } from "../lib/stats/format";
import { textTable } from "../lib/compare/format";
import { has, lastValue, noPositionals, readCommandArgs, refuse, UsageError } from "./cli-args";

const USAGE = `Usage: npm run eta:reference -- [--notebook NN] [--fit-from DIR] [--write [--machine NAME]]

For each notebook with runs in data/results (or DBLAB_RESULTS_DIR): each stored run's trials, their
measured seconds beside the no-stored-runs ETA (the nearest reference file's rates × the CPU and
write-path probes that run recorded at its start, else this machine's now) under the current
references and under the one refitted from stored runs. No server starts.

Options:
  --notebook NN     only that notebook (e.g. 02)
  --fit-from DIR    refit from the runs in DIR instead (a folder of run folders, e.g. links to the
                    full runs only), to read the others out of sample
  --write           write each refitted reference, with this machine's CPU model, probe readings and
                    today's date, to lib/experiments/<notebook>/eta-reference.<machine>.json (a
                    reference of another machine kind is kept beside it)
  --machine NAME    the <machine> part of that file's name (default: from the CPU model, e.g. amd-epyc)
  --out DIR         write the files into DIR instead of the notebooks' folders (to review them first)
  --help            show this help`;

const OPTIONS = {
  help: { type: "boolean", short: "h" },
  notebook: { type: "string" },
  "fit-from": { type: "string" },
  write: { type: "boolean" },
  machine: { type: "string" },
  out: { type: "string" },
} as const;

/** The file-name part for a CPU model: its first two words, lower case ("amd-epyc", "intel-r-xeon"). */
export function machineLabel(model: string): string {
  const words =
    model
      .toLowerCase()
      .split(",")[0]
      ?.match(/[a-z0-9]+/g) ?? [];
  return words.slice(0, 2).join("-") || "machine";
}

const ratio = (estimated: number, measured: number) =>
  `${durationText(estimated, "estimate")} (${(estimated / measured).toFixed(2)}×)`;

function main(): number {
  let notebook: string | undefined;
  let fitFrom: string | undefined;
  let write = false;
  let label: string | undefined;
  let out: string | undefined;
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
    write = has(parsed, "write");
    label = lastValue(parsed, "machine");
    if (label !== undefined && !/^[a-z0-9-]+$/.test(label))
      throw new UsageError(`--machine needs a name of lower-case letters, digits and dashes, got "${label}"`);
    out = lastValue(parsed, "out");
    if ((label !== undefined || out !== undefined) && !write)
      throw new UsageError("--machine and --out say where --write writes: give --write");
    if (out !== undefined && !fs.statSync(out, { throwIfNoEntry: false })?.isDirectory())
      throw new UsageError(`--out needs an existing folder, got "${out}"`);
  } catch (e) {
    if (e instanceof UsageError) return refuse("eta:reference", e);
    throw e;
  }
  const root = resultsRoot();
  const cpu = cpuProbeSeconds();
  const writePath = writeProbeSeconds();
  const probes: Probes = { cpu: () => cpu, write: () => writePath, model: cpuModel };
  const model = cpuModel();
  console.log(
    `${model}: CPU probe here ${cpu.toFixed(3)} s, write-path probe ${writePath === undefined ? "not readable (no data directory to write in)" : `${writePath.toFixed(3)} s`}; runs in ${root}` +
      (fitFrom !== undefined ? `, refitted from ${fitFrom}` : ""),
  );
  const today = new Date().toISOString().slice(0, 10);
  for (const entry of EXPERIMENTS) {
    if (notebook !== undefined && entry.id !== notebook) continue;
    const eta = entry.etaReference;
    if (!eta) continue;
    const refitted = eta.fit(fitFrom ?? root);
    const current = eta.check(root, probes);
    if (!refitted && !current.length) {
      console.log(`\n${entry.slug}: no stored trial here`);
      continue;
    }
    // The machine's readings as its runs recorded them before their servers started, else now's.
    const recorded = storedProbes(entry.slug, fitFrom ?? root);
    const readings = recorded?.readings ?? { cpuProbeSeconds: cpu, writeProbeSeconds: writePath ?? null };
    const spans = recorded?.spans;
    const here: MachineReference | undefined = refitted && {
      ...(spans && { spans }),
      file: "(refitted here)",
      cpuModel: model,
      ...readings,
      fittedOn: today,
      rates: refitted.rates,
      sizes: refitted.sizes,
      constants: {},
    };
    const again = new Map(here ? eta.check(root, probes, [here]).map((c) => [c.run, c]) : []);
    console.log(`\n${entry.slug}`);
    if (refitted)
      console.log(
        `  the refit's machine readings: CPU ${readings.cpuProbeSeconds.toFixed(3)} s, write path ${readings.writeProbeSeconds === null ? "none" : `${readings.writeProbeSeconds.toFixed(3)} s`} (${recorded ? "the median its fitted runs recorded" : "read now: its runs recorded none"})${spans ? `; their span, read as 1×: CPU ${spans.cpu.map((x) => x.toFixed(3)).join("–")} s${spans.write ? `, write path ${spans.write.map((x) => x.toFixed(3)).join("–")} s` : ""}` : ""}`,
      );
    if (current.length)
      console.log(
        textTable(
          ["run", "trials", "measured", "current references", "refitted"],
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
    if (!refitted) {
      console.log("  no stored trial to refit from");
      continue;
    }
    if (!write || !eta.references) {
      console.log(`  refitted: ${JSON.stringify(rounded(refitted.rates))}`);
      continue;
    }
    const name = `eta-reference.${label ?? machineLabel(model)}.json`;
    const file = path.join(out ?? eta.references.dir, out !== undefined ? `${entry.slug}.${name}` : name);
    const content = referenceFileContent(
      rounded(refitted.rates),
      {
        cpuModel: model,
        cpuProbeSeconds: round(readings.cpuProbeSeconds),
        writeProbeSeconds: readings.writeProbeSeconds === null ? null : round(readings.writeProbeSeconds),
      },
      today,
      refitted.sizes,
      {
        ...constantsKept(file),
        ...Object.fromEntries(Object.entries(eta.constants(fitFrom ?? root)).map(([k, v]) => [k, round(v)])),
      },
      undefined,
      spans && {
        cpu: [round(spans.cpu[0]), round(spans.cpu[1])],
        ...(spans.write && { write: [round(spans.write[0]), round(spans.write[1])] as const }),
      },
    );
    fs.writeFileSync(file, `${JSON.stringify(content, null, 2)}\n`);
    console.log(`  written: ${path.relative(process.cwd(), file)}`);
  }
  return 0;
}

/** A number to 2 significant digits: a reference is a fit, its last digits noise. */
export const round = (n: number): number => (n === 0 ? 0 : Number(n.toPrecision(2)));

/** The rates with every number rounded (round). */
export function rounded(r: ReferenceRates): ReferenceRates {
  const kinds = r.kinds
    ? Object.fromEntries(
        Object.entries(r.kinds).map(([k, g]) => [
          k,
          {
            size: g.size,
            seconds: round(g.seconds),
            exponent: round(g.exponent),
            untimedSeconds: round(g.untimedSeconds),
          },
        ]),
      )
    : undefined;
  return {
    timedPerSizeSeconds: round(r.timedPerSizeSeconds),
    overheadSeconds: round(r.overheadSeconds),
    untimedPerSizeSeconds: round(r.untimedPerSizeSeconds),
    constantSetup: r.constantSetup,
    ...(kinds ? { kinds } : {}),
  };
}

/**
 * The named constants (03's load, 04's rebuild rate) of the file being replaced: they come from a
 * notebook's own records of a run, not from the trials this fit reads, and are kept.
 */
function constantsKept(file: string): Record<string, number> {
  try {
    const old = JSON.parse(fs.readFileSync(file, "utf8")) as { constants?: Record<string, number> };
    return old.constants ?? {};
  } catch {
    return {};
  }
}

if (require.main === module) process.exitCode = main();

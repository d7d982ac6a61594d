/**
 * `npm run export -- <report.html> [more.html …] --pdf [--out file.pdf]`: a PDF of any HTML report
 * (from `npm run reproduce`, or the Notebook UI's File → Download as → HTML), printed by headless
 * Chromium once every chart has drawn. Without --out the PDF goes beside the report.
 */
import fs from "node:fs";
import path from "node:path";
import { reportToPdf } from "./report-pdf";
import { has, lastValue, readCommandArgs, refuse, UsageError } from "./cli-args";
import { errorMessage } from "../lib/runtime/error-message";

const USAGE = `Usage: npm run export -- <report.html> [more.html …] --pdf [--out file.pdf]

Prints each HTML report to a PDF beside it (or to --out, for a single report), every chart drawn.

Options:
  --pdf          write a PDF (the one format so far)
  --out FILE     where the PDF goes (one report only)
  --help         show this help`;

const EXPORT_OPTIONS = {
  help: { type: "boolean", short: "h" },
  pdf: { type: "boolean" },
  out: { type: "string" },
} as const;

export interface ExportArgs {
  readonly help: boolean;
  readonly files: readonly string[];
  readonly out?: string;
}

export function parseExportArgs(argv: readonly string[]): ExportArgs {
  const parsed = readCommandArgs(argv, EXPORT_OPTIONS);
  const help = has(parsed, "help");
  if (help) return { help, files: [] };
  const files = parsed.positionals;
  const out = lastValue(parsed, "out");
  // PDF is the only format so far; asking for it keeps room for others without changing meaning.
  if (!has(parsed, "pdf")) throw new UsageError("say which format: --pdf");
  if (files.length === 0) throw new UsageError("no report given");
  if (out && files.length > 1) throw new UsageError("--out takes one report");
  const missing = files.filter((f) => !fs.existsSync(f) || !/\.html?$/i.test(f));
  if (missing.length) throw new UsageError(`not an HTML report: ${missing.join(", ")}`);
  return { help, files, out };
}

async function main(argv: readonly string[]): Promise<number> {
  let args: ExportArgs;
  try {
    args = parseExportArgs(argv);
  } catch (e) {
    if (e instanceof UsageError) return refuse("export", e);
    throw e;
  }
  if (args.help) {
    console.log(USAGE);
    return 0;
  }
  const { out } = args;
  for (const file of args.files) {
    const result = await reportToPdf(file, out ? path.resolve(out) : undefined);
    console.log(`${result.pdf} (${result.drawn} of ${result.charts} charts drawn)`);
  }
  return 0;
}

if (require.main === module) {
  main(process.argv.slice(2)).then(
    (code) => process.exit(code),
    (e: unknown) => {
      console.error(`export: ${errorMessage(e)}`);
      process.exit(1);
    },
  );
}

/**
 * `npm run export -- <report.html> [more.html …] --pdf [--out file.pdf]`: a PDF of any HTML report
 * (from `npm run reproduce`, or the Notebook UI's File → Download as → HTML), printed by headless
 * Chromium once every chart has drawn. Without --out the PDF goes beside the report.
 */
import fs from "node:fs";
import path from "node:path";
import { reportToPdf } from "./report-pdf";

const USAGE = `Usage: npm run export -- <report.html> [more.html …] --pdf [--out file.pdf]
Prints each HTML report to a PDF beside it (or to --out, for a single report), every chart drawn.`;

async function main(argv: readonly string[]): Promise<number> {
  if (argv.includes("--help") || argv.includes("-h")) {
    console.log(USAGE);
    return 0;
  }
  const files: string[] = [];
  let pdf = false;
  let out: string | undefined;
  for (let i = 0; i < argv.length; i++) {
    const arg = argv[i];
    if (arg === "--pdf") pdf = true;
    else if (arg === "--out" || arg.startsWith("--out=")) {
      out = arg.includes("=") ? arg.slice(arg.indexOf("=") + 1) : argv[++i];
      if (!out) return usageError("--out needs a file name");
    } else if (arg.startsWith("--")) return usageError(`unknown argument "${arg}"`);
    else files.push(arg);
  }
  // PDF is the only format so far; asking for it keeps room for others without changing meaning.
  if (!pdf) return usageError("say which format: --pdf");
  if (files.length === 0) return usageError("no report given");
  if (out && files.length > 1) return usageError("--out takes one report");
  const missing = files.filter((f) => !fs.existsSync(f) || !/\.html?$/i.test(f));
  if (missing.length) return usageError(`not an HTML report: ${missing.join(", ")}`);
  for (const file of files) {
    const result = await reportToPdf(file, out ? path.resolve(out) : undefined);
    console.log(`${result.pdf} (${result.drawn} of ${result.charts} charts drawn)`);
  }
  return 0;
}

function usageError(message: string): number {
  console.error(`export: ${message}\n${USAGE}`);
  return 2;
}

main(process.argv.slice(2)).then(
  (code) => process.exit(code),
  (e: unknown) => {
    console.error(`export: ${e instanceof Error ? e.message : String(e)}`);
    process.exit(1);
  },
);

/** A test's results folder holds one run: its directory and its trials.jsonl as records so far. */
import fs from "node:fs";
import path from "node:path";

export interface TrialLine {
  readonly key: string;
  readonly status: string;
  readonly error?: string;
  readonly [field: string]: unknown;
}

/** The first (only) run directory under `results`, once the run made it. */
export function runDirectory(results: string): string | undefined {
  if (!fs.existsSync(results)) return undefined;
  const dirs = fs.readdirSync(results);
  return dirs.length ? path.join(results, dirs[0]) : undefined;
}

/** That run's trials.jsonl, one record per finished trial ([] before the first). */
export function trialLines(results: string): TrialLine[] {
  const dir = runDirectory(results);
  const file = dir && path.join(dir, "trials.jsonl");
  if (!file || !fs.existsSync(file)) return [];
  return fs
    .readFileSync(file, "utf8")
    .split("\n")
    .filter(Boolean)
    .map((l) => JSON.parse(l) as TrialLine);
}

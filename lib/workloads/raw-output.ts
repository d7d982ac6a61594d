/**
 * Raw tool output kept per trial, gzipped, under `<run>/raw/`: the trial loop names the trial and a
 * tool run asks `keepRawOutput` to write. Capped per tool run so the results folder stays a size
 * people keep; logs past the cap are listed in `<name>.omitted.txt`.
 */
import { AsyncLocalStorage } from "node:async_hooks";
import fs from "node:fs";
import path from "node:path";
import { gzipSync } from "node:zlib";

/** Compressed bytes kept per tool run. */
export const RAW_OUTPUT_CAP_BYTES = 32 * 1024 * 1024;

interface TrialOutput {
  readonly dir: string;
  readonly key: string;
  /** Tool runs so far in this trial, for their names. */
  runs: number;
}

const current = new AsyncLocalStorage<TrialOutput>();

/** Runs `work` with raw output going to `<runDirectory>/raw/`. */
export function withTrialOutput<T>(runDirectory: string | undefined, key: string, work: () => Promise<T>): Promise<T> {
  if (runDirectory === undefined) return work();
  return current.run({ dir: path.join(runDirectory, "raw"), key, runs: 0 }, work);
}

function safe(name: string): string {
  return name.replace(/[^A-Za-z0-9_.=-]+/g, "_").slice(0, 160);
}

/**
 * Writes one tool run's output gzipped as `<key>.<tool>-<n>.<name>.gz`, up to the cap; undefined
 * outside a trial. Never throws: a full disk here must not fail the measured trial.
 */
export function keepRawOutput(
  tool: string,
  files: readonly { readonly name: string; readonly text: string }[],
  cap = RAW_OUTPUT_CAP_BYTES,
): string | undefined {
  const trial = current.getStore();
  if (!trial) return undefined;
  trial.runs += 1;
  const base = `${safe(trial.key)}.${tool}-${trial.runs}`;
  try {
    fs.mkdirSync(trial.dir, { recursive: true });
    let written = 0;
    const omitted: string[] = [];
    for (const file of files) {
      const gz = gzipSync(file.text);
      if (written + gz.length > cap) {
        omitted.push(`${file.name} (${file.text.length} bytes)`);
        continue;
      }
      fs.writeFileSync(path.join(trial.dir, `${base}.${safe(file.name)}.gz`), gz);
      written += gz.length;
    }
    if (omitted.length > 0) {
      fs.writeFileSync(
        path.join(trial.dir, `${base}.omitted.txt`),
        `left out past the cap of ${cap} compressed bytes per run:\n${omitted.join("\n")}\n`,
      );
    }
    return trial.dir;
  } catch {
    return undefined;
  }
}

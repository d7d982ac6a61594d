/**
 * The REINDEX's stall as a share of the run: the quantity seed 003's TPS drop follows from, and how
 * a run reaches the seed's share on a machine whose rebuild takes another number of seconds.
 */
import fs from "node:fs";
import path from "node:path";
import { publishedFigures } from "../../../results/reference";
import type { RebuildCalibration } from "./run-trials";

/** The seed's runs: pgbench -c 2 -T 30. */
const SEED_CLIENTS = 2;

/** The seed's stall share per set: added UPDATE latency × transactions ÷ clients (all blocked) ÷ the run. */
export function seedStallShares(): number[] {
  const figures = publishedFigures("reindex_impact");
  const value = (series: string, set: string) => figures.find((f) => f.series === series && f.condition === set)?.value;
  return ["set1", "set2", "set3"].flatMap((set) => {
    const withMs = value("update_accounts_latency_with_reindex", set);
    const withoutMs = value("update_accounts_latency_without_reindex", set);
    const tps = value("tps_with_reindex", set);
    return withMs !== undefined && withoutMs !== undefined && tps !== undefined
      ? [((withMs - withoutMs) / 1000) * (tps / SEED_CLIENTS)]
      : [];
  });
}

/** Set 1's share: the set whose -r output the seed's text quotes first. */
export const SEED_STALL_SHARE = Math.round((seedStallShares()[0] ?? 0.25) * 1000) / 1000;

/** Shortest and longest run the calibration may choose, s (the series needs load around the window). */
export const RUN_LENGTH_BOUNDS = [6, 60] as const;

/**
 * The run length that gives `share` for a plain REINDEX measured at `rebuildSeconds`, and the
 * REINDEX's start at the same fraction of the run as the planned start is of the planned length
 * (whole seconds for the run, as pgbench -T takes; a tenth of a second for the start).
 */
export function runLengthFor(
  rebuildSeconds: number,
  share: number,
  planned: { readonly durationSeconds: number; readonly reindexStartSeconds: number },
): { readonly durationSeconds: number; readonly reindexStartSeconds: number } {
  if (!(rebuildSeconds > 0) || !(share > 0 && share < 1)) {
    throw new Error(`runLengthFor: needs a rebuild > 0 s and a share in (0, 1), got ${rebuildSeconds} s, ${share}`);
  }
  const [lo, hi] = RUN_LENGTH_BOUNDS;
  const durationSeconds = Math.min(hi, Math.max(lo, Math.round(rebuildSeconds / share)));
  const fraction = planned.reindexStartSeconds / planned.durationSeconds;
  return { durationSeconds, reindexStartSeconds: Math.max(0.5, Math.round(durationSeconds * fraction * 10) / 10) };
}

/** The run length a calibration rebuild chose, kept beside the trials so that a resume runs at it. */
export interface RunLengthCalibration extends RebuildCalibration {
  readonly stallShare: number;
  readonly durationSeconds: number;
  readonly reindexStartSeconds: number;
}

export const CALIBRATION_FILE = "calibration.json";

/** A resumed run keeps the run length its first part chose (its trials ran at it). */
export function storedCalibration(directory: string): RunLengthCalibration | undefined {
  const file = path.join(directory, CALIBRATION_FILE);
  if (!fs.existsSync(file)) return undefined;
  return JSON.parse(fs.readFileSync(file, "utf8")) as RunLengthCalibration;
}

/** The run length a calibration rebuild chose, kept beside the trials so that a resume runs at it. */
import fs from "node:fs";
import path from "node:path";
import type { RebuildCalibration } from "./workload/run-trials";

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

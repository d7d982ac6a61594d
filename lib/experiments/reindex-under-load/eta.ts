/** 04's ETA model: runs as long as the params say, or (stallShare > 0) this machine's rebuild ÷ stallShare. */
import path from "node:path";
import { median } from "simple-statistics";
import { finiteOrNaN, MACHINE_PROBES, readJson, referenceConstant, referencesIn, storedRuns } from "../eta";
import type { EtaModel, Probes, StoredRuns } from "../eta";
import type { ReindexUnderLoadParams } from "./params";
import { planRuns, runLengthFor, type RunLengthCalibration } from "./workload/run-trials";

const REFERENCES = referencesIn(__dirname);
const REBUILD_CONSTANT = "rebuildSecondsPerScale";

/** Kept beside the trials, so that a resume runs at it; a torn file is none. */
export const CALIBRATION_FILE = "calibration.json";
export const storedCalibration = (directory: string) =>
  readJson(path.join(directory, CALIBRATION_FILE)) as RunLengthCalibration | undefined;

function storedRebuildPerScale(stored: StoredRuns): number | undefined {
  const rates = storedRuns(stored).flatMap(({ dir, params }) => {
    const [seconds, scale] = [finiteOrNaN(storedCalibration(dir)?.seconds), finiteOrNaN(params.scale)];
    return seconds > 0 && scale > 0 ? [seconds / scale] : [];
  });
  return rates.length ? median(rates) : undefined;
}

/** The rebuild rate: stored here, else the nearest reference's. */
export function expectedRunLength(p: ReindexUnderLoadParams, stored: StoredRuns, probes: Probes = MACHINE_PROBES) {
  if (!(p.stallShare > 0)) return p.durationSeconds;
  const perScale =
    storedRebuildPerScale(stored) ?? referenceConstant(REFERENCES.all(), REBUILD_CONSTANT, probes)?.seconds;
  return perScale === undefined ? p.durationSeconds : runLengthFor(perScale * p.scale, p.stallShare, p).durationSeconds;
}

export const estimate: EtaModel<ReindexUnderLoadParams> = {
  units(p, maximal, stored) {
    const fixedSeconds = expectedRunLength(p, stored);
    return planRuns(maximal ? p.maxSets : p.sets, p.modes).map((t) => ({ key: t.key, size: p.scale, fixedSeconds }));
  },
  size: (_c, p) => finiteOrNaN(p.scale),
  constants(stored): Record<string, number> {
    const perScale = storedRebuildPerScale(stored);
    return perScale === undefined ? {} : { [REBUILD_CONSTANT]: perScale };
  },
  references: REFERENCES,
};

/** 04's ETA model: runs as long as the params say, or (stallShare > 0) this machine's rebuild ÷ stallShare. */
import { median } from "simple-statistics";
import { finiteOrNaN, MACHINE_PROBES, referenceConstant, referencesIn, storedRuns, type EtaModel } from "../eta";
import type { Probes, StoredRuns } from "../eta";
import type { ReindexUnderLoadParams } from "./params";
import { planRuns, runLengthFor, storedCalibration } from "./workload/run-trials";

const REFERENCES = referencesIn(__dirname);
const REBUILD_CONSTANT = "rebuildSecondsPerScale";

function storedRebuildPerScale(stored: StoredRuns): number | undefined {
  const rates: number[] = [];
  for (const { dir, params } of storedRuns(stored)) {
    try {
      const calibration = storedCalibration(dir);
      const scale = finiteOrNaN(params.scale);
      if (calibration && calibration.seconds > 0 && scale > 0) rates.push(calibration.seconds / scale);
    } catch {
      continue; // a torn or foreign file says nothing about this machine's rebuild
    }
  }
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

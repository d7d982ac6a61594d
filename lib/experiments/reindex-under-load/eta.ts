/**
 * 04's ETA model: runs whose length is fixed by the params, or, with `stallShare` > 0, by this
 * machine's calibration rebuild (rebuild ÷ stallShare). A run's setup (a clone of the template and
 * its checkpoint) grows with the scale.
 */
import { median } from "simple-statistics";
import {
  finiteOrNaN,
  MACHINE_PROBES,
  referenceConstant,
  referencesIn,
  storedRuns,
  type EtaModel,
  type Probes,
  type StoredRuns,
} from "../eta";
import type { ReindexUnderLoadParams } from "./params";
import { planRuns } from "./workload/run-trials";
import { runLengthFor, storedCalibration } from "./workload/stall";

/**
 * The calibration rebuild's seconds per unit of scale in this machine's stored runs (a plain
 * REINDEX of the three keys grows with the rows), undefined without one.
 */
export function storedRebuildPerScale(stored: StoredRuns): number | undefined {
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

const REFERENCES = referencesIn(__dirname);
export const REBUILD_CONSTANT = "rebuildSecondsPerScale";

/**
 * Each run's length as the run will choose it: the params' without a stall share; with one, the
 * rebuild rate times this scale ÷ the share (bounded as the run bounds it), the rate being this
 * machine's stored calibrations', else the nearest reference's scaled by the probes.
 */
export function expectedRunLength(
  p: ReindexUnderLoadParams,
  stored: StoredRuns,
  probes: Probes = MACHINE_PROBES,
): number {
  if (!(p.stallShare > 0)) return p.durationSeconds;
  const perScale =
    storedRebuildPerScale(stored) ?? referenceConstant(REFERENCES.all(), REBUILD_CONSTANT, probes)?.seconds;
  if (perScale === undefined) return p.durationSeconds;
  return runLengthFor(perScale * p.scale, p.stallShare, p).durationSeconds;
}

export const estimate: EtaModel<ReindexUnderLoadParams> = {
  units(p, maximal, stored) {
    const seconds = expectedRunLength(p, stored);
    return planRuns(maximal ? p.maxSets : p.sets, p.modes).map((t) => ({
      key: t.key,
      size: p.scale,
      fixedSeconds: seconds,
    }));
  },
  size: (_c, p) => finiteOrNaN(p.scale),
  constants(stored): Record<string, number> {
    const perScale = storedRebuildPerScale(stored);
    return perScale === undefined ? {} : { [REBUILD_CONSTANT]: perScale };
  },
  references: REFERENCES,
};

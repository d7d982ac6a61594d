/**
 * 04's ETA model: runs whose length is fixed by the params, or, with `stallShare` > 0, by this
 * machine's calibration rebuild (rebuild ÷ stallShare). A run's setup (a clone of the template and
 * its checkpoint) grows with the scale.
 */
import { median } from "simple-statistics";
import {
  cpuProbeSeconds,
  finiteOrNaN,
  REFERENCE_PROBE_SECONDS,
  storedRuns,
  type EtaModel,
  type StoredRuns,
} from "../eta";
import type { ReindexUnderLoadParams } from "./params";
import { storedCalibration } from "./run-length";
import { planRuns } from "./workload/run-trials";
import { runLengthFor } from "./workload/stall";

/**
 * The calibration rebuild's seconds per unit of scale in this machine's stored runs (a plain
 * REINDEX of the three keys grows with the rows: 2.9 s at scale 50 here), undefined without one.
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

/**
 * The calibration rebuild's seconds per unit of scale on the reference machine (its probe
 * REFERENCE_PROBE_SECONDS): 2.521 s at scale 100 and 1.339 s at 50 on its kind here (probe 0.038 s),
 * 0.026 s a unit, × 0.05 ÷ 0.038. The planned 30 s runs in its place put 04's first full run at
 * about 6 min for 3 min 47 s: the calibration chose 10 s runs.
 */
export const REFERENCE_REBUILD_PER_SCALE = 0.034;

/**
 * Each run's length as the run will choose it: the params' without a stall share; with one, the
 * rebuild rate times this scale ÷ the share (bounded as the run bounds it), the rate being this
 * machine's stored calibrations', else the reference machine's scaled by the CPU probe.
 */
export function expectedRunLength(
  p: ReindexUnderLoadParams,
  stored: StoredRuns,
  probe: () => number = cpuProbeSeconds,
): number {
  if (!(p.stallShare > 0)) return p.durationSeconds;
  const perScale = storedRebuildPerScale(stored) ?? (REFERENCE_REBUILD_PER_SCALE * probe()) / REFERENCE_PROBE_SECONDS;
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
  // One default run on the reference machine.
  reference: { timedPerSizeSeconds: 0, overheadSeconds: 1.32, untimedPerSizeSeconds: 0.067, constantSetup: false },
};

/** 03's ETA model: rounds of a fixed length, their setup growing with the data's scale. */
import { finiteOrNaN, type EtaModel } from "../eta";
import type { OverIndexingParams } from "./params";
import { planRounds } from "./workload/run-trials";

export const estimate: EtaModel<OverIndexingParams> = {
  units: (p, maximal) =>
    planRounds(p.indexLevels, maximal ? p.maxRepeats : p.repeats).map((t) => ({
      key: t.key,
      size: p.dataScale,
      fixedSeconds: p.durationSeconds,
    })),
  size: (_c, p) => finiteOrNaN(p.dataScale),
  // The untimed part seen at one size only on the reference machine.
  reference: { timedPerSizeSeconds: 0, overheadSeconds: 2.5, untimedPerSizeSeconds: 0, constantSetup: true },
};

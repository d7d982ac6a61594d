/** 01's ETA model: each trial grows with the rows it writes; the adaptive rounds repeat the largest size. */
import { finiteOrNaN, type EtaModel } from "../eta";
import type { IndexWriteCostParams } from "./params";
import { planTrials } from "./workload/run-trials";

export const estimate: EtaModel<IndexWriteCostParams> = {
  units(p, maximal) {
    const largest = Math.max(...p.rowCounts);
    const extra = maximal
      ? planTrials({ ...p, rowCounts: [largest], growthRows: [], repeats: p.maxRepeats }).filter(
          (t) => t.repeat > p.repeats,
        )
      : [];
    return [...planTrials(p), ...extra].map((t) => ({
      key: `${t.condition.engine}/${t.condition.rows}/${t.condition.operation}/idx${t.condition.extraIndexes}/ff${t.condition.fillfactor ?? "-"}/r${t.repeat}`,
      size: t.condition.rows,
      fixedSeconds: 0,
    }));
  },
  size: (c) => finiteOrNaN(c.rows),
  // 40 stored smoke runs on the reference machine; the untimed part seen at one size only.
  reference: { timedPerSizeSeconds: 2.2e-5, overheadSeconds: 0.44, untimedPerSizeSeconds: 0, constantSetup: true },
};

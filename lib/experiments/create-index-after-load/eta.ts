/** 02's ETA model: each trial grows with the rows it loads. */
import { finiteOrNaN, type EtaModel } from "../eta";
import type { CreateIndexAfterLoadParams } from "./params";
import { planTrials } from "./workload/plan";

export const estimate: EtaModel<CreateIndexAfterLoadParams> = {
  units: (p) => planTrials(p).map((t) => ({ key: t.key, size: t.condition.rows, fixedSeconds: 0 })),
  size: (c) => finiteOrNaN(c.rows),
  reference: { timedPerSizeSeconds: 2.4e-6, overheadSeconds: 0.57, untimedPerSizeSeconds: 0, constantSetup: false },
};

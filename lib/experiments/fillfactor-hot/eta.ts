/** 07's ETA model: every trial loads, vacuums and updates `rows` rows, so each grows with them. */
import { finiteOrNaN, type EtaModel } from "../eta";
import type { FillfactorHotParams } from "./params";
import { conditionKey, planTrials } from "./workload/run-trials";

export const estimate: EtaModel<FillfactorHotParams> = {
  units: (p) =>
    planTrials(p).map((t) => ({ key: `${conditionKey(t.condition)}/r${t.repeat}`, size: p.rows, fixedSeconds: 0 })),
  size: (_condition, params) => finiteOrNaN(params.rows),
  // Fitted on this lab's first two runs here, with the CPUs busy with other work: smoke (2,000
  // rows) 8 trials in 5.5 s, ~0.65 s of them setup; default (100,000 rows) 30 trials in 70.9 s,
  // the pass's statements 1.3 s and the load, indexes, VACUUM and CHECKPOINT 1.1 s a trial.
  reference: { timedPerSizeSeconds: 1.3e-5, overheadSeconds: 0.6, untimedPerSizeSeconds: 5e-6, constantSetup: false },
};

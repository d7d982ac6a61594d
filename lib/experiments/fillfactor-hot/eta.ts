/** 07's ETA model: every trial loads, vacuums and updates `rows` rows, so each grows with them. */
import { finiteOrNaN, type EtaModel } from "../eta";
import type { FillfactorHotParams } from "./params";
import { conditionKey, planTrials } from "./workload/run-trials";

export const estimate: EtaModel<FillfactorHotParams> = {
  units: (p) =>
    planTrials(p).map((t) => ({ key: `${conditionKey(t.condition)}/r${t.repeat}`, size: p.rows, fixedSeconds: 0 })),
  size: (_condition, params) => finiteOrNaN(params.rows),
  // Until the reference machine has stored runs: 01's rates (its trials also load and update a
  // table of bigint rows), which its stored runs fitted.
  reference: { timedPerSizeSeconds: 2.2e-5, overheadSeconds: 0.44, untimedPerSizeSeconds: 2e-5, constantSetup: false },
};

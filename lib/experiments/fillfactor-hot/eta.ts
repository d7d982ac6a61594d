/** 07's ETA model: every trial loads, vacuums and updates `rows` rows, so each grows with them. */
import { finiteOrNaN, type EtaModel, referencesIn } from "../eta";
import type { FillfactorHotParams } from "./params";
import { conditionKey, planTrials } from "./workload/run-trials";

const PASS = "pass";

export const estimate: EtaModel<FillfactorHotParams> = {
  units: (p) =>
    planTrials(p).map((t) => ({
      key: `${conditionKey(t.condition)}/r${t.repeat}`,
      size: p.rows,
      fixedSeconds: 0,
      kind: PASS,
    })),
  size: (_condition, params) => finiteOrNaN(params.rows),
  // One kind, so that the pass's growth past the stored rows is fitted (KindGrowth): a median 0.46 s
  // a trial at 100,000 rows, 7.0 s at 1M here, once the table outgrows shared_buffers.
  kind: () => PASS,
  // Without stored runs: the rates fitted on reference machines (eta-reference*.json here).
  references: referencesIn(__dirname),
};

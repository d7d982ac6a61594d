/** 07's ETA model: every trial loads, vacuums and updates `rows` rows, so each grows with them. */
import { finiteOrNaN, type EtaModel } from "../eta";
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
  // `npm run eta:reference` on a default (100,000 rows) and a full (1M) run on the reference
  // machine's kind (2-core Xeon, probe 0.038 s). The pass grows ×15 for ×10 rows (exponent 1.2);
  // the earlier rates, from a smoke and a default run on busy CPUs, read the full run 1.48× long.
  reference: {
    timedPerSizeSeconds: 8.7e-6,
    overheadSeconds: 0.036,
    untimedPerSizeSeconds: 3.9e-6,
    constantSetup: false,
    kinds: { pass: { size: 1000000, seconds: 9.2, exponent: 1.2, untimedSeconds: 3.9 } },
  },
};

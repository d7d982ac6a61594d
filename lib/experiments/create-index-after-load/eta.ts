/**
 * 02's ETA model: each trial grows with the rows it loads, each kind of trial (a load by either
 * method, a CREATE INDEX of the sweeps) at its own rate: loading into an indexed table grows faster
 * than the rows once the index outgrows the cache (eta.ts, KindGrowth).
 */
import { finiteOrNaN, type EtaModel } from "../eta";
import type { CreateIndexAfterLoadParams } from "./params";
import { planTrials } from "./workload/plan";

const kindOf = (c: { readonly kind?: unknown; readonly method?: unknown }): string | undefined =>
  typeof c.kind === "string" && typeof c.method === "string" ? `${c.kind} ${c.method}` : undefined;

export const estimate: EtaModel<CreateIndexAfterLoadParams> = {
  units: (p) =>
    planTrials(p).map((t) => ({
      key: t.key,
      size: t.condition.rows,
      fixedSeconds: 0,
      kind: `${t.condition.kind} ${t.condition.method}`,
    })),
  size: (c) => finiteOrNaN(c.rows),
  kind: kindOf,
  // `npm run eta:reference` on a default (1M–3M rows) and a full (1M–100M) run on the reference
  // machine's kind (2-core Xeon, probe 0.038 s, so × 0.05 ÷ 0.038 here). Each kind's growth kept: the
  // flat rates alone (a per-row 2.4 µs from smoke runs) read 02's full run 0.90× and its default 0.72×.
  reference: {
    timedPerSizeSeconds: 2.1e-6,
    overheadSeconds: 3.1,
    untimedPerSizeSeconds: 9.9e-8,
    constantSetup: false,
    kinds: {
      "load load_then_index": { size: 100000000, seconds: 180, exponent: 1, untimedSeconds: 8 },
      "load index_then_load": { size: 100000000, seconds: 530, exponent: 1, untimedSeconds: 8.4 },
      "build load_then_index": { size: 100000000, seconds: 80, exponent: 1.1, untimedSeconds: 3.1 },
      "wal_anatomy load_then_index": { size: 10000000, seconds: 17, exponent: 1, untimedSeconds: 9.1 },
      "wal_anatomy index_then_load": { size: 10000000, seconds: 45, exponent: 1, untimedSeconds: 7.6 },
    },
  },
};

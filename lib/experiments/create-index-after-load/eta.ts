/**
 * 02's ETA model: each trial grows with the rows it loads, each kind of trial (a load by either
 * method, a CREATE INDEX of the sweeps) at its own rate: loading into an indexed table grows faster
 * than the rows once the index outgrows the cache (eta.ts, KindGrowth).
 */
import { finiteOrNaN, type EtaModel, referencesIn } from "../eta";
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
  // Without stored runs: the rates fitted on reference machines (eta-reference*.json here).
  references: referencesIn(__dirname),
};

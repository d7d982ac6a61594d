/** The trials: the headline pair, the size and key-order sweeps, the CREATE INDEX sweep, WAL decoding, regime pairs. */
import type { OrderedTrial } from "../../../workloads/trials";
import type { CreateIndexAfterLoadParams } from "../params";
import { rotated } from "../../../stats/order";
import type { KeyOrder } from "./sql";

export const METHODS = ["load_then_index", "index_then_load"] as const;
export type Method = (typeof METHODS)[number];

export const METHOD_LABELS: Readonly<Record<Method, string>> = {
  load_then_index: "A: load, then CREATE INDEX",
  index_then_load: "B: CREATE INDEX, then load",
};

/** build: A's CREATE INDEX alone, on a table loaded once; wal_anatomy: a load whose WAL is kept (its times unused). */
export type TrialKind = "load" | "build" | "wal_anatomy";

export interface CreateIndexCondition {
  readonly kind: TrialKind;
  readonly method: Method;
  readonly rows: number;
  readonly keyOrder: KeyOrder;
  readonly maintenanceWorkMemMB: number;
  readonly parallelWorkers: number;
  /** Absent: the seed's 10,001 codes, the notebook's server. */
  readonly codes?: number;
  readonly sharedBuffersMB?: number;
}

export type PlannedTrial = OrderedTrial<CreateIndexCondition>;

export function conditionKey(c: CreateIndexCondition): string {
  return (
    `${c.kind}|${c.method}|${c.rows}|${c.keyOrder}|mwm${c.maintenanceWorkMemMB}|w${c.parallelWorkers}` +
    (c.codes !== undefined ? `|codes${c.codes}` : "") +
    (c.sharedBuffersMB !== undefined ? `|sb${c.sharedBuffersMB}` : "")
  );
}

const planned = (condition: CreateIndexCondition, repeat: number, position: number): PlannedTrial => ({
  key: `${conditionKey(condition)}#${repeat}`,
  condition,
  repeat,
  position,
});

function pairs(
  p: CreateIndexAfterLoadParams,
  rows: number,
  keyOrder: KeyOrder,
  repeats: number,
  kind: TrialKind = "load",
  regime: Pick<CreateIndexCondition, "codes" | "sharedBuffersMB"> = {},
): PlannedTrial[] {
  const [maintenanceWorkMemMB, parallelWorkers] = [p.maintenanceWorkMemMB, p.maxParallelMaintenanceWorkers];
  // A B, B A, …: a slow drift of the machine favours neither.
  return Array.from({ length: repeats }, (_, repeat) =>
    rotated(METHODS, repeat).map((method, position) =>
      planned({ kind, method, rows, keyOrder, maintenanceWorkMemMB, parallelWorkers, ...regime }, repeat, position),
    ),
  ).flat();
}

export function planTrials(p: CreateIndexAfterLoadParams): PlannedTrial[] {
  const sizes = [...new Set([...p.rowSweep, p.rows])].sort((a, b) => a - b);
  const plan = sizes.flatMap((rows) => pairs(p, rows, "random", rows === p.rows ? p.repeats : p.sweepRepeats));
  for (const order of p.keyOrders) if (order !== "random") plan.push(...pairs(p, p.rows, order, p.sweepRepeats));
  const builds = p.memorySweepMB.flatMap((maintenanceWorkMemMB) =>
    p.workerSweep.map((parallelWorkers) => ({ maintenanceWorkMemMB, parallelWorkers })),
  );
  for (let repeat = 0; repeat < p.sweepRepeats; repeat++)
    plan.push(
      ...builds.map((b, position) =>
        planned({ kind: "build", method: "load_then_index", rows: p.rows, keyOrder: "random", ...b }, repeat, position),
      ),
    );
  if (p.walAnatomyRows > 0) plan.push(...pairs(p, p.walAnatomyRows, "random", 1, "wal_anatomy"));
  const density = p.densityRows > 0 ? { codes: p.densityCodes } : undefined;
  const cache = p.cacheRows > 0 ? { sharedBuffersMB: p.cacheSharedBuffersMB } : undefined;
  // At one size, one set serves both regimes, as the seed's one table had both.
  const shared = density && cache && p.densityRows === p.cacheRows;
  if (density && !shared) plan.push(...pairs(p, p.densityRows, "random", p.repeats, "load", density));
  // Last: they run on the second server, started for them.
  if (cache) plan.push(...pairs(p, p.cacheRows, "random", p.repeats, "load", { ...(shared ? density : {}), ...cache }));
  return plan;
}

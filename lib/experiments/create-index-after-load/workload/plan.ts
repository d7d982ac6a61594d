/**
 * The trials of notebook 02: the headline pair (seed's protocol), the size and key-order sweeps
 * (both methods, whole trials), the CREATE INDEX sweep (sort memory × parallel workers, builds on
 * one loaded table) and the WAL-decoding pair.
 */
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

/**
 * load: a whole trial of one method on a fresh table. build: only method A's CREATE INDEX, on a
 * table loaded once for the sweep. wal_anatomy: a load trial whose WAL is kept and decoded (its
 * times are not used: keeping WAL changes the I/O).
 */
export const TRIAL_KINDS = ["load", "build", "wal_anatomy"] as const;
export type TrialKind = (typeof TRIAL_KINDS)[number];

export interface CreateIndexCondition {
  readonly kind: TrialKind;
  readonly method: Method;
  readonly rows: number;
  readonly keyOrder: KeyOrder;
  readonly maintenanceWorkMemMB: number;
  /** max_parallel_maintenance_workers for the build. */
  readonly parallelWorkers: number;
  /** Distinct codes of the load; absent: the seed's 10,001. */
  readonly codes?: number;
  /** The trial runs on the second server, whose shared_buffers is this (MB); absent: the notebook's server. */
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

/** A pair run only to put a claim in its regime (other codes, or the small-buffers server). */
export const isRegimeCondition = (c: Pick<CreateIndexCondition, "codes" | "sharedBuffersMB">) =>
  c.codes !== undefined || c.sharedBuffersMB !== undefined;

/** What the plan reads of the notebook's parameters. */
export type PlanInput = Pick<
  CreateIndexAfterLoadParams,
  | "rows"
  | "repeats"
  | "rowSweep"
  | "sweepRepeats"
  | "keyOrders"
  | "memorySweepMB"
  | "workerSweep"
  | "walAnatomyRows"
  | "cacheRows"
  | "cacheSharedBuffersMB"
  | "densityRows"
  | "densityCodes"
  | "maintenanceWorkMemMB"
  | "maxParallelMaintenanceWorkers"
>;

function pairs(
  rows: number,
  keyOrder: KeyOrder,
  repeats: number,
  p: PlanInput,
  kind: TrialKind = "load",
  regime: Pick<CreateIndexCondition, "codes" | "sharedBuffersMB"> = {},
): PlannedTrial[] {
  const out: PlannedTrial[] = [];
  for (let repeat = 0; repeat < repeats; repeat++) {
    // Rotate which method goes first (A B, B A, …), so a slow drift of the machine favours neither;
    // with two conditions a rotation balances the order exactly, which a shuffle would only on average.
    const order = rotated(METHODS, repeat);
    for (const [position, method] of order.entries()) {
      const condition: CreateIndexCondition = {
        kind,
        method,
        rows,
        keyOrder,
        maintenanceWorkMemMB: p.maintenanceWorkMemMB,
        parallelWorkers: p.maxParallelMaintenanceWorkers,
        ...regime,
      };
      out.push({ key: `${conditionKey(condition)}#${repeat}`, condition, repeat, position });
    }
  }
  return out;
}

export function planTrials(p: PlanInput): PlannedTrial[] {
  const sizes = [...new Set([...p.rowSweep, p.rows])].sort((a, b) => a - b);
  const plan: PlannedTrial[] = [];
  for (const rows of sizes) plan.push(...pairs(rows, "random", rows === p.rows ? p.repeats : p.sweepRepeats, p));
  for (const order of p.keyOrders) if (order !== "random") plan.push(...pairs(p.rows, order, p.sweepRepeats, p));
  for (let repeat = 0; repeat < p.sweepRepeats; repeat++) {
    let position = 0;
    for (const mwm of p.memorySweepMB) {
      for (const workers of p.workerSweep) {
        const condition: CreateIndexCondition = {
          kind: "build",
          method: "load_then_index",
          rows: p.rows,
          keyOrder: "random",
          maintenanceWorkMemMB: mwm,
          parallelWorkers: workers,
        };
        plan.push({ key: `${conditionKey(condition)}#${repeat}`, condition, repeat, position: position++ });
      }
    }
  }
  if (p.walAnatomyRows > 0) plan.push(...pairs(p.walAnatomyRows, "random", 1, p, "wal_anatomy"));
  const density = p.densityRows && p.densityCodes !== undefined ? { codes: p.densityCodes } : undefined;
  const cache =
    p.cacheRows && p.cacheSharedBuffersMB !== undefined ? { sharedBuffersMB: p.cacheSharedBuffersMB } : undefined;
  // At one size, one set of pairs serves both claims, as the seed's one 100M-row table had both its
  // ~44× shared_buffers and its ~10,000 rows per code.
  const shared = density && cache && p.densityRows === p.cacheRows;
  if (density && !shared) plan.push(...pairs(p.densityRows ?? 0, "random", p.repeats, p, "load", density));
  // Last: they run on the second server, started for them.
  if (cache)
    plan.push(...pairs(p.cacheRows ?? 0, "random", p.repeats, p, "load", { ...(shared ? density : {}), ...cache }));
  return plan;
}

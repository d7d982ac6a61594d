/** Writes a run's summaries as JSON and CSV beside its trials. */
import { summaryCsv } from "../../results/summary-csv";
import type { RunStore } from "../../results/run-store";
import type { ClaimCheck } from "../../stats/claims";
import type { CreateIndexCondition } from "./workload/plan";
import { NOTEBOOK } from "./run";
import { checkpoints, ioWaitMs, type CreateIndexSummary } from "./summarise";

export function summaryRows(s: CreateIndexSummary): Record<string, string | number | boolean | null>[] {
  const methods = s.methods.map((m) => {
    const pair = s.pairs.find(
      (p) =>
        p.rows === m.condition.rows &&
        p.keyOrder === m.condition.keyOrder &&
        p.maintenanceWorkMemMB === m.condition.maintenanceWorkMemMB &&
        p.parallelWorkers === m.condition.parallelWorkers &&
        p.codes === m.condition.codes &&
        p.sharedBuffersMB === m.condition.sharedBuffersMB,
    );
    return {
      kind: "load",
      method: m.condition.method,
      rows: m.condition.rows,
      key_order: m.condition.keyOrder,
      maintenance_work_mem_mb: m.condition.maintenanceWorkMemMB,
      max_parallel_maintenance_workers: m.condition.parallelWorkers,
      codes: m.condition.codes ?? null,
      shared_buffers_mb: m.condition.sharedBuffersMB ?? null,
      trials: m.trials,
      failed: m.failed,
      median_s: m.medianSeconds,
      min_s: m.minSeconds,
      max_s: m.maxSeconds,
      load_ms: m.phaseMs.load ?? null,
      index_ms: m.phaseMs.index ?? null,
      checkpoint_ms: m.phaseMs.checkpoint ?? null,
      // B/A paired per repeat: median over repeats and its exact interval (coverage beside it).
      ratio_b_over_a: m.condition.method === "index_then_load" ? (pair?.timeRatio?.estimate ?? null) : null,
      ratio_low: m.condition.method === "index_then_load" ? (pair?.timeRatio?.low ?? null) : null,
      ratio_high: m.condition.method === "index_then_load" ? (pair?.timeRatio?.high ?? null) : null,
      ratio_coverage: m.condition.method === "index_then_load" ? (pair?.timeRatio?.coverage ?? null) : null,
      server_ratio_b_over_a:
        m.condition.method === "index_then_load" ? (pair?.serverTimeRatio?.estimate ?? null) : null,
      backend_cpu_s: m.backendCpuS ?? null,
      wal_records: m.totals["wal.records"] ?? null,
      wal_fpi: m.totals["wal.fpi"] ?? null,
      wal_bytes: m.totals["wal.bytes"] ?? null,
      blks_read: m.totals["db.blks_read"] ?? null,
      blks_hit: m.totals["db.blks_hit"] ?? null,
      io_wait_ms: ioWaitMs(m.totals),
      temp_bytes: m.totals["db.temp_bytes"] ?? null,
      checkpoints: checkpoints(m.totals),
      index_bytes: m.index?.indexBytes ?? null,
      avg_leaf_density: m.index?.avgLeafDensity ?? null,
      leaf_fragmentation: m.index?.leafFragmentation ?? null,
      sort_spilled: m.sortSpilled ?? null,
    };
  });
  const builds = s.builds.map((b) => ({
    kind: "build",
    method: "load_then_index",
    rows: b.rows,
    key_order: "random",
    maintenance_work_mem_mb: b.maintenanceWorkMemMB,
    max_parallel_maintenance_workers: b.parallelWorkers,
    trials: b.trials,
    median_s: b.medianSeconds,
    min_s: b.minSeconds,
    max_s: b.maxSeconds,
    index_ms: b.medianSeconds * 1000,
    temp_bytes: b.tempBytes,
    sort_spilled: b.spilled ?? null,
  }));
  return [...methods, ...builds];
}

export function writeSummaries(
  store: RunStore<CreateIndexCondition>,
  s: CreateIndexSummary,
  claims: readonly ClaimCheck[],
): string[] {
  return [
    store.writeSummary("summary.json", { summary: s, claims }),
    store.writeSummary("summary.csv", summaryCsv(summaryRows(s), { runId: store.runId, notebook: NOTEBOOK })),
  ];
}

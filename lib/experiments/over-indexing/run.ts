/**
 * Notebook 03's experiment: start the server with the seed's settings (scaled), load the inventory
 * data once, run the rounds (a level each), record everything, stop the server.
 */
import type { OverIndexingParams } from "../../params/over-indexing";
import type { RunMetadata } from "../../results/metadata";
import type { ServerSpec } from "../../targets/types";
import { withSession, type RunControl } from "../session";
import { describeRunner, locatePgbench } from "../../workloads/pgbench";
import { datasetShape, transactionScript } from "../../workloads/over-indexing/dataset";
import { createTemplate, dropDatabases, type TemplateInfo } from "../../workloads/over-indexing/databases";
import { planRounds, runRounds, type OverIndexingCondition, type OverIndexingTrial } from "../../workloads/over-indexing/run-trials";

export const NOTEBOOK = "03-over-indexing";
const GIB = 2 ** 30;

export interface OverIndexingRun {
  readonly runId: string;
  readonly directory: string;
  readonly params: OverIndexingParams;
  readonly trials: readonly OverIndexingTrial[];
  readonly metadata: RunMetadata;
  readonly template: TemplateInfo;
  /** The pgbench script every round ran. */
  readonly script: string;
}

/** The seed's postgresql.conf, scaled to this machine where it names sizes. */
export function serverSpec(p: OverIndexingParams): ServerSpec {
  return {
    engine: "postgresql",
    name: "03-pg",
    settings: {
      shared_buffers: `${p.sharedBuffersMB}MB`,
      effective_cache_size: `${p.sharedBuffersMB * 2}MB`,
      maintenance_work_mem: `${p.maintenanceWorkMemMB}MB`,
      max_wal_size: `${p.maxWalSizeGB}GB`,
      min_wal_size: `${Math.max(1, Math.floor(p.maxWalSizeGB / 4))}GB`,
      checkpoint_timeout: `${p.checkpointTimeoutMin}min`,
      bgwriter_lru_maxpages: 500,
      track_io_timing: "on",
      shared_preload_libraries: "pg_stat_statements",
      "pg_stat_statements.track": "all",
      "pg_stat_statements.max": 10000,
      max_connections: Math.max(100, p.clients + 20),
    },
  };
}

export type { RunControl } from "../session";

export async function run(p: OverIndexingParams, control: RunControl = {}): Promise<OverIndexingRun> {
  const plan = planRounds(p.indexLevels, p.repeats);
  return withSession<OverIndexingCondition, OverIndexingRun>(
    { notebook: NOTEBOOK, title: "03 over-indexing", params: p, control, specs: [serverSpec(p)], target: p.target, cpus: p.cpus, memoryGiB: p.memoryGiB },
    async ({ store, progress, servers, signal, notes, metadata }) => {
      const server = servers.servers.get("postgresql")!;
      const runner = await locatePgbench(server);
      notes.push(`pgbench ${runner.version} (${describeRunner(runner)}) drives PostgreSQL ${server.description.version}`);
      const shape = datasetShape(p.dataScale);
      const template = await createTemplate(
        server,
        shape,
        p.randomSeed,
        (step) => progress.update(0, plan.length, `loading the template database: ${step}…`),
        signal,
      );
      const script = transactionScript(shape.warehouses, template.samplePercent);
      const loadTotal = Object.values(template.loadSeconds).reduce((a, b) => a + b, 0);
      notes.push(
        `data: ${template.rows.products.toLocaleString("en-US")} products, ${template.rows.warehouses.toLocaleString("en-US")} warehouses, ` +
          `${template.rows.stock.toLocaleString("en-US")} stock rows, ${template.rows.stock_movements.toLocaleString("en-US")} movements ` +
          `(${(template.databaseBytes / GIB).toFixed(2)} GiB, loaded in ${loadTotal.toFixed(0)} s); every round starts from a FILE_COPY clone of it`,
        `TABLESAMPLE SYSTEM (${Number(template.samplePercent.toPrecision(3))}) over ${template.stockPages.toLocaleString("en-US")} stock pages` +
          (template.samplePercent > 0.05 ? " (the seed's 0.05 % raised so that a sample is never empty on the smaller table)" : " (the seed's)"),
      );
      store.writeMetadata({ ...metadata, template, script });
      await runRounds({
        server,
        runner,
        plan,
        settings: { ...p, script },
        store,
        signal,
        onNote: (n) => notes.push(n),
        onRound: (done, total, next, last) => {
          const lastText = last ? `last: ${last.key} ${last.pgbench?.summary.tps.toFixed(0)} tps · ` : "";
          progress.update(done, total, `${lastText}${next ? next.key : "done"}`);
        },
        onPhase: (planned, phase) => progress.update(plan.indexOf(planned), plan.length, `${planned.key}: ${phase}…`),
        onProgress: (planned, point) =>
          progress.update(plan.indexOf(planned), plan.length, `${planned.key}: ${point.second.toFixed(0)} / ${p.durationSeconds} s · ${point.tps.toFixed(0)} tps`),
      });
      await dropDatabases(server);
      progress.finish(`${plan.length} rounds`);
      store.writeMetadata({ ...metadata, notes, template, script });
      return {
        runId: store.runId,
        directory: store.directory,
        params: p,
        trials: store.trials() as OverIndexingTrial[],
        metadata: { ...metadata, notes },
        template,
        script,
      };
    },
  );
}

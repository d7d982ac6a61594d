/**
 * Notebook 04's experiment: start the server, build the pgbench template once, run the sets
 * (baseline, REINDEX, REINDEX CONCURRENTLY), record everything, stop the server.
 */
import type { ReindexUnderLoadParams } from "../../params/reindex-under-load";
import type { RunMetadata } from "../../results/metadata";
import type { ServerSpec } from "../../targets/types";
import { withSession, type RunControl } from "../session";
import { describeRunner, locatePgbench } from "../../workloads/pgbench";
import { createTemplate, dropDatabases, type TemplateInfo } from "../../workloads/reindex-under-load/databases";
import { planRuns, runPlan, type ReindexCondition, type ReindexTrial } from "../../workloads/reindex-under-load/run-trials";

export const NOTEBOOK = "04-reindex-under-load";
const GIB = 2 ** 30;

export interface ReindexUnderLoadRun {
  readonly runId: string;
  readonly directory: string;
  readonly params: ReindexUnderLoadParams;
  readonly trials: readonly ReindexTrial[];
  readonly metadata: RunMetadata;
  readonly template: TemplateInfo;
}

export function serverSpec(p: ReindexUnderLoadParams): ServerSpec {
  return {
    engine: "postgresql",
    name: "04-pg",
    // The seed ran a stock server; only shared_buffers is pinned (to its default) so that every
    // target starts from the same cache size. track_io_timing adds I/O times to the counters.
    settings: { shared_buffers: `${p.sharedBuffersMB}MB`, track_io_timing: "on" },
  };
}

export type { RunControl } from "../session";

export async function run(p: ReindexUnderLoadParams, control: RunControl = {}): Promise<ReindexUnderLoadRun> {
  const plan = planRuns(p.sets, p.modes);
  return withSession<ReindexCondition, ReindexUnderLoadRun>(
    { notebook: NOTEBOOK, title: "04 REINDEX under load", params: p, control, specs: [serverSpec(p)], target: p.target, cpus: p.cpus, memoryGiB: p.memoryGiB },
    async ({ store, progress, servers, signal, notes, metadata }) => {
      const server = servers.servers.get("postgresql")!;
      const runner = await locatePgbench(server);
      notes.push(`pgbench ${runner.version} (${describeRunner(runner)}) drives PostgreSQL ${server.description.version}`);
      progress.update(0, plan.length, `pgbench -i -s ${p.scale} into a template database…`);
      const template = await createTemplate(server, p.scale, p.initSteps, runner, signal);
      notes.push(
        `template: pgbench -i -s ${p.scale} -I ${p.initSteps} in ${template.init.seconds.toFixed(1)} s, ` +
          `${(template.databaseBytes / GIB).toFixed(2)} GiB; each run starts from a FILE_COPY clone of it`,
      );
      store.writeMetadata({ ...metadata, template });
      let current = "";
      await runPlan({
        server,
        runner,
        plan,
        settings: p,
        store,
        signal,
        onNote: (n) => notes.push(n),
        onRun: (done, total, next, last) => {
          const lastText = last ? `last: ${last.key} ${last.pgbench?.summary.tps.toFixed(0)} tps · ` : "";
          current = next ? `${next.key}` : "done";
          progress.update(done, total, `${lastText}${next ? `cloning + restart for ${current}…` : "done"}`);
        },
        onProgress: (planned, point) => {
          const done = plan.findIndex((x) => x.key === planned.key);
          progress.update(Math.max(0, done), plan.length, `${planned.key}: ${point.second.toFixed(0)} / ${p.durationSeconds} s · ${point.tps.toFixed(0)} tps`);
        },
      });
      await dropDatabases(server);
      progress.finish(`${plan.length} runs`);
      store.writeMetadata({ ...metadata, notes, template });
      return { runId: store.runId, directory: store.directory, params: p, trials: store.trials() as ReindexTrial[], metadata: { ...metadata, notes }, template };
    },
  );
}

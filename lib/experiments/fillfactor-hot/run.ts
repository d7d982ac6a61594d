/** Notebook 07's run: start PostgreSQL, run the rounds of UPDATE passes, record everything. */
import type { RunMetadata } from "../../results/metadata";
import type { ServerSpec } from "../../targets/types";
import { planText } from "../../stats/claims";
import { withSession, type RunControl } from "../session";
import { estimateRun } from "../eta";
import { plan07 } from "./claims";
import { diskNeed07 } from "./disk";
import { estimate as eta } from "./eta";
import type { FillfactorHotParams } from "./params";
import { HotTable } from "./workload/table";
import { planTrials, runPlan, type FillfactorHotCondition, type FillfactorHotTrial } from "./workload/run-trials";

export const NOTEBOOK = "07-fillfactor-hot";

export interface FillfactorHotRun {
  readonly runId: string;
  readonly directory: string;
  readonly trials: readonly FillfactorHotTrial[];
  readonly metadata: RunMetadata;
}

export function serverSpecs(p: FillfactorHotParams): ServerSpec[] {
  return [
    {
      engine: "postgresql",
      name: "07-pg",
      // Big enough that the table and its indexes stay in shared_buffers (1M rows at fillfactor 50:
      // ~230 MB of heap after the pass): the pass measures page placement, not reads.
      settings: { shared_buffers: `${p.sharedBuffersMiB}MB` },
      uses: {
        notebook: "07 fillfactor vs HOT",
        disk: diskNeed07(p),
        clients: 3,
        extensions: [
          { name: "pgstattuple", measures: "rows and free bytes per loaded heap page (the claims' room ratio)" },
          { name: "pg_walinspect", measures: "B-tree entries inserted by the pass, counted in its WAL" },
        ],
      },
    },
  ];
}

export type { RunControl } from "../session";

export async function runFillfactorHot(p: FillfactorHotParams, control: RunControl = {}): Promise<FillfactorHotRun> {
  return withSession<FillfactorHotCondition, FillfactorHotRun>(
    {
      notebook: NOTEBOOK,
      estimate: (done) => estimateRun(NOTEBOOK, eta, p, done),
      title: "07 fillfactor vs HOT",
      params: p,
      control,
      specs: serverSpecs(p),
      target: p.target,
      cpus: p.cpus,
      memoryGiB: p.memoryGiB,
      prospect: planText(plan07(p)),
    },
    async ({ store, progress, servers, signal, metadata }) => {
      const server = servers.byEngine.get("postgresql");
      if (!server) throw new Error("no PostgreSQL server was started");
      const plan = planTrials(p);
      await runPlan({
        plan,
        size: { rows: p.rows, padBytes: p.padBytes, batchRows: p.batchRows },
        store,
        signal,
        continueOnError: control.continueOnError,
        open: () => HotTable.open(server.connection),
        onTrial: (done, total, trial, next) => {
          const result = trial?.status === "ok" ? `${trial.seconds.toFixed(3)} s` : "failed";
          const last = trial ? `last: ${trial.key} ${result} · ` : "";
          const upcoming = next
            ? `next: fillfactor ${next.condition.fillfactor}, UPDATE ${next.condition.column}`
            : "done";
          progress.update(done, total, `${last}${upcoming}`);
        },
      });
      progress.finish(`${plan.length} trials`);
      return { runId: store.runId, directory: store.directory, trials: store.trials(), metadata };
    },
  );
}

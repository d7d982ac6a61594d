/**
 * Notebook 01's experiment: start the servers, run the seed's trial matrix, record everything.
 */
import type { IndexWriteCostParams } from "../../params/index-write-cost";
import { PostgresIndexWriteTable } from "../../engines/postgres/index-write-table";
import { gitCommit, hostInfo, type RunMetadata } from "../../results/metadata";
import { RunStore } from "../../results/run-store";
import { interruptSignal } from "../../runtime/interrupt";
import { reapOrphans } from "../../runtime/reaper";
import type { Engine, ServerSpec, StartedServer } from "../../targets/types";
import { progressReporter } from "../../display/progress";
import type { IndexWriteEngine } from "../../workloads/index-write-cost/engine";
import { OPERATION_LABELS } from "../../workloads/index-write-cost/operations";
import { planTrials, runPlan, type IndexWriteCondition, type IndexWriteTrial } from "../../workloads/index-write-cost/run-trials";
import { startServers } from "../servers";

export interface IndexWriteCostRun {
  readonly runId: string;
  readonly directory: string;
  readonly trials: readonly IndexWriteTrial[];
  readonly metadata: RunMetadata;
  readonly unavailable: ReadonlyMap<Engine, string>;
}

const GIB = 2 ** 30;

/** The seed's server settings: 1 GB cache on both engines, no durable-commit wait. */
export function serverSpecs(p: IndexWriteCostParams): ServerSpec[] {
  const specs: ServerSpec[] = [];
  if (p.engines.includes("postgresql")) {
    specs.push({
      engine: "postgresql",
      name: "01-pg",
      settings: { shared_buffers: `${p.cacheGiB}GB`, synchronous_commit: "off", track_io_timing: "on" },
    });
  }
  if (p.engines.includes("mongodb")) {
    specs.push({ engine: "mongodb", name: "01-mongo", settings: { wiredTigerCacheSizeGB: p.cacheGiB } });
  }
  return specs;
}

async function openEngine(server: StartedServer): Promise<IndexWriteEngine> {
  if (server.engine === "postgresql") return PostgresIndexWriteTable.open(server.connection);
  const { MongoIndexWriteCollection } = await import("../../engines/mongodb/index-write-collection");
  return MongoIndexWriteCollection.open(server.uri, server.connection.database);
}

export interface RunControl {
  /** Resume this run id: finished trials are skipped; parameters must match. */
  readonly resumeId?: string;
  readonly profile?: string;
  readonly signal?: AbortSignal;
  readonly continueOnError?: boolean;
}

export async function runIndexWriteCost(p: IndexWriteCostParams, control: RunControl = {}): Promise<IndexWriteCostRun> {
  const signal = control.signal ?? interruptSignal();
  const reaped = await reapOrphans();
  const store = RunStore.open<IndexWriteCondition>({ notebook: "01-index-write-cost", params: p, resumeId: control.resumeId });
  const progress = progressReporter("01 index write cost");
  progress.update(0, 1, "starting servers…");
  const started = await startServers(serverSpecs(p), {
    target: p.target,
    cpus: p.cpus,
    memoryBytes: p.memoryGiB * GIB,
    onProgress: (m) => progress.update(0, 1, m),
  });
  const engines = p.engines.filter((e) => started.servers.has(e));
  const metadata: RunMetadata = {
    runId: store.runId,
    notebook: "01-index-write-cost",
    profile: control.profile ?? "custom",
    startedAt: new Date().toISOString(),
    host: hostInfo(),
    gitCommit: gitCommit(),
    servers: [...started.servers.values()].map((s) => s.description),
    params: p,
    unavailable: Object.fromEntries(started.unavailable),
    notes: [
      ...started.notes,
      ...(reaped.length ? [`removed ${reaped.length} resource(s) left by an earlier, dead run`] : []),
    ],
  };
  store.writeMetadata(metadata);
  try {
    const plan = planTrials({ ...p, engines });
    await runPlan({
      plan,
      batchSize: p.batchSize,
      seed: p.seed,
      store,
      continueOnError: control.continueOnError,
      signal,
      open: (engine) => openEngine(started.servers.get(engine)!),
      onTrial: (done, total, trial, next) => {
        const last = trial ? `last: ${trial.key} ${trial.seconds?.toFixed(3)} s · ` : "";
        const upcoming = next
          ? `next: ${next.condition.engine} ${next.condition.rows.toLocaleString("en-US")} rows, ${OPERATION_LABELS[next.condition.operation]}, +${next.condition.extraIndexes} indexes`
          : "done";
        progress.update(done, total, `${last}${upcoming}`);
      },
    });
    progress.finish(`${plan.length} trials`);
  } finally {
    await started.stopAll();
  }
  return {
    runId: store.runId,
    directory: store.directory,
    trials: store.trials(),
    metadata,
    unavailable: started.unavailable,
  };
}

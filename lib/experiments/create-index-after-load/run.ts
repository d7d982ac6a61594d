/**
 * Notebook 02's experiment: start one PostgreSQL server with the stated settings, run the plan,
 * record everything, stop the server in `finally`.
 */
import { diskNeed02 } from "./disk";
import { connect } from "../../engines/postgres/connect";
import type { CreateIndexAfterLoadParams } from "./params";
import type { RunMetadata } from "../../results/metadata";
import type { ConnectionInfo, ServerSpec } from "../../targets/types";
import { withSession, type RunControl } from "../session";
import { estimateRun } from "../eta";
import { estimate as eta } from "./eta";
import { METHOD_LABELS, planTrials, type CreateIndexCondition, type PlannedTrial } from "./workload/plan";
import { runPlan, type CreateIndexTrial } from "./workload/run-trials";
import { REPORTED_SETTINGS } from "./workload/sql";
import { ignored } from "../../runtime/debug";
import { planText } from "../../stats/claims";
import { plan02 } from "./claims";

export const NOTEBOOK = "02-create-index-after-load";

export interface CreateIndexRunMetadata extends RunMetadata {
  /** The server's settings as it reports them (SHOW), read before the first trial. */
  readonly effectiveSettings: Readonly<Record<string, string>>;
}

export interface CreateIndexAfterLoadRun {
  readonly runId: string;
  readonly directory: string;
  readonly params: CreateIndexAfterLoadParams;
  readonly trials: readonly CreateIndexTrial[];
  readonly metadata: CreateIndexRunMetadata;
  readonly elapsedS: number;
}

export type { RunControl } from "../session";

/**
 * The seed's server: PostgreSQL's defaults, with I/O and WAL I/O timing on (as its follow-up did).
 * `sharedBuffersMB` given: the second server, on which the small-buffers pairs (`cacheRows`) run.
 */
export function serverSpec(p: CreateIndexAfterLoadParams, sharedBuffersMB?: number): ServerSpec {
  return {
    engine: "postgresql",
    name: sharedBuffersMB === undefined ? "02-pg" : "02-pg-small-buffers",
    settings: {
      shared_buffers: `${sharedBuffersMB ?? p.sharedBuffersMB}MB`,
      maintenance_work_mem: `${p.maintenanceWorkMemMB}MB`,
      max_parallel_maintenance_workers: p.maxParallelMaintenanceWorkers,
      max_wal_size: `${p.maxWalSizeMB}MB`,
      checkpoint_timeout: `${p.checkpointTimeoutS}s`,
      track_io_timing: "on",
      track_wal_io_timing: "on",
    },
    uses: {
      notebook: "02 create index after load",
      disk: diskNeed02(p),
      clients: 2,
      extensions: [
        { name: "pgstattuple", required: true, measures: "the finished index's shape (pgstatindex)" },
        ...(p.walAnatomyRows > 0
          ? [
              {
                name: "pg_walinspect",
                required: true,
                measures: "the WAL-decoding trials (walAnatomyRows > 0; --set walAnatomyRows=0 skips them)",
              },
            ]
          : []),
      ],
      walHold:
        p.walAnatomyRows > 0 ? { measures: "the WAL-decoding trials (--set walAnatomyRows=0 skips them)" } : undefined,
    },
  };
}

async function readSettings(connection: ConnectionInfo): Promise<Record<string, string>> {
  const client = await connect(connection);
  try {
    const out: Record<string, string> = {};
    for (const name of REPORTED_SETTINGS) {
      const { rows } = await client.query<{ v: string }>("SELECT current_setting($1) AS v", [name]);
      out[name] = rows[0].v;
    }
    return out;
  } finally {
    await client.end().catch(ignored("create-index: end the settings client"));
  }
}

const describe = (c: CreateIndexCondition) =>
  c.kind === "build"
    ? `CREATE INDEX, ${c.rows.toLocaleString("en-US")} rows, maintenance_work_mem ${c.maintenanceWorkMemMB} MB, max workers ${c.parallelWorkers}`
    : `${c.kind === "wal_anatomy" ? "WAL decoding: " : ""}${METHOD_LABELS[c.method]}, ${c.rows.toLocaleString("en-US")} rows, ` +
      `${c.codes !== undefined ? `${c.codes.toLocaleString("en-US")} ` : ""}${c.keyOrder} codes` +
      (c.sharedBuffersMB !== undefined ? `, shared_buffers ${c.sharedBuffersMB} MB` : "");

export async function runCreateIndexAfterLoad(
  p: CreateIndexAfterLoadParams,
  control: RunControl = {},
): Promise<CreateIndexAfterLoadRun> {
  const started = Date.now();
  return withSession<CreateIndexCondition, CreateIndexAfterLoadRun>(
    {
      notebook: NOTEBOOK,
      estimate: (done) => estimateRun(NOTEBOOK, eta, p, done),
      title: "02 CREATE INDEX after load",
      params: p,
      control,
      specs: [serverSpec(p)],
      target: p.target,
      cpus: p.cpus,
      memoryGiB: p.memoryGiB,
      prospect: planText(plan02(p)),
    },
    async (session) => {
      const { store, progress, servers, signal, metadata: base, writeMetadata } = session;
      const server = servers.byEngine.get("postgresql");
      if (!server) throw new Error("02 needs a PostgreSQL server, and none started");
      const metadata: CreateIndexRunMetadata = { ...base, effectiveSettings: await readSettings(server.connection) };
      writeMetadata({ effectiveSettings: metadata.effectiveSettings });
      const plan: PlannedTrial[] = planTrials(p);
      // The small-buffers pairs need another shared_buffers, which only a server start sets: they run
      // last, on a second server started after the first one stopped (one server's memory at a time).
      const onSmall = plan.filter((t) => t.condition.sharedBuffersMB !== undefined);
      const parts = [
        { trials: plan.filter((t) => t.condition.sharedBuffersMB === undefined), sharedBuffersMB: undefined },
        ...(onSmall.length ? [{ trials: onSmall, sharedBuffersMB: onSmall[0].condition.sharedBuffersMB }] : []),
      ];
      let before = 0;
      let current = server;
      for (const part of parts) {
        if (part.sharedBuffersMB !== undefined) {
          await session.stopServer(current);
          progress.update(before, plan.length, `starting the server with shared_buffers ${part.sharedBuffersMB} MB…`);
          current = await session.startServer(serverSpec(p, part.sharedBuffersMB));
          const small = await readSettings(current.connection);
          writeMetadata({ effectiveSettings: metadata.effectiveSettings, smallBuffersSettings: small });
        }
        const offset = before;
        await runPlan({
          plan: part.trials,
          connection: current.connection,
          store,
          randomSeed: p.randomSeed,
          settleMs: p.settleMs,
          continueOnError: control.continueOnError,
          signal,
          onTrial: (done, _total, last, next) => {
            const result = last?.status === "ok" ? `${last.seconds.toFixed(2)} s` : "failed";
            const lastText = last ? `last: ${describe(last.condition)} ${result} · ` : "";
            progress.update(
              offset + done,
              plan.length,
              `${lastText}${next ? `next: ${describe(next.condition)}` : "done"}`,
            );
          },
        });
        before += part.trials.length;
      }
      progress.finish(`${plan.length} trials`);
      return {
        runId: store.runId,
        directory: store.directory,
        params: p,
        trials: store.trials(),
        metadata,
        elapsedS: (Date.now() - started) / 1000,
      };
    },
  );
}

/**
 * Notebook 02 (`lab.createIndexAfterLoad.*`): seed 001's load-then-index (A) against
 * index-then-load (B), paired per repeat, with the sweeps and counters that explain the ratio.
 */
import { connect } from "../../engines/postgres/connect";
import { ignored } from "../../runtime/debug";
import type { ConnectionInfo, ServerSpec } from "../../targets/types";
import { defineExperiment, serverName } from "../define";
import { finiteOrNaN, referencesIn } from "../eta";
import { CLAIMS, withoutFlagged } from "./claims";
import { diskNeed } from "./disk";
import { checkParams, CREATE_INDEX_AFTER_LOAD_PROFILES, type CreateIndexAfterLoadParams } from "./params";
import { showRunFacts } from "./present";
import { checkpoints, ioWaitMs, summarise as summariseTrials, type CreateIndexSummary } from "./summarise";
import { METHOD_LABELS, planTrials, type CreateIndexCondition } from "./workload/plan";
import { runPlan, type CreateIndexTrial } from "./workload/run-trials";
import { REPORTED_SETTINGS } from "./workload/sql";

const SLUG = "02-create-index-after-load";

/**
 * The seed's server: PostgreSQL's defaults, with I/O and WAL I/O timing on (as its follow-up did).
 * `sharedBuffersMB` given: the second server, on which the small-buffers pairs (`cacheRows`) run.
 */
export function serverSpec(p: CreateIndexAfterLoadParams, sharedBuffersMB?: number): ServerSpec {
  const decoding = "the WAL-decoding trials (walAnatomyRows > 0; --set walAnatomyRows=0 skips them)";
  return {
    engine: "postgresql",
    name: serverName(SLUG, sharedBuffersMB === undefined ? "pg" : "pg-small-buffers"),
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
      disk: diskNeed(p),
      clients: 2,
      extensions: [
        { name: "pgstattuple", required: true, measures: "the finished index's shape (pgstatindex)" },
        ...(p.walAnatomyRows > 0 ? [{ name: "pg_walinspect", required: true, measures: decoding }] : []),
      ],
      walHold:
        p.walAnatomyRows > 0 ? { measures: "the WAL-decoding trials (--set walAnatomyRows=0 skips them)" } : undefined,
    },
  };
}

/** The server's settings as it reports them (SHOW), read before the first trial. */
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

export const experiment = defineExperiment({
  slug: SLUG,
  title: "CREATE INDEX after bulk load vs loading into an indexed table",
  profiles: CREATE_INDEX_AFTER_LOAD_PROFILES,
  check: checkParams,
  servers: (p) => [serverSpec(p)],
  plan: planTrials,
  work: async ({
    params: p,
    plan,
    session,
    control,
    startedAt,
  }): Promise<{ readonly effectiveSettings: Readonly<Record<string, string>>; readonly elapsedS: number }> => {
    const { store, progress, servers, signal, writeMetadata } = session;
    const server = servers.byEngine.get("postgresql");
    if (!server) throw new Error("02 needs a PostgreSQL server, and none started");
    const effectiveSettings = await readSettings(server.connection);
    writeMetadata({ effectiveSettings });
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
        writeMetadata({ effectiveSettings, smallBuffersSettings: await readSettings(current.connection) });
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
    return { effectiveSettings, elapsedS: (Date.now() - startedAt) / 1000 };
  },
  // The summary's headline is the run's own `rows` and settings.
  summarise: (trials: readonly CreateIndexTrial[], run: { readonly params: CreateIndexAfterLoadParams }) =>
    summariseTrials(trials, run.params),
  claims: CLAIMS,
  // Each claim recomputed without the flagged repeats (its `sensitivity`).
  without: (_run, summary) => withoutFlagged(summary),
  csvRows,
  disk: diskNeed,
  // Each kind of trial (a load by either method, a CREATE INDEX of the sweeps) grows at its own rate.
  eta: {
    unit: (t) => ({ size: t.condition.rows, kind: `${t.condition.kind} ${t.condition.method}` }),
    size: (c) => finiteOrNaN(c.rows),
    kind: (c) => (typeof c.kind === "string" && typeof c.method === "string" ? `${c.kind} ${c.method}` : undefined),
    references: referencesIn(__dirname),
  },
  // The fault matrix's cells: the fault at this notebook's most exposed point, where it is most likely met.
  faults: {
    overrides: [
      "rows=300000",
      "repeats=2",
      "rowSweep=[5000]",
      'keyOrders=["random"]',
      "memorySweepMB=[64]",
      "workerSweep=[0]",
      "walAnatomyRows=0",
    ],
    point: "create-index",
    cells: [
      { fault: "kill-9", target: "embedded", boundSeconds: 30 },
      { fault: "engine-stop", target: "ssh", boundSeconds: 60 },
    ],
  },
});

/** summary.csv: one row per method summary (B's with B/A of its pair), then one per CREATE INDEX build. */
function csvRows(s: CreateIndexSummary) {
  const methods = s.methods.map((m) => {
    const c = m.condition;
    const pair = s.pairs.find(
      (p) =>
        p.rows === c.rows &&
        p.keyOrder === c.keyOrder &&
        p.maintenanceWorkMemMB === c.maintenanceWorkMemMB &&
        p.parallelWorkers === c.parallelWorkers &&
        p.codes === c.codes &&
        p.sharedBuffersMB === c.sharedBuffersMB,
    );
    // B/A paired per repeat: median over repeats and its exact interval, on B's row.
    const b = c.method === "index_then_load" ? pair : undefined;
    return {
      kind: "load",
      method: c.method,
      rows: c.rows,
      key_order: c.keyOrder,
      maintenance_work_mem_mb: c.maintenanceWorkMemMB,
      max_parallel_maintenance_workers: c.parallelWorkers,
      codes: c.codes ?? null,
      shared_buffers_mb: c.sharedBuffersMB ?? null,
      trials: m.trials,
      failed: m.failed,
      median_s: m.medianSeconds,
      min_s: m.minSeconds,
      max_s: m.maxSeconds,
      load_ms: m.phaseMs.load ?? null,
      index_ms: m.phaseMs.index ?? null,
      checkpoint_ms: m.phaseMs.checkpoint ?? null,
      ratio_b_over_a: b?.timeRatio?.estimate ?? null,
      ratio_low: b?.timeRatio?.low ?? null,
      ratio_high: b?.timeRatio?.high ?? null,
      ratio_coverage: b?.timeRatio?.coverage ?? null,
      server_ratio_b_over_a: b?.serverTimeRatio?.estimate ?? null,
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

export const { params, run, summarise, claims, save, showClaims, registered } = experiment;
export type CreateIndexAfterLoadRun = Awaited<ReturnType<typeof run>>;
export {
  showHeadline,
  showRepeats,
  showSeedComparison,
  showCounters,
  showIoByBackend,
  showSizeSweep,
  showKeyOrder,
  showBuildSweep,
  showWalAnatomy,
  showIndexShapes,
} from "./present";

/** The base's run header and failed trials, then the server's settings and the host's load during the trials. */
export function showRun(r: CreateIndexAfterLoadRun): void {
  experiment.showRun(r);
  showRunFacts(r);
}

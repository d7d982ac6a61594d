/** Seed 001's load-then-index (A) against index-then-load (B), with the sweeps and counters that explain the ratio. */
import { median } from "simple-statistics";
import { withClient } from "../../engines/postgres/connect";
import { escapeHtml, noteHtml, show } from "../../display/output";
import { COLOR } from "../../display/plotly";
import { showTable } from "../../display/table";
import type { ConnectionInfo, ServerSpec } from "../../targets/types";
import { secondsColumns, timedTrialProgress } from "../condition-groups";
import { defineExperiment, serverName } from "../define";
import { finiteOrNaN, referencesIn } from "../eta";
import { CLAIMS } from "./claims";
import { checkParams, CREATE_INDEX_AFTER_LOAD_PROFILES, diskNeed, type CreateIndexAfterLoadParams } from "./params";
import { ioWaitMs, summarise as summariseTrials, withoutFlagged, type CreateIndexSummary } from "./summarise";
import { checkpoints } from "./workload/session";
import { METHOD_LABELS, planTrials, type CreateIndexCondition } from "./workload/plan";
import { runPlan, type CreateIndexTrial } from "./workload/run-trials";

const SLUG = "02-create-index-after-load";
const REPORTED_SETTINGS = (
  "server_version shared_buffers maintenance_work_mem max_parallel_maintenance_workers max_parallel_workers " +
  "max_worker_processes work_mem max_wal_size min_wal_size checkpoint_timeout checkpoint_completion_target wal_level " +
  "wal_buffers wal_compression full_page_writes synchronous_commit fsync data_checksums wal_log_hints track_io_timing " +
  "track_wal_io_timing autovacuum"
).split(" ");

/** PostgreSQL's defaults, I/O timing on as the seed's follow-up; `sharedBuffersMB`: the small-buffers server. */
export function serverSpec(p: CreateIndexAfterLoadParams, sharedBuffersMB?: number): ServerSpec {
  const decoding = p.walAnatomyRows > 0 ? "the WAL-decoding trials (--set walAnatomyRows=0 skips them)" : undefined;
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
        ...(decoding ? [{ name: "pg_walinspect", required: true, measures: decoding }] : []),
      ],
      walHold: decoding ? { measures: decoding } : undefined,
    },
  };
}

const readSettings = (connection: ConnectionInfo) =>
  withClient(connection, async (client) => {
    const sql = "SELECT n, current_setting(n) AS v FROM unnest($1::text[]) WITH ORDINALITY AS s(n, i) ORDER BY i";
    const { rows } = await client.query<{ n: string; v: string }>(sql, [REPORTED_SETTINGS]);
    return Object.fromEntries(rows.map((r) => [r.n, r.v]));
  });

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
  work: async ({ params: p, plan, session, control, startedAt }) => {
    const { store, progress, servers, signal, writeMetadata } = session;
    const server = servers.byEngine.get("postgresql");
    if (!server) throw new Error("02 needs a PostgreSQL server, and none started");
    const effectiveSettings: Readonly<Record<string, string>> = await readSettings(server.connection);
    writeMetadata({ effectiveSettings });
    // Only a server start sets shared_buffers: the small-buffers pairs run last, on a second server.
    const onSmall = plan.filter((t) => t.condition.sharedBuffersMB !== undefined);
    const parts = [plan.filter((t) => t.condition.sharedBuffersMB === undefined), ...(onSmall.length ? [onSmall] : [])];
    let [before, current] = [0, server];
    for (const trials of parts) {
      const small = trials[0]?.condition.sharedBuffersMB;
      if (small !== undefined) {
        await session.stopServer(current);
        progress.update(before, plan.length, `starting the server with shared_buffers ${small} MB…`);
        current = await session.startServer(serverSpec(p, small));
        writeMetadata({ effectiveSettings, smallBuffersSettings: await readSettings(current.connection) });
      }
      const offset = before;
      await runPlan({
        plan: trials,
        connection: current.connection,
        serverKind: current.kind,
        store,
        randomSeed: p.randomSeed,
        settleMs: p.settleMs,
        continueOnError: control.continueOnError,
        signal,
        onTrial: (done, _total, last, next) =>
          progress.update(offset + done, plan.length, timedTrialProgress(last, next && describe(next.condition))),
      });
      before += trials.length;
    }
    progress.finish(`${plan.length} trials`);
    return { effectiveSettings, elapsedS: (Date.now() - startedAt) / 1000 };
  },
  summarise: (trials: readonly CreateIndexTrial[], run: { readonly params: CreateIndexAfterLoadParams }) =>
    summariseTrials(trials, run.params),
  claims: CLAIMS,
  without: (_run, summary) => withoutFlagged(summary),
  csvRows,
  // After the base's header: the server's settings and the host's load during the trials (busy: noisy trials).
  showSetup: (r) => {
    showTable(
      Object.entries(r.effectiveSettings).map(([setting, value]) => ({ setting, value })),
      {
        caption:
          "Server settings as the server reports them (SHOW); maintenance_work_mem and max_parallel_maintenance_workers are SET per trial where a sweep varies them",
      },
    );
    const loads = r.trials.flatMap((t) => t.loadAverage ?? []);
    const cpus = r.metadata.host.cpus;
    const busy = loads.length > 0 && median(loads) > cpus;
    const loadText = loads.length
      ? ` Host 1-minute load average during the trials: median ${median(loads).toFixed(1)}, max ${Math.max(...loads).toFixed(1)} on ${cpus} CPUs` +
        (busy
          ? " — other work competed for the CPU, so single trials are noisy: read the medians, ranges and intervals, not one trial."
          : ".")
      : "";
    const text = `${r.trials.length} trials in ${Math.round(r.elapsedS)} s (server start included).${escapeHtml(loadText)}`;
    show().html(busy ? noteHtml(text, COLOR.orange, "#fff7ec") : `<div style="color:#555">${text}</div>`);
  },
  disk: diskNeed,
  // Each kind of trial (a load by either method, a CREATE INDEX of the sweeps) grows at its own rate.
  eta: {
    unit: (t) => ({ size: t.condition.rows, kind: `${t.condition.kind} ${t.condition.method}` }),
    size: (c) => finiteOrNaN(c.rows),
    kind: (c) => (typeof c.kind === "string" && typeof c.method === "string" ? `${c.kind} ${c.method}` : undefined),
    references: referencesIn(__dirname),
  },
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

/** One row per method (B's with B/A of its pair), then one per CREATE INDEX build. */
function csvRows(s: CreateIndexSummary) {
  const methods = s.methods.map((m) => {
    const c = m.condition;
    const pair = s.pairs.find((p) => p.b === m);
    const [ratio, counter] = [pair?.timeRatio, (k: keyof typeof m.totals) => m.totals[k] ?? null];
    return {
      kind: "load",
      method: c.method,
      rows: c.rows,
      key_order: c.keyOrder,
      maintenance_work_mem_mb: c.maintenanceWorkMemMB,
      max_parallel_maintenance_workers: c.parallelWorkers,
      codes: c.codes ?? null,
      shared_buffers_mb: c.sharedBuffersMB ?? null,
      ...secondsColumns(m),
      load_ms: m.phaseMs.load ?? null,
      index_ms: m.phaseMs.index ?? null,
      checkpoint_ms: m.phaseMs.checkpoint ?? null,
      ratio_b_over_a: ratio?.estimate ?? null,
      ratio_low: ratio?.low ?? null,
      ratio_high: ratio?.high ?? null,
      ratio_coverage: ratio?.coverage ?? null,
      server_ratio_b_over_a: pair?.serverTimeRatio?.estimate ?? null,
      backend_cpu_s: m.backendCpuS ?? null,
      wal_records: counter("wal.records"),
      wal_fpi: counter("wal.fpi"),
      wal_bytes: counter("wal.bytes"),
      blks_read: counter("db.blks_read"),
      blks_hit: counter("db.blks_hit"),
      io_wait_ms: ioWaitMs(m.totals),
      temp_bytes: counter("db.temp_bytes"),
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

export const { params, run, open, summarise, claims, save, showRun, showClaims, registered } = experiment;
export * from "./present";

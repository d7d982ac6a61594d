/** Notebook 04: seed 003's pgbench load with a REINDEX (plain or CONCURRENTLY) of its primary keys mid-run. */
import { judgeOne } from "../../stats/claim-engine";
import { lookPlan, nextRound } from "../../stats/adaptive";
import type { Verdict } from "../../stats/claims";
import { bytesText, type DiskNeed } from "../../targets/disk-need";
import { lastTrialText } from "../../workloads/pgbench-trial";
import { runAdaptivePlan, type RoundsSoFar } from "../adaptive-rounds";
import { defineExperiment, serverName } from "../define";
import { pgbenchOnPostgres } from "../servers";
import { CLAIMS } from "./claims";
import { CALIBRATION_FILE, estimate, storedCalibration } from "./eta";
import { checkParams, REINDEX_UNDER_LOAD_PROFILES, type ReindexUnderLoadParams } from "./params";
import { runRows, showSetup } from "./present";
import { summarise as summariseTrials, withoutFlagged, type ReindexSummary } from "./summarise";
import {
  calibrateRunLength,
  createTemplate,
  dropDatabases,
  planRuns,
  runPlan,
  WORKLOAD_DATABASES,
} from "./workload/run-trials";
import type { PlannedRun, ReindexTrial, RunLengthCalibration, TemplateInfo } from "./workload/run-trials";

const SLUG = "04-reindex-under-load";
const [MIB, GIB] = [2 ** 20, 2 ** 30];

/** The peak: template, the run's copy, CONCURRENTLY's new key beside the old one, WAL up to max_wal_size. */
const DISK = { scale: 16 * MIB, key: 2.2 * MIB, wal: 1.1 * GIB, base: 200 * MIB };
const diskNeed = (p: ReindexUnderLoadParams): DiskNeed => ({
  bytes: p.scale * (2 * DISK.scale + DISK.key) + DISK.wal + DISK.base,
  what: `scale ${p.scale} × (2 × ${bytesText(DISK.scale)} + a rebuilt key ${bytesText(DISK.key)}) + max_wal_size ${bytesText(DISK.wal)} + ${bytesText(DISK.base)} of server`,
});

/** The mechanism check: the seed's figure (1) is decided only at the seed's protocol, so more sets cannot decide it. */
const ADAPTIVE_CLAIM = "1m";

/** The adaptive design's step (stats/adaptive `nextRound`), in sets: stop and why, or a set more while (1m) is open. */
export function adaptiveStep(verdict: Verdict, r: RoundsSoFar): { readonly stop?: string } {
  const claim = `claim (${ADAPTIVE_CLAIM})`;
  const undecided = verdict === "inconclusive" ? [claim] : [];
  const words = { one: "set", many: "sets", cap: "maxSets" };
  const step = nextRound({ ...r, undecided, decided: `${claim} ${verdict}`, words });
  return step.more ? {} : { stop: step.reason };
}

/** With stallShare > 0 the runs lasted the calibration's `durationSeconds`, not the params'. */
type RunSetup = { readonly template: TemplateInfo; readonly calibration?: RunLengthCalibration };

function summaryOf(
  trials: readonly ReindexTrial[],
  p: ReindexUnderLoadParams,
  r: Partial<RunSetup>,
  hostCpus?: number,
) {
  const durationSeconds = r.calibration?.durationSeconds ?? p.durationSeconds;
  const s = summariseTrials(trials, { durationSeconds, clients: p.clients, hostCpus, scale: p.scale });
  return { ...s, looks: lookPlan(p.sets, p.maxSets) };
}

export const experiment = defineExperiment<ReindexUnderLoadParams, ReindexTrial, ReindexSummary, RunSetup>({
  slug: SLUG,
  title: "REINDEX and REINDEX CONCURRENTLY under live pgbench load",
  profiles: REINDEX_UNDER_LOAD_PROFILES,
  check: checkParams,
  servers: (p) => [
    {
      engine: "postgresql",
      name: serverName(SLUG, "pg"),
      // shared_buffers pinned to its default: every target starts from the stock server's cache size.
      settings: {
        shared_buffers: `${p.sharedBuffersMB}MB`,
        track_io_timing: "on",
        shared_preload_libraries: "pg_stat_statements",
      },
      uses: {
        notebook: "04 reindex under load",
        disk: diskNeed(p),
        // The REINDEX session, the activity sampler and the read probe.
        clients: p.clients + 2 + (p.readProbeMs > 0 ? 1 : 0),
        databases: WORKLOAD_DATABASES,
        extensions: [
          {
            name: "pg_stat_statements",
            preload: true,
            measures: "the accounts UPDATE's execution time inside the server",
          },
        ],
      },
    },
  ],
  work: async ({ params: p, session, startedAt, estimateAs }) => {
    const { store, progress, servers, signal, notes, metadata, writeMetadata } = session;
    let plan: readonly PlannedRun[] = planRuns(p.sets, p.modes);
    const { server, runner } = await pgbenchOnPostgres(servers, "04", notes);
    progress.update(0, plan.length, `pgbench -i -s ${p.scale} into a template database…`);
    const template = await createTemplate(server, p.scale, p.initSteps, runner, signal);
    const gib = (template.databaseBytes / GIB).toFixed(2);
    notes.push(
      `template: pgbench -i -s ${p.scale} -I ${p.initSteps} in ${template.init.seconds.toFixed(1)} s, ${gib} GiB; each run starts from a FILE_COPY clone of it`,
    );
    // Through the session's writeMetadata, so that its closing write (quietness) keeps the template.
    writeMetadata({ template });
    // So that the stall is the asked share of each run.
    let calibration = p.stallShare > 0 ? storedCalibration(store.directory) : undefined;
    if (p.stallShare > 0 && !calibration) {
      progress.update(0, plan.length, "calibration: timing a plain REINDEX of the three keys on a fresh clone…");
      calibration = await calibrateRunLength(server, p, { onNote: (n) => notes.push(n) });
      store.writeSummary(CALIBRATION_FILE, calibration);
    }
    if (calibration) {
      const c = calibration;
      notes.push(
        `run length from the calibration rebuild: the three keys took ${c.seconds.toFixed(2)} s (accounts ${c.accountsSeconds?.toFixed(2) ?? "n/a"} s) on a fresh clone, so each run lasts ${c.durationSeconds} s (${(p.stallShare * 100).toFixed(0)} % stalled, the seed's share), the REINDEX starting at ${c.reindexStartSeconds} s`,
      );
      writeMetadata({ template, calibration });
    }
    const settings = calibration
      ? { ...p, durationSeconds: calibration.durationSeconds, reindexStartSeconds: calibration.reindexStartSeconds }
      : p;
    // A part is one set: its place in the whole plan counts, not its own done ÷ total.
    const at = (key?: string) => plan.findIndex((x) => x.key === key);
    const adaptive = await runAdaptivePlan({
      planned: p.sets,
      max: p.maxSets,
      budgetSeconds: p.budgetSeconds,
      startedAt,
      many: "sets",
      notes,
      part: (set) => planRuns(set, p.modes).filter((r) => r.condition.set === set),
      onAdded: (set) => estimateAs({ ...p, sets: set }),
      runPart: (part, whole) => {
        plan = whole;
        return runPlan({
          server,
          runner,
          plan: part,
          settings,
          store,
          signal,
          onNote: (n) => notes.push(n),
          onRun: (next, last) => {
            const lastText = lastTrialText(last);
            const nextText = next ? `cloning + restart for ${next.key}…` : "done";
            progress.update(last ? at(last.key) + 1 : Math.max(0, at(next?.key)), plan.length, lastText + nextText);
          },
          onProgress: (planned, point) => {
            const text = `${point.second.toFixed(0)} / ${settings.durationSeconds} s · ${point.tps.toFixed(0)} tps`;
            progress.update(Math.max(0, at(planned.key)), plan.length, `${planned.key}: ${text}`);
          },
        });
      },
      stopAfter: (r) => {
        const s = summaryOf(store.trials(), p, { calibration }, metadata.host.cpus);
        return adaptiveStep(judgeOne(CLAIMS, ADAPTIVE_CLAIM, s, withoutFlagged(s)).verdict, r).stop;
      },
    });
    plan = adaptive.plan;
    const { planned, rounds: sets, stoppedBy, cut } = adaptive;
    const design = { plannedSets: p.sets, ...(cut ? { plannedSetsRun: planned } : {}), sets, maxSets: p.maxSets };
    writeMetadata({ adaptive: { ...design, budgetSeconds: p.budgetSeconds, stoppedBy } });
    await dropDatabases(server);
    progress.finish(`${plan.length} runs`);
    writeMetadata({ notes, template });
    return { template, ...(calibration ? { calibration } : {}) };
  },
  summarise: (trials, run) => summaryOf(trials, run.params, run, run.metadata.host.cpus),
  claims: CLAIMS,
  without: (_run, summary) => withoutFlagged(summary),
  csvRows: runRows,
  toJson: (s) => ({ ...s, runs: s.runs.map(({ series: _s, perSample: _p, ...rest }) => rest) }),
  showSetup,
  rawTrials: "runs (pgbench output, per-second series, activity samples, counters)",
  disk: diskNeed,
  eta: estimate,
  faults: {
    overrides: ["durationSeconds=6", "sets=2", 'modes=["baseline","reindex"]'],
    point: "pgbench",
    cells: [
      // By name: a dropped link mid-pgbench is 03-linkdrop-ssh's case too, and this cell is one of the longest.
      { fault: "link-drop", target: "ssh", boundSeconds: 75, byName: true },
      { fault: "link-drop", target: "external", boundSeconds: 75, byName: true },
      { fault: "kill-9", target: "embedded", boundSeconds: 30 },
    ],
  },
});

export const { params, run, open, summarise, claims, save, showRun, showClaims, showStopped, registered } = experiment;
export type { ReindexSummary } from "./summarise";
export { showRunTable, showCharts, showSeedComparison, showWaits, showStatements } from "./present";

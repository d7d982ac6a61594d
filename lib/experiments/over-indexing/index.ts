/** Notebook 03: seed 002's inventory transaction under pgbench as indexes pile up. */
import { defineExperiment, serverName } from "../define";
import { memoryAndWalSettings } from "../../engines/postgres/server-settings";
import { serverFreeBytes } from "../../targets/disk-need";
import type { ServerSpec } from "../../targets/types";
import { lastTrialText } from "../../workloads/pgbench-trial";
import { withActivity } from "../../workloads/server-activity";
import { lookPlan, nextRound, type RoundState } from "../../stats/adaptive";
import { judge } from "../../stats/claim-engine";
import type { ClaimCheck } from "../../stats/claims";
import { count } from "../../stats/format";
import { repeatedRounds, runAdaptivePlan } from "../adaptive-rounds";
import { recordedServerCpus } from "../server-cpus";
import { pgbenchOnPostgres } from "../servers";
import { CLAIMS } from "./claims";
import { diskNeed, planTemplates, roomForSecondClone } from "./disk";
import { estimate, estimateFor } from "./eta";
import { checkParams, OVER_INDEXING_PROFILES, type OverIndexingParams } from "./params";
import { levelRows, showLoadedData, type LoadedData } from "./present";
import { summarise as summariseRounds, withoutFlagged, type OverIndexingSummary } from "./summarise";
import { datasetShape, transactionScript } from "./workload/dataset";
import {
  buildTemplateIndexes,
  createTemplate,
  dropDatabases,
  walAfterLoad,
  WORKLOAD_DATABASES,
} from "./workload/databases";
import {
  planRounds,
  runRounds,
  type OverIndexingTrial,
  type PlannedRound,
  type RoundsAhead,
} from "./workload/run-trials";

const SLUG = "03-over-indexing";

/** The seed's postgresql.conf, scaled to this machine where it names sizes. */
export function serverSpec(p: OverIndexingParams): ServerSpec {
  return {
    engine: "postgresql",
    name: serverName(SLUG, "pg"),
    settings: {
      ...memoryAndWalSettings(p),
      bgwriter_lru_maxpages: 500,
      track_io_timing: "on",
      shared_preload_libraries: "pg_stat_statements",
      "pg_stat_statements.track": "all",
      "pg_stat_statements.max": 10000,
      max_connections: Math.max(100, p.clients + 20),
    },
    uses: {
      notebook: "03 over-indexing",
      disk: diskNeed(p),
      clients: p.clients,
      databases: WORKLOAD_DATABASES,
      extensions: [
        {
          name: "pg_stat_statements",
          preload: true,
          required: true,
          measures: "per-statement server time and blocks of each round",
        },
        { name: "pg_walinspect", measures: "B-tree leaf inserts per transaction, counted in the WAL" },
      ],
    },
  };
}

/** The adaptive design's step (stats/adaptive `nextRound`): stop and why, or a round more while (1) or (2) is open. */
export function adaptiveStep(
  checks: readonly Pick<ClaimCheck, "id" | "verdict">[],
  r: Omit<RoundState, "undecided" | "decided" | "words">,
): { readonly stop?: string } {
  const claims = checks.filter((c) => c.id === "1" || c.id === "2");
  const step = nextRound({
    ...r,
    undecided: claims.filter((c) => c.verdict === "inconclusive").map((c) => `claim (${c.id})`),
    decided: claims.map((c) => `(${c.id}) ${c.verdict}`).join(", "),
    words: { one: "round", many: "rounds", cap: "maxRepeats" },
  });
  return step.more ? {} : { stop: step.reason };
}

const summariseFor = (trials: readonly OverIndexingTrial[], p: OverIndexingParams): OverIndexingSummary => ({
  ...summariseRounds(trials, p.durationSeconds, p.clients, p.dataScale),
  looks: lookPlan(p.repeats, p.maxRepeats),
});

export const experiment = defineExperiment<OverIndexingParams, OverIndexingTrial, OverIndexingSummary, LoadedData>({
  slug: SLUG,
  title: "Over-indexing: TPS of a write transaction as indexes pile up",
  profiles: OVER_INDEXING_PROFILES,
  check: checkParams,
  servers: (p) => [serverSpec(p)],
  work: async ({ params: p, session, startedAt, estimateAs }) => {
    const { store, progress, servers, signal, notes, writeMetadata } = session;
    let plan: readonly PlannedRound[] = planRounds(p.indexLevels, p.repeats);
    const { server, runner } = await pgbenchOnPostgres(servers, "03", notes);
    const shape = datasetShape(p.dataScale);
    const setup = (text: string) => progress.update(0, plan.length, text);
    // At full scale a step runs for many minutes: the line shows what the server is doing meanwhile.
    let step = "";
    const onStep = (s: string) => {
      step = s;
      setup(`loading the template database: ${s}…`);
    };
    const template = await withActivity(
      server,
      (line) => setup(`loading the template database: ${step} · ${line}`),
      () => createTemplate(server, shape, p.randomSeed, onStep, signal),
    );
    const script = transactionScript(shape.warehouses, template.samplePercent);
    const loadTotal = Object.values(template.loadSeconds).reduce((a, b) => a + b, 0);
    const { rows, samplePercent } = template;
    notes.push(
      `data: ${count(rows.products)} products, ${count(rows.warehouses)} warehouses, ${count(rows.stock)} stock rows, ${count(rows.stock_movements)} movements (${(template.databaseBytes / 2 ** 30).toFixed(2)} GiB, loaded in ${loadTotal.toFixed(0)} s); every round starts from a FILE_COPY clone of it`,
      `TABLESAMPLE SYSTEM (${Number(samplePercent.toPrecision(3))}) over ${count(template.stockPages)} stock pages` +
        (samplePercent > 0.05
          ? " (the seed's 0.05 % raised so that a sample is never empty on the smaller table)"
          : " (the seed's)"),
      `levels rotate between rounds: round r starts r − 1 levels further on (${plan
        .filter((x) => x.repeat <= 2)
        .map((x) => x.key)
        .join(", ")}${p.repeats > 2 ? ", …" : ""})`,
    );
    // Read after the load and its checkpoint: what the template's indexes may take is what is left.
    const walNow = await walAfterLoad(server);
    const templates = planTemplates(p, template.databaseBytes, await serverFreeBytes(server), walNow ?? 0);
    // From here the data directory's free space is the run's own doing: the ETA keeps the level made.
    estimateAs(p, { model: estimateFor(templates.level, true) });
    const indexSeconds = await withActivity(
      server,
      (line) => setup(`building ${templates.level} indexes into the template · ${line}`),
      () => buildTemplateIndexes(server, templates.level, p.maintenanceWorkMemMB, signal),
    );
    estimateAs(p, { setupDone: true });
    notes.push(templates.text + (indexSeconds > 0 ? ` (built in ${indexSeconds.toFixed(0)} s)` : ""));
    const cloneBeside = roomForSecondClone(p, templates, template.databaseBytes);
    notes.push(
      cloneBeside
        ? "a round's clone is made while the round before reads its counters and counts its WAL (room for two clones)"
        : "each round clones after the round before has read its counters (no room known for two clones)",
    );
    if (!template.walInspect)
      notes.push(
        `no pg_walinspect here (${template.walInspectError}): B-tree inserts per transaction are not measured`,
      );
    // Through writeMetadata, so that the session's closing write keeps the template.
    const facts = { template, script, templates: { ...templates, indexSeconds } };
    writeMetadata(facts);
    // Added rounds join `plan` when they run: a trial's place in the run is found by its key.
    const position = (t: { readonly key: string }) => plan.findIndex((r) => r.key === t.key);
    const ahead: RoundsAhead = {};
    const adaptive = await runAdaptivePlan({
      ...repeatedRounds(p, estimateAs),
      startedAt,
      signal,
      notes,
      part: (round) => planRounds(p.indexLevels, round).filter((r) => r.repeat === round),
      runPart: (part, whole) => {
        plan = whole;
        return runRounds({
          server,
          runner,
          plan: part,
          next: plan[position(part[part.length - 1]) + 1],
          ahead,
          settings: { ...p, script, walInspect: template.walInspect, templateLevel: templates.level, cloneBeside },
          store,
          signal,
          onNote: (n) => {
            if (!notes.includes(n)) notes.push(n);
          },
          onRound: (next, last) => {
            const lastText = lastTrialText(last);
            progress.update(last ? position(last) + 1 : 0, plan.length, `${lastText}${next ? next.key : "done"}`);
          },
          onStatus: (t, text) => progress.update(position(t), plan.length, text),
        });
      },
      // The first round of each level also built its indexes: later rounds are cheaper, so the pace errs long.
      stopAfter: (r) => adaptiveStep(judge(CLAIMS, summariseFor(store.trials(), p)), r).stop,
    });
    plan = adaptive.plan;
    const { planned, rounds, stoppedBy, cut } = adaptive;
    const design = { plannedRounds: p.repeats, ...(cut ? { plannedRoundsRun: planned } : {}), rounds };
    writeMetadata({
      ...facts,
      adaptive: { ...design, maxRounds: p.maxRepeats, budgetSeconds: p.budgetSeconds, stoppedBy },
    });
    await dropDatabases(server);
    progress.finish(`${plan.length} rounds`);
    return { template, script };
  },
  // The server the rounds ran on goes into the summary: claims (2) and (4) are placed by it.
  summarise: (trials: readonly OverIndexingTrial[], run) => ({
    ...summariseFor(trials, run.params),
    server: {
      cpus: recordedServerCpus(run.metadata),
      dataBytes: run.template.databaseBytes,
      sharedBuffersMB: run.params.sharedBuffersMB,
    },
  }),
  claims: CLAIMS,
  without: (_run, summary) => withoutFlagged(summary),
  csvRows: levelRows,
  toJson: (s) => ({ ...s, rounds: s.rounds.map(({ series: _s, ...rest }) => rest) }),
  showSetup: showLoadedData,
  rawTrials: "rounds (pgbench output, per-second series, counters, sizes, pg_stat_statements)",
  disk: diskNeed,
  eta: estimate,
  faults: {
    overrides: ["indexLevels=[7,14]", "durationSeconds=4"],
    point: "pgbench",
    cells: [
      { fault: "sigstop", target: "embedded", boundSeconds: 40, env: { DBLAB_STALL_SECONDS: "5" } },
      { fault: "link-drop", target: "ssh", boundSeconds: 75 },
      { fault: "link-drop", target: "external", boundSeconds: 75 },
      { fault: "kernel-kill", target: "external", boundSeconds: 30, alongside: true },
    ],
  },
});

export const { params, run, open, summarise, claims, save, showRun, showClaims, showStopped, registered } = experiment;
export type { OverIndexingSummary, RoundSummary, LevelSummary } from "./summarise";
export { showLevelTable, showCharts, showSeedComparison, showExplanation, showStatements } from "./present";

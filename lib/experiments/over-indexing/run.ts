/**
 * Notebook 03's experiment: start the server with the seed's settings (scaled), load the inventory
 * data once, run the rounds (a level each), record everything, stop the server.
 */
import { diskNeed03, planTemplates } from "./disk";
import { serverFreeBytes } from "../../targets/disk-need";
import { withActivity } from "../../workloads/server-activity";
import type { OverIndexingParams } from "./params";
import type { RunMetadata } from "../../results/metadata";
import type { ServerSpec } from "../../targets/types";
import { memoryAndWalSettings } from "../../engines/postgres/server-settings";
import { pgbenchOnPostgres } from "../servers";
import { withSession, type RunControl } from "../session";
import { estimateRun } from "../eta";
import { estimate as eta, estimateFor } from "./eta";
import { planText } from "../../stats/claims";
import { plan03 } from "./claims";
import { datasetShape, transactionScript } from "./workload/dataset";
import {
  buildTemplateIndexes,
  createTemplate,
  dropDatabases,
  walAfterLoad,
  WORKLOAD_DATABASES,
  type TemplateInfo,
} from "./workload/databases";
import {
  planRounds,
  runRounds,
  type OverIndexingCondition,
  type OverIndexingTrial,
  type PlannedRound,
} from "./workload/run-trials";
import { MIN_COVERAGE, repeatsForCoverage, type ClaimCheck } from "../../stats/claims";
import { lookPlan, nextRound } from "../../stats/adaptive";
import { headlineClaims } from "./claims";
import { summarise } from "./summarise";
import { runAdaptiveRounds } from "../adaptive-rounds";

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
      disk: diskNeed03(p),
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

export type { RunControl } from "../session";

export interface AdaptiveState {
  /** The headline claims after the rounds so far: (1) monotone and (2) the 39/7 ratio. */
  readonly claims: readonly Pick<ClaimCheck, "id" | "verdict">[];
  readonly rounds: number;
  readonly plannedRounds: number;
  readonly maxRounds: number;
  /** Rounds an interval needs to cover the median with the least coverage that decides a claim. */
  readonly needed: number;
  readonly elapsedS: number;
  /** Seconds one more round (every level once) took so far, on average. */
  readonly perRoundS: number;
  readonly budgetS: number;
}

/**
 * One step of the adaptive design: stop (and why) or run one more round of every level. More rounds
 * only help an inconclusive claim, and only if the budget can reach the rounds a verdict needs at
 * the pace so far (one more where the interval straddles a margin with enough rounds already).
 * The step itself is `nextRound` (lib/stats/adaptive.ts), shared with 01 and 04.
 */
export function adaptiveStep(a: AdaptiveState): { readonly stop?: string } {
  const step = nextRound({
    done: a.rounds,
    planned: a.plannedRounds,
    maxRepeats: a.maxRounds,
    elapsedSeconds: a.elapsedS,
    budgetSeconds: a.budgetS,
    secondsPerRound: a.perRoundS,
    needed: a.needed,
    undecided: a.claims.filter((c) => c.verdict === "inconclusive").map((c) => `claim (${c.id})`),
    decided: a.claims.map((c) => `(${c.id}) ${c.verdict}`).join(", "),
    words: { one: "round", many: "rounds", cap: "maxRepeats" },
  });
  return step.more ? {} : { stop: step.reason };
}

export async function run(p: OverIndexingParams, control: RunControl = {}): Promise<OverIndexingRun> {
  const started = Date.now();
  let plan: PlannedRound[] = planRounds(p.indexLevels, p.repeats);
  // The run's one-off setup: the load, then the template's indexes; after them, the time left is the
  // rounds', those planned and those the design added.
  let phase: "load" | "template" | "rounds" = "load";
  let roundsSoFar = p.repeats;
  // The level the run gave its template: the estimate's plan from then on.
  let templateLevel: number | undefined;
  return withSession<OverIndexingCondition, OverIndexingRun>(
    {
      notebook: NOTEBOOK,
      estimate: (done) =>
        estimateRun(
          NOTEBOOK,
          templateLevel === undefined ? eta : estimateFor(templateLevel, phase !== "load"),
          { ...p, repeats: roundsSoFar },
          done,
          undefined,
          undefined,
          phase === "rounds",
        ),
      title: "03 over-indexing",
      params: p,
      control,
      specs: [serverSpec(p)],
      target: p.target,
      cpus: p.cpus,
      memoryGiB: p.memoryGiB,
      prospect: planText(plan03(p)),
    },
    async ({ store, progress, servers, signal, notes, metadata, writeMetadata }) => {
      const { server, runner } = await pgbenchOnPostgres(servers, "03", notes);
      const shape = datasetShape(p.dataScale);
      // At full scale a step runs for many minutes: the line shows what the server is doing meanwhile.
      let step = "";
      const template = await withActivity(
        server,
        (line) => progress.update(0, plan.length, `loading the template database: ${step} · ${line}`),
        () =>
          createTemplate(
            server,
            shape,
            p.randomSeed,
            (s) => {
              step = s;
              progress.update(0, plan.length, `loading the template database: ${s}…`);
            },
            signal,
          ),
      );
      phase = "template";
      const script = transactionScript(shape.warehouses, template.samplePercent);
      const loadTotal = Object.values(template.loadSeconds).reduce((a, b) => a + b, 0);
      notes.push(
        `data: ${template.rows.products.toLocaleString("en-US")} products, ${template.rows.warehouses.toLocaleString("en-US")} warehouses, ` +
          `${template.rows.stock.toLocaleString("en-US")} stock rows, ${template.rows.stock_movements.toLocaleString("en-US")} movements ` +
          `(${(template.databaseBytes / GIB).toFixed(2)} GiB, loaded in ${loadTotal.toFixed(0)} s); every round starts from a FILE_COPY clone of it`,
        `TABLESAMPLE SYSTEM (${Number(template.samplePercent.toPrecision(3))}) over ${template.stockPages.toLocaleString("en-US")} stock pages` +
          (template.samplePercent > 0.05
            ? " (the seed's 0.05 % raised so that a sample is never empty on the smaller table)"
            : " (the seed's)"),
        `levels rotate between rounds: round r starts r − 1 levels further on (${plan
          .filter((x) => x.repeat <= 2)
          .map((x) => x.key)
          .join(", ")}${p.repeats > 2 ? ", …" : ""})`,
      );
      // Read after the load and its checkpoint: the loaded data and the WAL the server keeps are on
      // disk, what the template's indexes may take is what is left.
      const walNow = await walAfterLoad(server);
      const templates = planTemplates(p, template.databaseBytes, await serverFreeBytes(server), walNow ?? 0);
      templateLevel = templates.level;
      const templateIndexSeconds = await withActivity(
        server,
        (line) => progress.update(0, plan.length, `building ${templates.level} indexes into the template · ${line}`),
        () => buildTemplateIndexes(server, templates.level, p.maintenanceWorkMemMB, signal),
      );
      phase = "rounds";
      notes.push(templates.text + (templateIndexSeconds > 0 ? ` (built in ${templateIndexSeconds.toFixed(0)} s)` : ""));
      if (!template.walInspect)
        notes.push(
          `no pg_walinspect here (${template.walInspectError}): B-tree inserts per transaction are not measured`,
        );
      // Through the session's writeMetadata, so that its closing write (quietness) keeps the template.
      const templatesRecord = { ...templates, indexSeconds: templateIndexSeconds };
      writeMetadata({ template, script, templates: templatesRecord });
      // A round's trials are planned again when it runs (planRounds makes new objects), and added rounds
      // join `plan` then: a trial's place in the run is found by its key, not by identity.
      const position = (t: { readonly key: string }) => plan.findIndex((r) => r.key === t.key);
      const runPart = (part: readonly PlannedRound[]) =>
        runRounds({
          server,
          runner,
          plan: part,
          settings: { ...p, script, walInspect: template.walInspect, templateLevel: templates.level },
          store,
          signal,
          onNote: (n) => {
            if (!notes.includes(n)) notes.push(n);
          },
          onRound: (_done, _total, next, last) => {
            const lastText = last ? `last: ${last.key} ${last.pgbench?.summary.tps.toFixed(0)} tps · ` : "";
            progress.update(last ? position(last) + 1 : 0, plan.length, `${lastText}${next ? next.key : "done"}`);
          },
          onPhase: (planned, phase) => progress.update(position(planned), plan.length, `${planned.key}: ${phase}…`),
          onProgress: (planned, point) =>
            progress.update(
              position(planned),
              plan.length,
              `${planned.key}: ${point.second.toFixed(0)} / ${p.durationSeconds} s · ${point.tps.toFixed(0)} tps`,
            ),
        });
      // The planned rounds, then one more round of every level at a time while claim (1) or (2) is
      // inconclusive, as long as the budget can still reach the rounds a verdict needs at the pace so far.
      const { planned, rounds, stoppedBy, cut } = await runAdaptiveRounds({
        planned: p.repeats,
        needed: repeatsForCoverage(MIN_COVERAGE),
        budgetSeconds: p.budgetSeconds,
        startedAt: started,
        many: "rounds",
        signal,
        runRound: async (round) => {
          const part = planRounds(p.indexLevels, round).filter((r) => r.repeat === round);
          if (round > p.repeats) plan = [...plan, ...part];
          roundsSoFar = Math.max(roundsSoFar, round);
          await runPart(part);
        },
        stopAfter: (done, pace) => {
          const s = {
            ...summarise(store.trials(), p.durationSeconds, p.clients, p.dataScale),
            looks: lookPlan(p.repeats, p.maxRepeats),
          };
          return adaptiveStep({
            claims: headlineClaims(s),
            rounds: done,
            plannedRounds: p.repeats,
            maxRounds: p.maxRepeats,
            needed: repeatsForCoverage(MIN_COVERAGE),
            elapsedS: pace.elapsedSeconds,
            // The first round of each level also built its indexes: later rounds are cheaper, so this errs long.
            perRoundS: pace.secondsPerRound,
            budgetS: p.budgetSeconds,
          }).stop;
        },
      });
      plan = plan.filter((r) => r.repeat <= rounds);
      if (cut) notes.push(cut);
      notes.push(
        `adaptive design: ${stoppedBy} (planned ${p.repeats} rounds, at most ${p.maxRepeats}, budget ${p.budgetSeconds} s)`,
      );
      writeMetadata({
        template,
        script,
        templates: templatesRecord,
        adaptive: {
          plannedRounds: p.repeats,
          ...(cut ? { plannedRoundsRun: planned } : {}),
          rounds,
          maxRounds: p.maxRepeats,
          budgetSeconds: p.budgetSeconds,
          stoppedBy,
        },
      });
      await dropDatabases(server);
      progress.finish(`${plan.length} rounds`);
      writeMetadata({ notes, template, script, templates: templatesRecord });
      return {
        runId: store.runId,
        directory: store.directory,
        params: p,
        trials: store.trials(),
        metadata: { ...metadata, notes },
        template,
        script,
      };
    },
  );
}

/**
 * Notebook 04's experiment: start the server, build the pgbench template once, run the sets
 * (baseline, REINDEX, REINDEX CONCURRENTLY), record everything, stop the server.
 */
import { diskNeed04 } from "./disk";
import type { ReindexUnderLoadParams } from "./params";
import type { RunMetadata } from "../../results/metadata";
import type { ServerSpec } from "../../targets/types";
import { pgbenchOnPostgres } from "../servers";
import { withSession, type RunControl } from "../session";
import { estimateRun } from "../eta";
import { estimate as eta } from "./eta";
import { createTemplate, dropDatabases, WORKLOAD_DATABASES, type TemplateInfo } from "./workload/databases";
import { MIN_COVERAGE, repeatsForCoverage, type Verdict } from "../../stats/claims";
import { lookPlan, nextRound } from "../../stats/adaptive";
import { runLengthFor } from "./workload/stall";
import {
  calibrateRebuild,
  planRuns,
  runPlan,
  type PlannedRun,
  type ReindexCondition,
  type ReindexTrial,
} from "./workload/run-trials";
import { checkClaim, plan04 } from "./claims";
import { planText } from "../../stats/claims";
import { summarise } from "./summarise";
import { runAdaptiveRounds } from "../adaptive-rounds";
import { CALIBRATION_FILE, storedCalibration, type RunLengthCalibration } from "./run-length";

export type { RunLengthCalibration } from "./run-length";

export const NOTEBOOK = "04-reindex-under-load";
const GIB = 2 ** 30;

export interface ReindexUnderLoadRun {
  readonly runId: string;
  readonly directory: string;
  readonly params: ReindexUnderLoadParams;
  readonly trials: readonly ReindexTrial[];
  readonly metadata: RunMetadata;
  readonly template: TemplateInfo;
  /**
   * The calibration rebuild that set the run length (stallShare > 0): the runs lasted its
   * `durationSeconds`, not the params' planned one (`runLengthOf`).
   */
  readonly calibration?: RunLengthCalibration;
}

/** How long each run lasted: the calibration's choice, else the params'. */
export function runLengthOf(run: Pick<ReindexUnderLoadRun, "params" | "calibration">): number {
  return run.calibration?.durationSeconds ?? run.params.durationSeconds;
}

export function serverSpec(p: ReindexUnderLoadParams): ServerSpec {
  return {
    engine: "postgresql",
    name: "04-pg",
    // The seed ran a stock server; only shared_buffers is pinned (to its default) so that every
    // target starts from the same cache size. track_io_timing adds I/O times to the counters.
    // pg_stat_statements gives the accounts UPDATE's time inside the server, beside pgbench's -r figure.
    settings: {
      shared_buffers: `${p.sharedBuffersMB}MB`,
      track_io_timing: "on",
      shared_preload_libraries: "pg_stat_statements",
    },
    uses: {
      // pgbench's clients, the REINDEX session and the lock sampler.
      notebook: "04 reindex under load",
      disk: diskNeed04(p),
      clients: p.clients + 2,
      databases: WORKLOAD_DATABASES,
      extensions: [
        {
          name: "pg_stat_statements",
          preload: true,
          measures: "the accounts UPDATE's execution time inside the server",
        },
      ],
    },
  };
}

export type { RunControl } from "../session";

/**
 * The claim the adaptive design waits for: the mechanism check, decidable at any run length (the
 * seed's figure (1) is decided only at the seed's protocol, so more sets elsewhere cannot decide it).
 */
export const ADAPTIVE_CLAIM = "1m";

export interface AdaptiveState {
  readonly verdict: Verdict;
  readonly sets: number;
  readonly plannedSets: number;
  readonly maxSets: number;
  /** Sets an interval needs to cover the median with the least coverage that decides a claim. */
  readonly needed: number;
  readonly elapsedS: number;
  readonly perSetS: number;
  readonly budgetS: number;
}

/**
 * One step of the adaptive design: stop (and why) or run one more set. More sets only help an
 * inconclusive claim, and only if the budget can reach the sets a verdict needs at the pace so far
 * (one more set where the interval straddles a margin with enough sets already). The step itself is
 * `nextRound` (lib/stats/adaptive.ts), shared with 01 and 03.
 */
export function adaptiveStep(a: AdaptiveState): { readonly stop?: string } {
  const step = nextRound({
    done: a.sets,
    planned: a.plannedSets,
    maxRepeats: a.maxSets,
    elapsedSeconds: a.elapsedS,
    budgetSeconds: a.budgetS,
    secondsPerRound: a.perSetS,
    needed: a.needed,
    undecided: a.verdict === "inconclusive" ? [`claim (${ADAPTIVE_CLAIM})`] : [],
    decided: `claim (${ADAPTIVE_CLAIM}) ${a.verdict}`,
    words: { one: "set", many: "sets", cap: "maxSets" },
  });
  return step.more ? {} : { stop: step.reason };
}

export async function run(p: ReindexUnderLoadParams, control: RunControl = {}): Promise<ReindexUnderLoadRun> {
  const started = Date.now();
  let plan = planRuns(p.sets, p.modes);
  // The sets planned so far: a set the adaptive design adds joins the time left.
  let setsSoFar = p.sets;
  return withSession<ReindexCondition, ReindexUnderLoadRun>(
    {
      notebook: NOTEBOOK,
      estimate: (done) => estimateRun(NOTEBOOK, eta, { ...p, sets: setsSoFar }, done),
      title: "04 REINDEX under load",
      params: p,
      control,
      specs: [serverSpec(p)],
      target: p.target,
      cpus: p.cpus,
      memoryGiB: p.memoryGiB,
      prospect: planText(plan04(p)),
    },
    async ({ store, progress, servers, signal, notes, metadata, writeMetadata }) => {
      const { server, runner } = await pgbenchOnPostgres(servers, "04", notes);
      progress.update(0, plan.length, `pgbench -i -s ${p.scale} into a template database…`);
      const template = await createTemplate(server, p.scale, p.initSteps, runner, signal);
      notes.push(
        `template: pgbench -i -s ${p.scale} -I ${p.initSteps} in ${template.init.seconds.toFixed(1)} s, ` +
          `${(template.databaseBytes / GIB).toFixed(2)} GiB; each run starts from a FILE_COPY clone of it`,
      );
      // Through the session's writeMetadata, so that its closing write (quietness) keeps the template.
      writeMetadata({ template });
      // The run length from the measured rebuild, so that the stall is the seed's share of each run.
      let calibration: RunLengthCalibration | undefined;
      if (p.stallShare > 0) {
        calibration = storedCalibration(store.directory);
        if (!calibration) {
          progress.update(0, plan.length, "calibration: timing a plain REINDEX of the three keys on a fresh clone…");
          const rebuild = await calibrateRebuild(server, p, { onNote: (n) => notes.push(n) });
          calibration = { ...rebuild, stallShare: p.stallShare, ...runLengthFor(rebuild.seconds, p.stallShare, p) };
          store.writeSummary(CALIBRATION_FILE, calibration);
        }
        notes.push(
          `run length from the calibration rebuild: the three keys took ${calibration.seconds.toFixed(2)} s ` +
            `(accounts ${calibration.accountsSeconds?.toFixed(2) ?? "n/a"} s) on a fresh clone, so each run lasts ` +
            `${calibration.durationSeconds} s (${(p.stallShare * 100).toFixed(0)} % stalled, the seed's share), ` +
            `the REINDEX starting at ${calibration.reindexStartSeconds} s`,
        );
        writeMetadata({ template, calibration });
      }
      const settings: ReindexUnderLoadParams = calibration
        ? {
            ...p,
            durationSeconds: calibration.durationSeconds,
            reindexStartSeconds: calibration.reindexStartSeconds,
          }
        : p;
      let current = "";
      const runPart = (part: readonly PlannedRun[]) =>
        runPlan({
          server,
          runner,
          plan: part,
          settings,
          store,
          signal,
          onNote: (n) => notes.push(n),
          onRun: (done, total, next, last) => {
            const lastText = last ? `last: ${last.key} ${last.pgbench?.summary.tps.toFixed(0)} tps · ` : "";
            current = next ? `${next.key}` : "done";
            progress.update(
              plan.length - total + done,
              plan.length,
              `${lastText}${next ? `cloning + restart for ${current}…` : "done"}`,
            );
          },
          onProgress: (planned, point) => {
            const done = plan.findIndex((x) => x.key === planned.key);
            progress.update(
              Math.max(0, done),
              plan.length,
              `${planned.key}: ${point.second.toFixed(0)} / ${settings.durationSeconds} s · ${point.tps.toFixed(0)} tps`,
            );
          },
        });
      // The planned sets, then one more set at a time while the mechanism check is inconclusive, as long as the
      // budget can still reach the sets a verdict needs at the pace of the sets so far.
      const needed = repeatsForCoverage(MIN_COVERAGE);
      const {
        planned,
        rounds: sets,
        stoppedBy,
        cut,
      } = await runAdaptiveRounds({
        planned: p.sets,
        needed,
        budgetSeconds: p.budgetSeconds,
        startedAt: started,
        many: "sets",
        runRound: async (set) => {
          const part = planRuns(set, p.modes).filter((r) => r.condition.set === set);
          if (set > p.sets) plan = [...plan, ...part];
          setsSoFar = Math.max(setsSoFar, set);
          await runPart(part);
        },
        stopAfter: (done, pace) =>
          adaptiveStep({
            verdict: checkClaim(
              {
                ...summarise(store.trials(), settings.durationSeconds, p.clients, metadata.host.cpus, p.scale),
                looks: lookPlan(p.sets, p.maxSets),
              },
              ADAPTIVE_CLAIM,
            ).verdict,
            sets: done,
            plannedSets: p.sets,
            maxSets: p.maxSets,
            needed,
            elapsedS: pace.elapsedSeconds,
            perSetS: pace.secondsPerRound,
            budgetS: p.budgetSeconds,
          }).stop,
      });
      plan = plan.filter((r) => r.condition.set <= sets);
      if (cut) notes.push(cut);
      notes.push(
        `adaptive design: ${stoppedBy} (planned ${p.sets} sets, at most ${p.maxSets}, budget ${p.budgetSeconds} s)`,
      );
      writeMetadata({
        adaptive: {
          plannedSets: p.sets,
          ...(cut ? { plannedSetsRun: planned } : {}),
          sets,
          maxSets: p.maxSets,
          budgetSeconds: p.budgetSeconds,
          stoppedBy,
        },
      });
      await dropDatabases(server);
      progress.finish(`${plan.length} runs`);
      writeMetadata({ notes, template });
      return {
        runId: store.runId,
        directory: store.directory,
        // As asked (the store's params.json); the length the runs had is the calibration's.
        params: p,
        trials: store.trials(),
        metadata: { ...metadata, notes },
        template,
        ...(calibration ? { calibration } : {}),
      };
    },
  );
}

/** One round of seed 002's protocol at one index level. */
import { probeSpeed } from "../../../engines/postgres/speed-probe";
import { timedWindow, windowFacts, type WindowFacts } from "../../../engines/postgres/timed-window";
import { counterDelta } from "../../../stats/counters";
import { rotated } from "../../../stats/order";
import type { TrialRecord } from "../../../results/run-store";
import { pgbenchOutcome, waitForPgbenchGone, type PgbenchRunResult } from "../../../workloads/pgbench";
import { runTrialPgbench, type PgbenchLoad } from "../../../workloads/pgbench-trial";
import { runTrials, type PgbenchPlanOptions, type PlannedTrial } from "../../../workloads/trials";
import { prepareRound, runDatabase, withClient, type PreparedRound } from "./databases";
import {
  relationSizes,
  roundCounters,
  statementStats,
  type OverIndexingCounterKey,
  type StatementStats,
} from "./observations";

export interface OverIndexingCondition {
  readonly level: number;
}

/** Seconds of a round outside pgbench, by phase (the run's time account sums them). */
type Phase = "clone" | "dropIndex" | "buildIndex" | "checkpoint" | "restart" | "speed" | "open" | "gone" | "close";

export type OverIndexingTrial = TrialRecord<OverIndexingCondition, OverIndexingCounterKey> &
  WindowFacts &
  Partial<Record<`${Phase}Seconds`, number>> & {
    readonly pgbench?: PgbenchRunResult;
    readonly prepared?: PreparedRound;
    readonly restarted?: boolean;
    /** `table.<name>` / `index.<table>.<index>` → bytes, before and after the run. */
    readonly sizesBefore?: Readonly<Record<string, number>>;
    readonly sizesAfter?: Readonly<Record<string, number>>;
    readonly statements?: readonly StatementStats[];
    readonly order?: number;
  };

export type PlannedRound = PlannedTrial<OverIndexingCondition> & { readonly order: number };

/**
 * Repeat r starts r − 1 levels further on (a Latin square), so that a shared machine's drift over
 * a repeat does not land on the index count. Deterministic: each trial stores `order`.
 */
export const planRounds = (levels: readonly number[], repeats: number): PlannedRound[] =>
  Array.from({ length: repeats }, (_, i) => i + 1).flatMap((repeat) =>
    rotated(levels, repeat - 1).map((level, order) => ({
      key: `idx${level}/r${repeat}`,
      condition: { level },
      repeat,
      order,
    })),
  );

export interface RoundSettings extends PgbenchLoad {
  readonly maxTries: number;
  readonly maintenanceWorkMemMB: number;
  readonly script: string;
  readonly walInspect?: boolean;
  readonly templateLevel: number;
}

export interface RunRoundsOptions extends PgbenchPlanOptions<OverIndexingCondition, PlannedRound, RoundSettings> {
  readonly onRound?: (next: PlannedRound | undefined, last: OverIndexingTrial | undefined) => void;
  /** What a round is doing now, as a line for the progress bar. */
  readonly onStatus?: (planned: PlannedRound, text: string) => void;
}

export async function runRounds(o: RunRoundsOptions): Promise<OverIndexingTrial[]> {
  return runTrials(o.plan, (planned) => runRound(o, planned), {
    store: o.store,
    signal: o.signal,
    watch: (planned) => ({ engine: "postgresql", what: `round ${planned.key}` }),
    // The caller places a round in the whole run by its key.
    onProgress: ({ last, next }) => o.onRound?.(next, last),
  });
}

const since = (ms: number) => (Date.now() - ms) / 1000;

async function runRound(o: RunRoundsOptions, planned: PlannedRound): Promise<OverIndexingTrial> {
  const { server, settings: s } = o;
  const startedAt = new Date().toISOString();
  const level = planned.condition.level;
  const onPhase = (phase: string) => o.onStatus?.(planned, `${planned.key}: ${phase}…`);
  onPhase(
    `cloning the template (${s.templateLevel} indexes)` +
      (level < s.templateLevel
        ? ` and dropping to ${level}`
        : level > s.templateLevel
          ? ` and building ${level - s.templateLevel} more`
          : ""),
  );
  const prepared = await prepareRound(server, level, s.maintenanceWorkMemMB, s.templateLevel);
  let restarted = false;
  onPhase("restarting the server");
  let began = Date.now();
  try {
    await server.restart();
    restarted = true;
  } catch (error) {
    // Said once per reason: on an external server every round fails the same way.
    o.onNote?.(`rounds ran without the restart before them: ${error instanceof Error ? error.message : String(error)}`);
  }
  const restartSeconds = since(began);
  onPhase("write-path speed probe");
  began = Date.now();
  const speed = await probeSpeed(server.connection);
  const speedSeconds = since(began);
  // Window phases: opened (autovacuum, CHECKPOINT, WAL held, counters) until pgbench starts; closed from its end.
  const marks = { open: Date.now(), run: 0, gone: 0, ran: 0 };
  // The round's WAL is held until counted (timedWindow), else a checkpoint could recycle it first.
  const window = await timedWindow({
    connection: server.connection,
    database: runDatabase(server),
    walInspect: s.walInspect === true,
    key: planned.key,
    onNote: o.onNote,
    before: async (c) => {
      // The seed reset the statistics before each round: a round's statements are its own (deltas do the rest).
      await c.query("SELECT pg_stat_statements_reset()");
      return { counters: await roundCounters(c), sizes: await relationSizes(c) };
    },
    run: async () => {
      marks.run = Date.now();
      onPhase("pgbench");
      const pgbench = await runTrialPgbench(o, runDatabase(server), {
        script: { name: "inventory.sql", text: s.script },
        noVacuum: true,
        maxTries: s.maxTries > 1 ? s.maxTries : undefined,
        onProgress: (p) =>
          o.onStatus?.(
            planned,
            `${planned.key}: ${p.second.toFixed(0)} / ${s.durationSeconds} s · ${p.tps.toFixed(0)} tps`,
          ),
      });
      marks.gone = Date.now();
      await withClient(server, runDatabase(server), waitForPgbenchGone);
      marks.ran = Date.now();
      return pgbench;
    },
    after: async (c) => ({
      counters: await roundCounters(c),
      sizes: await relationSizes(c),
      statements: await statementStats(c),
    }),
  });
  const closeSeconds = since(marks.ran);
  const pgbench = window.run;
  return {
    key: planned.key,
    condition: planned.condition,
    repeat: planned.repeat,
    ...pgbenchOutcome(pgbench),
    counters: counterDelta(window.before.counters, window.after.counters),
    startedAt,
    finishedAt: new Date().toISOString(),
    pgbench,
    prepared,
    restarted,
    sizesBefore: window.before.sizes,
    sizesAfter: window.after.sizes,
    statements: window.after.statements,
    order: planned.order,
    ...windowFacts(window),
    ...(speed ? { speed } : {}),
    cloneSeconds: prepared.cloneSeconds,
    dropIndexSeconds: prepared.dropSeconds,
    buildIndexSeconds: prepared.indexSeconds,
    checkpointSeconds: prepared.checkpointSeconds,
    restartSeconds,
    speedSeconds,
    openSeconds: (marks.run - marks.open) / 1000,
    goneSeconds: (marks.ran - marks.gone) / 1000,
    closeSeconds,
  };
}

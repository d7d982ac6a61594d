/** One round of seed 002's protocol at one index level. */
import { probeSpeed } from "../../../engines/postgres/speed-probe";
import { timedWindow, windowFacts, type WindowFacts } from "../../../engines/postgres/timed-window";
import { counterDelta } from "../../../stats/counters";
import { rotated } from "../../../stats/order";
import type { TrialRecord } from "../../../results/run-store";
import { pgbenchOutcome, waitForPgbenchGone, type PgbenchRunResult } from "../../../workloads/pgbench";
import { runTrialPgbench, type PgbenchLoad } from "../../../workloads/pgbench-trial";
import { nextNotOnDisk, runTrials, type PgbenchPlanOptions, type PlannedTrial } from "../../../workloads/trials";
import { restartServer, withAdmin } from "../../../workloads/fresh-copies";
import { prepareRound, runDatabase, type PreparedRound, type RunSlot } from "./databases";
import { relationSizes, tableCounters, type PgTableCounterKey } from "../../../engines/postgres/table-counters";
import { statementStats, type StatementStats } from "./observations";

export type OverIndexingCondition = { readonly level: number };

/** Seconds of a round outside pgbench, by phase (the run's time account sums them). */
type PreparePhase = "clone" | "dropIndex" | "buildIndex" | "checkpoint";
type Phase = PreparePhase | `next${Capitalize<PreparePhase>}` | "restart" | "speed" | "open" | "gone" | "close";

export type OverIndexingTrial = TrialRecord<OverIndexingCondition, PgTableCounterKey> &
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
  /**
   * Room on disk for a second clone: the next round's clone is made while this round reads its
   * counters and counts its WAL (after pgbench, before the next restart), in the other run database.
   */
  readonly cloneBeside?: boolean;
}

export interface RunRoundsOptions extends PgbenchPlanOptions<OverIndexingCondition, PlannedRound, RoundSettings> {
  readonly onRound?: (next: PlannedRound | undefined, last: OverIndexingTrial | undefined) => void;
  /** What a round is doing now, as a line for the progress bar. */
  readonly onStatus?: (planned: PlannedRound, text: string) => void;
  /** The round after the plan's last where it is planned: it too is made ahead (the plan is a part of the run). */
  readonly next?: PlannedRound;
  /** Carries the database made ahead from one call to the next. */
  readonly ahead?: RoundsAhead;
}

/** A round's database, cloned and at its level; made by the round before when there is room. */
type Prepared = { readonly key: string; readonly slot: RunSlot; readonly prepared: PreparedRound };
export type RoundsAhead = { made?: Prepared };

export async function runRounds(o: RunRoundsOptions): Promise<OverIndexingTrial[]> {
  const nextToRun = nextNotOnDisk([...o.plan, ...(o.next ? [o.next] : [])], o.store);
  const ahead = o.ahead ?? {};
  return runTrials(
    o.plan,
    async (planned) => {
      const mine = ahead.made?.key === planned.key ? ahead.made : undefined;
      ahead.made = undefined;
      const next = o.settings.cloneBeside ? nextToRun(planned) : undefined;
      const { trial, made } = await runRound(o, planned, mine, next);
      ahead.made = made;
      return trial;
    },
    {
      store: o.store,
      signal: o.signal,
      watch: (planned) => ({ engine: "postgresql", what: `round ${planned.key}` }),
      afterFailure: async () => {
        ahead.made = undefined;
      },
      // The caller places a round in the whole run by its key.
      onProgress: ({ last, next }) => o.onRound?.(next, last),
    },
  );
}

const since = (ms: number) => (Date.now() - ms) / 1000;

const phases = (p: PreparedRound) => ({
  cloneSeconds: p.cloneSeconds,
  dropIndexSeconds: p.dropSeconds,
  buildIndexSeconds: p.indexSeconds,
  checkpointSeconds: p.checkpointSeconds,
});

/** The next round's prepared database, recorded by the round that made it (`nextCloneSeconds`, …). */
const asNext = (p: PreparedRound) => ({
  nextCloneSeconds: p.cloneSeconds,
  nextDropIndexSeconds: p.dropSeconds,
  nextBuildIndexSeconds: p.indexSeconds,
  nextCheckpointSeconds: p.checkpointSeconds,
});

async function runRound(
  o: RunRoundsOptions,
  planned: PlannedRound,
  mine: Prepared | undefined,
  next: PlannedRound | undefined,
): Promise<{ readonly trial: OverIndexingTrial; readonly made?: Prepared }> {
  const { server, settings: s } = o;
  const startedAt = new Date().toISOString();
  const level = planned.condition.level;
  const onPhase = (phase: string) => o.onStatus?.(planned, `${planned.key}: ${phase}…`);
  if (!mine)
    onPhase(
      `cloning the template (${s.templateLevel} indexes)` +
        (level < s.templateLevel
          ? ` and dropping to ${level}`
          : level > s.templateLevel
            ? ` and building ${level - s.templateLevel} more`
            : ""),
    );
  const own = mine ?? {
    key: planned.key,
    slot: 0 as const,
    prepared: await prepareRound(server, level, s.maintenanceWorkMemMB, s.templateLevel),
  };
  const { prepared } = own;
  const database = runDatabase(server, own.slot);
  // Started in the window's close, after it read the other databases' writes; settled before the round
  // ends, even when it fails.
  let making: Promise<Prepared | undefined> | undefined;
  const makeNext = (n: PlannedRound): Promise<Prepared | undefined> => {
    const slot: RunSlot = own.slot ? 0 : 1;
    const made = prepareRound(server, n.condition.level, s.maintenanceWorkMemMB, s.templateLevel, slot);
    // A clone that failed here is made again by its round, which then reports why.
    return made.then((p) => ({ key: n.key, slot, prepared: p })).catch(() => undefined);
  };
  onPhase("restarting the server");
  const { restartSeconds, failed } = await restartServer(server);
  // Said once per reason: on an external server every round fails the same way.
  if (failed) o.onNote?.(`rounds ran without the restart before them: ${failed}`);
  onPhase("write-path speed probe");
  const began = Date.now();
  const speed = await probeSpeed(server.connection);
  const speedSeconds = since(began);
  // Window phases: opened (autovacuum, CHECKPOINT, WAL held, counters) until pgbench starts; closed from its end.
  const marks = { open: Date.now(), run: 0, gone: 0, ran: 0 };
  // The round's WAL is held until counted (timedWindow), else a checkpoint could recycle it first.
  const window = await timedWindow({
    connection: server.connection,
    database,
    walInspect: s.walInspect === true,
    key: planned.key,
    onNote: o.onNote,
    before: async (c) => {
      // The seed reset the statistics before each round: a round's statements are its own (deltas do the rest).
      await c.query("SELECT pg_stat_statements_reset()");
      return { counters: await tableCounters(c), sizes: await relationSizes(c) };
    },
    run: async () => {
      marks.run = Date.now();
      onPhase("pgbench");
      const pgbench = await runTrialPgbench(o, database, {
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
      await withAdmin(server, database, waitForPgbenchGone);
      marks.ran = Date.now();
      return pgbench;
    },
    // The next clone starts once this round's server-wide counters (WAL, checkpointer, I/O) are read: it
    // overlaps only the WAL count, whose range ends at the round's end LSN.
    after: async (c) => {
      const read = {
        counters: await tableCounters(c),
        sizes: await relationSizes(c),
        statements: await statementStats(c),
      };
      if (next) making = makeNext(next);
      return read;
    },
  }).finally(() => making);
  const closeSeconds = since(marks.ran);
  const made = await making;
  const pgbench = window.run;
  const trial: OverIndexingTrial = {
    key: planned.key,
    condition: planned.condition,
    repeat: planned.repeat,
    ...pgbenchOutcome(pgbench),
    counters: counterDelta(window.before.counters, window.after.counters),
    startedAt,
    finishedAt: new Date().toISOString(),
    pgbench,
    prepared,
    restarted: !failed,
    sizesBefore: window.before.sizes,
    sizesAfter: window.after.sizes,
    statements: window.after.statements,
    order: planned.order,
    ...windowFacts(window),
    ...(speed ? { speed } : {}),
    ...(mine ? {} : phases(prepared)),
    ...(made ? asNext(made.prepared) : {}),
    restartSeconds,
    speedSeconds,
    openSeconds: (marks.run - marks.open) / 1000,
    goneSeconds: (marks.ran - marks.gone) / 1000,
    closeSeconds,
  };
  return { trial, made };
}

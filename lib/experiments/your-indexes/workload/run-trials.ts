/** One timed run of the reader's workload on one variant, the 1-s checks before the rounds, and the plan. */
import type { OrderedTrial } from "../../../workloads/trials";
import { probeSpeed } from "../../../engines/postgres/speed-probe";
import type { AutovacuumWait } from "../../../engines/postgres/autovacuum";
import { relationSizes, tableCounters, type PgTableCounterKey } from "../../../engines/postgres/table-counters";
import { timedWindow } from "../../../engines/postgres/timed-window";
import type { WalRecordStats } from "../../../engines/postgres/wal-records";
import type { TrialRecord } from "../../../results/run-store";
import { counterDelta, counterEntries, type Counters } from "../../../stats/counters";
import { williamsDesign } from "../../../stats/williams";
import type { StartedServer } from "../../../targets/types";
import type { Client } from "pg";
import { InputError } from "../../../runtime/input-error";
import {
  pgbenchFailureKind,
  pgbenchFigures,
  pgbenchOutcome,
  PgbenchError,
  runPgbench,
  waitForPgbenchGone,
  type PgbenchRunner,
  type PgbenchRunResult,
  type PgbenchScript,
  type ProgressPoint,
} from "../../../workloads/pgbench";
import { cloneForRun, runDatabase, withDatabase } from "./databases";

export interface YourIndexesCondition {
  /** The variant's id: "baseline", "drop:<index>", "add:<n>", "add:all". */
  readonly variant: string;
}

export type YourIndexesTrial = TrialRecord<YourIndexesCondition, PgTableCounterKey> & {
  readonly pgbench?: PgbenchRunResult;
  readonly cloneSeconds?: number;
  /** `table.<name>` / `index.<table>.<index>` → bytes after the run. */
  readonly sizesAfter?: Readonly<Record<string, number>>;
  /** WAL records of the timed window by record type (pg_walinspect); absent where the server lacks it. */
  readonly walRecords?: Readonly<Record<string, WalRecordStats>>;
  /**
   * Other databases that wrote during the window (another run on a shared server): the window's
   * WAL figures are the whole server's, and the summary leaves them out (other-writes.ts).
   */
  readonly walShared?: readonly string[];
  readonly autovacuumWait?: AutovacuumWait;
  /** Each read script's run after the write run, on the same clone (none without `reads`). */
  readonly reads?: readonly ReadRun[];
};

/** One read script's timed run after a write run: its latency, and the scans of every index during it. */
export interface ReadRun {
  readonly script: string;
  readonly tps?: number;
  readonly transactions?: number;
  readonly latencyAvgMs?: number;
  readonly p50Ms?: number;
  readonly p99Ms?: number;
  /** pgbench's timed seconds of the read run (a measured window, as the write run's `seconds`). */
  readonly seconds?: number;
  /** `<table>.<index>` → idx_scan during the run (pg_stat_user_indexes), for every index scanned. */
  readonly indexScans?: Readonly<Record<string, number>>;
  /** Why it gave no figures (its write run's figures stand). */
  readonly error?: string;
}

export type PlannedTrial = OrderedTrial<YourIndexesCondition>;

/**
 * Rounds outermost, the baseline between every two variants (B V₁ B V₂ … B Vₖ B), so each variant's
 * cost is taken against the two baseline runs that flank it and a drift of the machine's speed
 * cancels to first order; the variants' order a Williams design, round r taking row r − 1, so what
 * one variant leaves behind does not always land on the same next one (docs/your-indexes.md, "What
 * runs, in order"). `from` lets the adaptive design add round `from` alone. Without the baseline (or
 * with nothing else) a round is the variants in that order.
 */
export function planRounds(
  variants: readonly string[],
  repeats: number,
  from = 1,
  baseline = "baseline",
): PlannedTrial[] {
  const plan: PlannedTrial[] = [];
  const others = variants.filter((v) => v !== baseline);
  const interleave = others.length > 0 && others.length < variants.length;
  const ordered = interleave ? others : variants;
  const design = ordered.length ? williamsDesign(ordered.length) : [];
  for (let repeat = from; repeat <= repeats; repeat++) {
    const order = design.length ? design[(repeat - 1) % design.length].map((i) => ordered[i]) : [];
    const round = interleave ? [baseline, ...order.flatMap((v) => [v, baseline])] : order;
    let baselines = 0;
    round.forEach((variant, position) => {
      const key = interleave && variant === baseline ? `${variant}/r${repeat}.${++baselines}` : `${variant}/r${repeat}`;
      plan.push({ key, condition: { variant }, repeat, position });
    });
  }
  return plan;
}

export interface TrialSettings {
  readonly clients: number;
  readonly threads: number;
  readonly durationSeconds: number;
  readonly scripts: readonly PgbenchScript[];
  /** pgbench variables (-D): `scale`. */
  readonly defines: Readonly<Record<string, string | number>>;
  readonly walInspect: boolean;
  /** Read scripts, each run alone for `readSeconds` after the write run (none: no read phase). */
  readonly reads?: readonly PgbenchScript[];
  readonly readSeconds?: number;
}

export interface TrialContext {
  readonly server: StartedServer;
  readonly runner: PgbenchRunner;
  /** Each variant's template database. */
  readonly databases: ReadonlyMap<string, string>;
  readonly settings: TrialSettings;
  readonly signal?: AbortSignal;
  readonly onPhase?: (planned: PlannedTrial, phase: string) => void;
  readonly onProgress?: (planned: PlannedTrial, point: ProgressPoint) => void;
  /** A sentence for the run's notes (a trial that kept its figures but lost one count). */
  readonly onNote?: (text: string) => void;
}

/**
 * Everything one timed run does: a fresh clone of the variant, autovacuum idle and a CHECKPOINT,
 * the counters before, pgbench for `durationSeconds`, the counters after and the window's WAL by
 * record type.
 */
export function trialRunner(ctx: TrialContext): (planned: PlannedTrial) => Promise<YourIndexesTrial> {
  const { server, settings: s } = ctx;
  return async (planned) => {
    const startedAt = new Date().toISOString();
    const template = ctx.databases.get(planned.condition.variant);
    if (!template) throw new Error(`no template database for variant ${planned.condition.variant}`);
    ctx.onPhase?.(planned, "speed probe");
    // Recorded beside the run: which speed state of the machine it ran in (~0.1 s, its own table).
    const speed = await probeSpeed(server.connection);
    ctx.onPhase?.(planned, "cloning");
    const cloneSeconds = await cloneForRun(server, template);
    // The window's WAL is held until it is counted (timedWindow): another run's checkpoint on a
    // shared server, or this window's own, would otherwise recycle it first.
    const window = await timedWindow({
      connection: server.connection,
      database: runDatabase(server),
      walInspect: s.walInspect,
      key: planned.key,
      onNote: ctx.onNote,
      before: tableCounters,
      run: async () => {
        ctx.onPhase?.(planned, "pgbench");
        const pgbench = await runPgbench(server, {
          runner: ctx.runner,
          database: runDatabase(server),
          clients: s.clients,
          threads: s.threads,
          durationSeconds: s.durationSeconds,
          scripts: s.scripts,
          defines: s.defines,
          noVacuum: true,
          // Tenths of a second: the series the cost's statistic reads (see summarise.ts).
          bucketMs: 100,
          signal: ctx.signal,
          onProgress: (p) => ctx.onProgress?.(planned, p),
        });
        await withDatabase(server, runDatabase(server), waitForPgbenchGone);
        return pgbench;
      },
      after: async (c) => ({ counters: await tableCounters(c), sizes: await relationSizes(c) }),
    });
    const { run: pgbench, walRecords, walShared } = window;
    // The reads, after the write window closed: the write figures above are what they were without them.
    const reads = s.reads?.length ? await readPhase(ctx, planned) : undefined;
    const outcome = pgbenchOutcome(pgbench);
    // Every timed window of the trial, the reads' too: what the run's time account counts as measured.
    const readSeconds = (reads ?? []).reduce((t, r) => t + (r.seconds ?? 0), 0);
    // `planned` carries key, condition, repeat and position: the record keeps them as planned.
    return {
      ...planned,
      ...outcome,
      ...(outcome.status === "ok" && readSeconds > 0 ? { measuredSeconds: outcome.seconds + readSeconds } : {}),
      startedAt,
      finishedAt: new Date().toISOString(),
      counters: counterDelta(window.before, window.after.counters),
      ...(speed ? { speed } : {}),
      pgbench,
      ...(walRecords ? { walRecords } : {}),
      ...(walShared.length ? { walShared } : {}),
      cloneSeconds,
      sizesAfter: window.after.sizes,
      autovacuumWait: window.autovacuumWait,
      ...(reads ? { reads } : {}),
    };
  };
}

/** Makes the clone's new sessions read-only: the server then refuses any write a read script tries. */
async function readOnlyClone(server: StartedServer): Promise<void> {
  const db = runDatabase(server);
  await withDatabase(server, server.connection.database, (c) =>
    c.query(`ALTER DATABASE ${c.escapeIdentifier(db)} SET default_transaction_read_only = on`),
  );
}

/** idx_scan of every index of the clone, `<table>.<index>` → scans. */
async function indexScans(c: Client): Promise<Record<string, number>> {
  const { rows } = await c.query<{ name: string; scans: string }>(
    "SELECT relname || '.' || indexrelname AS name, idx_scan::text AS scans FROM pg_stat_user_indexes",
  );
  return Object.fromEntries(rows.map((r) => [r.name, Number(r.scans)]));
}

/**
 * Each read script alone on the clone the write run left, for `readSeconds`, with the write run's
 * clients and threads, in read-only sessions; the scans of every index counted around it (the
 * sessions' statistics are flushed when they end, before they leave pg_stat_activity). A script
 * that fails here is recorded with its error and left out of the read figures; a lost server
 * fails the trial.
 */
async function readPhase(ctx: TrialContext, planned: PlannedTrial): Promise<ReadRun[]> {
  const { server, settings: s } = ctx;
  const db = runDatabase(server);
  await readOnlyClone(server);
  const out: ReadRun[] = [];
  for (const script of s.reads ?? []) {
    ctx.onPhase?.(planned, `read script ${script.name}`);
    const before = await withDatabase(server, db, indexScans);
    let result: PgbenchRunResult;
    try {
      result = await runPgbench(server, {
        runner: ctx.runner,
        database: db,
        clients: s.clients,
        threads: s.threads,
        durationSeconds: s.readSeconds ?? 1,
        scripts: [{ name: script.name, text: script.text }],
        defines: s.defines,
        noVacuum: true,
        signal: ctx.signal,
      });
    } catch (error) {
      if (ctx.signal?.aborted || !(error instanceof PgbenchError) || error.kind !== "script") throw error;
      out.push({ script: script.name, error: error.message });
      continue;
    }
    const after = await withDatabase(server, db, async (c) => {
      await waitForPgbenchGone(c);
      return indexScans(c);
    });
    const scans = Object.fromEntries(
      Object.entries(after).flatMap(([k, v]) => (v - (before[k] ?? 0) > 0 ? [[k, v - (before[k] ?? 0)]] : [])),
    );
    const outcome = pgbenchOutcome(result);
    const f = pgbenchFigures(result);
    out.push({
      script: script.name,
      tps: f.tps,
      transactions: f.transactions,
      ...(f.latencyAvgMs !== undefined ? { latencyAvgMs: f.latencyAvgMs } : {}),
      ...(f.p50Ms !== undefined ? { p50Ms: f.p50Ms } : {}),
      ...(f.p99Ms !== undefined ? { p99Ms: f.p99Ms } : {}),
      indexScans: scans,
      ...(outcome.status === "ok" ? { seconds: outcome.seconds } : { error: outcome.error }),
    });
  }
  return out;
}

/** The workload refused before the rounds: a script pgbench or the server rejects, or one that writes nothing. */
export class WorkloadError extends InputError {
  override readonly name = "WorkloadError";
}

/** The text ended with one full stop. */
const sentence = (text: string) => text.replace(/\.*\s*$/, ".");

/** What to do about a script pgbench or the server rejected, after pgbench's own words. */
function scriptFix(said: string): string {
  // In pgbench's simple protocol a `:name` with no variable of that name is sent as written, and
  // the server then reads the colon as a syntax error.
  const unsetVariable = /syntax error at or near ":"/.test(said)
    ? " A `:name` that pgbench has no variable for is sent as written: set it with \\set (or fix its spelling)."
    : "";
  return `${unsetVariable} Fix the script and start a new run: resuming this one would run the same script again.`;
}

export interface WorkloadCheck {
  /** Per script: transactions in the check and the rows it inserted, updated or deleted, per table. */
  readonly scripts: readonly {
    readonly name: string;
    readonly transactions: number;
    readonly written: Readonly<Record<string, number>>;
  }[];
  /** Tables some script wrote. */
  readonly writtenTables: readonly string[];
}

function writtenPerTable(c: Counters<PgTableCounterKey>): Record<string, number> {
  const out: Record<string, number> = {};
  for (const [key, value] of counterEntries(c)) {
    const m = /^table\.(.+)\.(n_tup_ins|n_tup_upd|n_tup_del)$/.exec(key);
    if (m && value > 0) out[m[1]] = (out[m[1]] ?? 0) + value;
  }
  return out;
}

/**
 * One script alone for a second on a fresh clone of the baseline (read-only sessions for a read
 * script), one client: pgbench's result and the rows a completed check wrote per table, or what
 * pgbench threw.
 */
async function oneSecondCheck(
  server: StartedServer,
  runner: PgbenchRunner,
  baseline: string,
  script: PgbenchScript,
  defines: TrialSettings["defines"],
  signal: AbortSignal | undefined,
  readOnly = false,
): Promise<{ result: PgbenchRunResult; written: Record<string, number> } | { error: unknown }> {
  await cloneForRun(server, baseline);
  if (readOnly) await readOnlyClone(server);
  const before = await withDatabase(server, runDatabase(server), tableCounters);
  let result: PgbenchRunResult;
  try {
    result = await runPgbench(server, {
      runner,
      database: runDatabase(server),
      clients: 1,
      durationSeconds: 1,
      scripts: [{ name: script.name, text: script.text }],
      defines,
      noVacuum: true,
      log: "none",
      signal,
    });
  } catch (error) {
    return { error };
  }
  // A failed check is said from pgbench's words; the server may be gone, so its counters are not read.
  if (result.summary.abortedClients > 0 || result.summary.transactions === 0) return { result, written: {} };
  const after = await withDatabase(server, runDatabase(server), async (c) => {
    await waitForPgbenchGone(c);
    return tableCounters(c);
  });
  return { result, written: writtenPerTable(counterDelta(before, after)) };
}

type ScriptCheck = { readonly name: string; readonly transactions: number; readonly written: Record<string, number> };

/**
 * Each script alone for a second on a clone of the baseline, one client (read scripts in read-only
 * sessions): one pgbench or the server rejects is refused with their words and what to fix; a lost
 * server or a silent pgbench is said as what it is, for the watchdog to explain.
 */
async function checkScripts(
  server: StartedServer,
  runner: PgbenchRunner,
  baseline: string,
  scripts: readonly PgbenchScript[],
  defines: TrialSettings["defines"],
  signal: AbortSignal | undefined,
  reading: boolean,
): Promise<ScriptCheck[]> {
  const Refusal = reading ? ReadScriptError : WorkloadError;
  const out: ScriptCheck[] = [];
  for (const script of scripts) {
    const check = await oneSecondCheck(server, runner, baseline, script, defines, signal, reading);
    const name = `${reading ? "read" : "workload"} script ${script.name}`;
    if ("error" in check) {
      const error = check.error;
      if (signal?.aborted) throw error;
      const message = error instanceof Error ? error.message : String(error);
      if (reading && READ_ONLY_REFUSAL.test(message))
        throw new ReadScriptError(`${name} writes: ${sentence(message)}${readsFix}`, { cause: error });
      if (error instanceof PgbenchError && error.kind === "script")
        throw new Refusal(`${name} was rejected: ${sentence(message)}${scriptFix(message)}`, { cause: error });
      if (error instanceof PgbenchError && (error.kind === "connection" || error.kind === "silent"))
        throw new Error(`the 1-s check of ${name} lost the server: ${message}`, { cause: error });
      throw new Error(`the 1-s check of ${name} failed: ${message}`, { cause: error });
    }
    const { result, written } = check;
    if (result.summary.abortedClients > 0 || result.summary.transactions === 0) {
      const said = result.messages.join(" · ");
      if (reading && READ_ONLY_REFUSAL.test(said))
        throw new ReadScriptError(
          `${name} writes: the server refused it in a read-only transaction: ${sentence(said)}${readsFix}`,
        );
      if (pgbenchFailureKind(result.messages, 2) === "script")
        throw new Refusal(`${name} was rejected in a 1-s check: ${sentence(said)}${scriptFix(said)}`);
      throw new Error(`${name} completed no transaction in a 1-s check: ${said || "pgbench said nothing"}`);
    }
    out.push({ name: script.name, transactions: result.summary.transactions, written });
  }
  return out;
}

/** The workload's 1-s checks; one that inserts, updates and deletes nothing is refused: a write cost needs writes. */
export async function checkWorkload(
  server: StartedServer,
  runner: PgbenchRunner,
  baseline: string,
  settings: Pick<TrialSettings, "scripts" | "defines">,
  signal?: AbortSignal,
): Promise<WorkloadCheck> {
  const scripts = await checkScripts(server, runner, baseline, settings.scripts, settings.defines, signal, false);
  const writtenTables = [...new Set(scripts.flatMap((s) => Object.keys(s.written)))].sort();
  if (writtenTables.length === 0) {
    throw new WorkloadError(
      `the workload writes nothing: in a 1-s check of each script (${scripts
        .map((s) => `${s.name}: ${s.transactions} transactions`)
        .join(", ")}) no row was inserted, updated or deleted, so no index can cost it anything`,
    );
  }
  return { scripts, writtenTables };
}

/** A read script refused before the rounds: it writes, or pgbench or the server rejects it. */
export class ReadScriptError extends InputError {
  override readonly name = "ReadScriptError";
}

const READ_ONLY_REFUSAL = /read-only transaction/;

/** What a read script's writes need from the reader. */
const readsFix =
  " A read script's latency is what an index buys your reads, so it must only read (it runs with " +
  "default_transaction_read_only = on): move the writing statements to workload, where their cost is measured, " +
  "or out of the script, and start a new run.";

export interface ReadCheck {
  /** Per read script: transactions in its 1-s check. */
  readonly scripts: readonly { readonly name: string; readonly transactions: number }[];
}

/**
 * The read scripts' 1-s checks in read-only sessions: a write is refused by the server, and a script
 * that makes its own transactions read-write is caught by the rows it wrote.
 */
export async function checkReads(
  server: StartedServer,
  runner: PgbenchRunner,
  baseline: string,
  settings: { readonly reads: readonly PgbenchScript[]; readonly defines: TrialSettings["defines"] },
  signal?: AbortSignal,
): Promise<ReadCheck> {
  const checked = await checkScripts(server, runner, baseline, settings.reads, settings.defines, signal, true);
  for (const { name, written } of checked)
    if (Object.keys(written).length)
      throw new ReadScriptError(
        `read script ${name} writes: in its 1-s check it wrote rows (${Object.entries(written)
          .map(([t, n]) => `${t} ${n}`)
          .join(", ")}) although its sessions were read-only, so it makes its transactions read-write ` +
          `(BEGIN READ WRITE or SET transaction_read_only).${readsFix}`,
      );
  return { scripts: checked.map(({ name, transactions }) => ({ name, transactions })) };
}

/** One timed run of the reader's workload on one variant, the 1-s checks before the rounds, and the plan. */
import type { OrderedTrial } from "../../../workloads/trials";
import { probeSpeed } from "../../../engines/postgres/speed-probe";
import { relationSizes, tableCounters, type PgTableCounterKey } from "../../../engines/postgres/table-counters";
import { timedWindow, windowFacts, type WindowFacts } from "../../../engines/postgres/timed-window";
import type { TrialRecord } from "../../../results/run-store";
import { counterDelta, counterEntries } from "../../../stats/counters";
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
} from "../../../workloads/pgbench";
import { waitForPgbenchGone, type PgbenchRunner, type PgbenchRunResult } from "../../../workloads/pgbench";
import type { PgbenchFigures, PgbenchScript, ProgressPoint, RunOptions } from "../../../workloads/pgbench";
import { cloneForRun, runDatabase, withDatabase } from "./databases";

export interface YourIndexesCondition {
  readonly variant: string;
}

export type YourIndexesTrial = TrialRecord<YourIndexesCondition, PgTableCounterKey> &
  WindowFacts & {
    readonly pgbench?: PgbenchRunResult;
    readonly cloneSeconds?: number;
    /** `table.<name>` / `index.<table>.<index>` → bytes after the run. */
    readonly sizesAfter?: Readonly<Record<string, number>>;
    readonly reads?: readonly ReadRun[];
  };

/** One read script's run after a write run: its latency, idx_scan per `<table>.<index>`, or why it gave no figures. */
export type ReadRun = {
  readonly script: string;
  readonly indexScans?: Readonly<Record<string, number>>;
  readonly error?: string;
} & Partial<Readonly<Record<keyof PgbenchFigures | "seconds", number>>>;

export type PlannedTrial = OrderedTrial<YourIndexesCondition>;

/**
 * Rounds of B V₁ B V₂ … B Vₖ B, each variant against the baseline runs that flank it, the variants in
 * a Williams order (docs/your-indexes.md, "What runs, in order"); `from` adds round `from` alone.
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
  readonly defines: Readonly<Record<string, string | number>>;
  readonly walInspect: boolean;
  readonly reads?: readonly PgbenchScript[];
  readonly readSeconds?: number;
}

export interface TrialContext {
  readonly server: StartedServer;
  readonly runner: PgbenchRunner;
  readonly databases: ReadonlyMap<string, string>;
  readonly settings: TrialSettings;
  readonly signal?: AbortSignal;
  readonly onPhase?: (planned: PlannedTrial, phase: string) => void;
  readonly onProgress?: (planned: PlannedTrial, point: ProgressPoint) => void;
  readonly onNote?: (text: string) => void;
}

/** pgbench on the run database, with no vacuum of its own. */
const pgbenchOnClone = (server: StartedServer, runner: PgbenchRunner, o: Omit<RunOptions, "runner" | "database">) =>
  runPgbench(server, { runner, database: runDatabase(server), noVacuum: true, ...o });

/** One timed run: a fresh clone of the variant, counters around pgbench, the window's WAL by type, then the reads. */
export function trialRunner(ctx: TrialContext): (planned: PlannedTrial) => Promise<YourIndexesTrial> {
  const { server, settings: s } = ctx;
  return async (planned) => {
    const startedAt = new Date().toISOString();
    const template = ctx.databases.get(planned.condition.variant);
    if (!template) throw new Error(`no template database for variant ${planned.condition.variant}`);
    ctx.onPhase?.(planned, "speed probe");
    const speed = await probeSpeed(server.connection);
    ctx.onPhase?.(planned, "cloning");
    const cloneSeconds = await cloneForRun(server, template);
    const window = await timedWindow({
      connection: server.connection,
      database: runDatabase(server),
      walInspect: s.walInspect,
      key: planned.key,
      onNote: ctx.onNote,
      before: tableCounters,
      run: async () => {
        ctx.onPhase?.(planned, "pgbench");
        const pgbench = await pgbenchOnClone(server, ctx.runner, {
          clients: s.clients,
          threads: s.threads,
          durationSeconds: s.durationSeconds,
          scripts: s.scripts,
          defines: s.defines,
          bucketMs: 100,
          signal: ctx.signal,
          onProgress: (p) => ctx.onProgress?.(planned, p),
        });
        await withDatabase(server, runDatabase(server), waitForPgbenchGone);
        return pgbench;
      },
      after: async (c) => ({ counters: await tableCounters(c), sizes: await relationSizes(c) }),
    });
    const pgbench = window.run;
    // The reads, after the write window closed: the write figures above are what they were without them.
    const reads = s.reads?.length ? await readPhase(ctx, planned) : undefined;
    const outcome = pgbenchOutcome(pgbench);
    // Every timed window of the trial, the reads' too: what the run's time account counts as measured.
    const readSeconds = (reads ?? []).reduce((t, r) => t + (r.seconds ?? 0), 0);
    return {
      ...planned,
      ...outcome,
      ...(outcome.status === "ok" && readSeconds > 0 ? { measuredSeconds: outcome.seconds + readSeconds } : {}),
      startedAt,
      finishedAt: new Date().toISOString(),
      counters: counterDelta(window.before, window.after.counters),
      ...(speed ? { speed } : {}),
      pgbench,
      ...windowFacts(window),
      cloneSeconds,
      sizesAfter: window.after.sizes,
      ...(reads ? { reads } : {}),
    };
  };
}

/** `read` on the run database once pgbench's sessions are gone (their statistics flushed). */
const afterPgbench = <T>(server: StartedServer, read: (c: Client) => Promise<T>) =>
  withDatabase(server, runDatabase(server), async (c) => {
    await waitForPgbenchGone(c);
    return read(c);
  });

/** Makes the clone's new sessions read-only: the server then refuses any write a read script tries. */
async function readOnlyClone(server: StartedServer): Promise<void> {
  const db = runDatabase(server);
  await withDatabase(server, server.connection.database, (c) =>
    c.query(`ALTER DATABASE ${c.escapeIdentifier(db)} SET default_transaction_read_only = on`),
  );
}

async function indexScans(c: Client): Promise<Record<string, number>> {
  const { rows } = await c.query<{ name: string; scans: string }>(
    "SELECT relname || '.' || indexrelname AS name, idx_scan::text AS scans FROM pg_stat_user_indexes",
  );
  return Object.fromEntries(rows.map((r) => [r.name, Number(r.scans)]));
}

/** Each read script alone on the write run's clone, read-only; its failure is recorded; a lost server fails it. */
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
      result = await pgbenchOnClone(server, ctx.runner, {
        clients: s.clients,
        threads: s.threads,
        durationSeconds: s.readSeconds ?? 1,
        scripts: [{ name: script.name, text: script.text }],
        defines: s.defines,
        signal: ctx.signal,
      });
    } catch (error) {
      if (ctx.signal?.aborted || !(error instanceof PgbenchError) || error.kind !== "script") throw error;
      out.push({ script: script.name, error: error.message });
      continue;
    }
    const after = await afterPgbench(server, indexScans);
    const outcome = pgbenchOutcome(result);
    // An undefined figure is left out where the record is written (JSON).
    out.push({
      script: script.name,
      ...pgbenchFigures(result),
      indexScans: Object.fromEntries(
        Object.entries(after).flatMap(([k, v]) => (v - (before[k] ?? 0) > 0 ? [[k, v - (before[k] ?? 0)]] : [])),
      ),
      ...(outcome.status === "ok" ? { seconds: outcome.seconds } : { error: outcome.error }),
    });
  }
  return out;
}

/** The workload refused before the rounds: a script pgbench or the server rejects, or one that writes nothing. */
export class WorkloadError extends InputError {
  override readonly name = "WorkloadError";
}

/** A read script refused before the rounds: it writes, or pgbench or the server rejects it. */
export class ReadScriptError extends InputError {
  override readonly name = "ReadScriptError";
}

const READ_ONLY_REFUSAL = /read-only transaction/;
const readsFix =
  " A read script's latency is what an index buys your reads, so it must only read (it runs with default_transaction_read_only = on): move the writing statements to workload, where their cost is measured, or out of the script, and start a new run.";

const sentence = (text: string) => text.replace(/\.*\s*$/, ".");

function scriptFix(said: string): string {
  // In pgbench's simple protocol a `:name` with no variable of that name reaches the server as written.
  const unsetVariable = /syntax error at or near ":"/.test(said)
    ? " A `:name` that pgbench has no variable for is sent as written: set it with \\set (or fix its spelling)."
    : "";
  return `${unsetVariable} Fix the script and start a new run: resuming this one would run the same script again.`;
}

type ScriptCheck = { readonly name: string; readonly transactions: number; readonly written: Record<string, number> };
export interface WorkloadCheck {
  readonly scripts: readonly ScriptCheck[];
  readonly writtenTables: readonly string[];
}
export interface ReadCheck {
  readonly scripts: readonly { readonly name: string; readonly transactions: number }[];
}

/**
 * Each script alone for 1 s on a clone of the baseline: a rejected one is refused with their words and what to
 * fix. A workload that inserts, updates and deletes nothing is refused (a write cost needs writes); so is a read
 * script that writes, refused by the server or by the rows a read-write transaction wrote.
 */
async function checkScripts(
  server: StartedServer,
  runner: PgbenchRunner,
  baseline: string,
  { scripts, defines }: Pick<TrialSettings, "scripts" | "defines">,
  signal: AbortSignal | undefined,
  reading: boolean,
): Promise<ScriptCheck[]> {
  const Refusal = reading ? ReadScriptError : WorkloadError;
  const out: ScriptCheck[] = [];
  for (const script of scripts) {
    const name = `${reading ? "read" : "workload"} script ${script.name}`;
    await cloneForRun(server, baseline);
    if (reading) await readOnlyClone(server);
    const before = await withDatabase(server, runDatabase(server), tableCounters);
    let result: PgbenchRunResult;
    try {
      result = await pgbenchOnClone(server, runner, {
        clients: 1,
        durationSeconds: 1,
        scripts: [{ name: script.name, text: script.text }],
        defines,
        log: "none",
        signal,
      });
    } catch (error) {
      if (signal?.aborted) throw error;
      const message = error instanceof Error ? error.message : String(error);
      if (reading && READ_ONLY_REFUSAL.test(message))
        throw new ReadScriptError(`${name} writes: ${sentence(message)}${readsFix}`, { cause: error });
      if (error instanceof PgbenchError && error.kind === "script")
        throw new Refusal(`${name} was rejected: ${sentence(message)}${scriptFix(message)}`, { cause: error });
      const lost = error instanceof PgbenchError && (error.kind === "connection" || error.kind === "silent");
      throw new Error(`the 1-s check of ${name} ${lost ? "lost the server" : "failed"}: ${message}`, { cause: error });
    }
    // A failed check is said from pgbench's words; the server may be gone, so its counters are not read.
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
    const after = await afterPgbench(server, tableCounters);
    const written: Record<string, number> = {};
    for (const [key, value] of counterEntries(counterDelta(before, after))) {
      const m = /^table\.(.+)\.(n_tup_ins|n_tup_upd|n_tup_del)$/.exec(key);
      if (m && value > 0) written[m[1]] = (written[m[1]] ?? 0) + value;
    }
    out.push({ name: script.name, transactions: result.summary.transactions, written });
  }
  const writes = out.find((c) => reading && Object.keys(c.written).length);
  if (writes)
    throw new ReadScriptError(
      `read script ${writes.name} writes: in its 1-s check it wrote rows (${Object.entries(writes.written)
        .map(([t, n]) => `${t} ${n}`)
        .join(", ")}) although its sessions were read-only, so it makes its transactions read-write ` +
        `(BEGIN READ WRITE or SET transaction_read_only).${readsFix}`,
    );
  return out;
}

export async function checkWorkload(
  server: StartedServer,
  runner: PgbenchRunner,
  baseline: string,
  settings: Pick<TrialSettings, "scripts" | "defines">,
  signal?: AbortSignal,
): Promise<WorkloadCheck> {
  const scripts = await checkScripts(server, runner, baseline, settings, signal, false);
  const writtenTables = [...new Set(scripts.flatMap((s) => Object.keys(s.written)))].sort();
  if (writtenTables.length === 0)
    throw new WorkloadError(
      `the workload writes nothing: in a 1-s check of each script (${scripts
        .map((s) => `${s.name}: ${s.transactions} transactions`)
        .join(", ")}) no row was inserted, updated or deleted, so no index can cost it anything`,
    );
  return { scripts, writtenTables };
}

export async function checkReads(...[server, runner, baseline, settings, signal]: Parameters<typeof checkWorkload>) {
  const checked = await checkScripts(server, runner, baseline, settings, signal, true);
  return { scripts: checked.map(({ name, transactions }) => ({ name, transactions })) };
}

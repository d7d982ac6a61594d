/** One timed run of the reader's workload on one variant, the 1-s checks before the rounds, and the plan. */
import type { OrderedTrial } from "../../../workloads/trials";
import { probeSpeed } from "../../../engines/postgres/speed-probe";
import { tableCounters, type PgTableCounterKey } from "../../../engines/postgres/table-counters";
import { timedWindow, windowFacts, type WindowFacts } from "../../../engines/postgres/timed-window";
import type { TrialRecord } from "../../../results/run-store";
import { counterDelta, counterEntries, type Counters } from "../../../stats/counters";
import { williamsDesign } from "../../../stats/williams";
import { cloneDatabase } from "../../../engines/postgres/template-database";
import type { StartedServer } from "../../../targets/types";
import type { Client } from "pg";
import { InputError } from "../../../runtime/input-error";
import { pgbenchFailureKind, pgbenchFigures, pgbenchOutcome, PgbenchError } from "../../../workloads/pgbench";
import { runPgbench, waitForPgbenchGone, type PgbenchRunner, type PgbenchRunResult } from "../../../workloads/pgbench";
import type { PgbenchFigures, PgbenchScript, RunOptions } from "../../../workloads/pgbench";
import { timed, type SecondsOf } from "../../../workloads/timed";
import type { PgbenchLoad } from "../../../workloads/pgbench-trial";
import { runDatabase } from "./databases";
import { withAdmin } from "../../../workloads/fresh-copies";
import { errorMessage } from "../../../runtime/error-message";

export type YourIndexesCondition = { readonly variant: string };

/** Where a trial's untimed seconds went: the speed probe, the clone, the window's open (autovacuum, CHECKPOINT,
 * counters) and close (counters, WAL records), pgbench's sessions ending, and the reads' own setup. */
type SetupSeconds = SecondsOf<"speed" | "clone" | "open" | "gone" | "close" | "readSetup">;

export type YourIndexesTrial = TrialRecord<YourIndexesCondition, PgTableCounterKey> &
  WindowFacts &
  SetupSeconds & {
    readonly pgbench?: PgbenchRunResult;
    readonly reads?: readonly ReadRun[];
  };

/** One read script's run after a write run: its latency, idx_scan per `<table>.<index>`, or why it gave no figures. */
export type ReadRun = {
  readonly script: string;
  readonly indexScans?: Readonly<Record<string, number>>;
  readonly error?: string;
} & Partial<Readonly<Record<keyof PgbenchFigures | "seconds", number>>>;

export type PlannedTrial = OrderedTrial<YourIndexesCondition>;

/** Rounds of B V₁ B V₂ … B Vₖ B, each variant against the baseline runs that flank it, the variants in a Williams
 * order (docs/your-indexes.md, "What runs, in order"); `from` adds round `from` alone. */
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

export interface TrialContext extends PgbenchLoad {
  readonly server: StartedServer;
  readonly runner: PgbenchRunner;
  readonly databases: ReadonlyMap<string, string>;
  readonly scripts: readonly PgbenchScript[];
  readonly defines: Readonly<Record<string, string | number>>;
  readonly walInspect: boolean;
  /** The variants whose runs count each index's own B-tree entries, one run a round: a count is a pass over the
   * window's WAL, and a with-variant's every run holds the same indexes. */
  readonly countEntriesIn: ReadonlySet<string>;
  readonly reads?: readonly PgbenchScript[];
  readonly readSeconds?: number;
  readonly signal?: AbortSignal;
  /** What the trial is doing: its phase, or pgbench's second and rate. */
  readonly onStatus?: (planned: PlannedTrial, text: string) => void;
  readonly onNote?: (text: string) => void;
}

const pgbenchOnClone = (server: StartedServer, runner: PgbenchRunner, o: Omit<RunOptions, "runner" | "database">) =>
  runPgbench(server, { runner, database: runDatabase(server), noVacuum: true, ...o });

/** One timed run: a fresh clone of the variant, counters around pgbench, the window's WAL by type, then the reads. */
export function trialRunner(ctx: TrialContext): (planned: PlannedTrial) => Promise<YourIndexesTrial> {
  const { server, ...s } = ctx;
  const counted = new Set<string>();
  return async (planned) => {
    const startedAt = new Date().toISOString();
    const round = `${planned.condition.variant}/${planned.repeat}`;
    const template = ctx.databases.get(planned.condition.variant);
    if (!template) throw new Error(`no template database for variant ${planned.condition.variant}`);
    const phase = (text: string) => ctx.onStatus?.(planned, `${text}…`);
    phase("speed probe");
    const [speed, speedSeconds] = await timed(() => probeSpeed(server.connection));
    phase("cloning");
    const cloneSeconds = await cloneDatabase(server.connection, template, runDatabase(server));
    const marks = { open: Date.now(), run: 0, gone: 0, ran: 0 };
    const window = await timedWindow({
      connection: server.connection,
      database: runDatabase(server),
      walInspect: s.walInspect,
      btreeEntries: s.countEntriesIn.has(planned.condition.variant) && !counted.has(round),
      key: planned.key,
      onNote: ctx.onNote,
      before: tableCounters,
      run: async () => {
        marks.run = Date.now();
        phase("pgbench");
        const pgbench = await pgbenchOnClone(server, ctx.runner, {
          clients: s.clients,
          threads: s.threads,
          durationSeconds: s.durationSeconds,
          scripts: s.scripts,
          defines: s.defines,
          bucketMs: 100,
          signal: ctx.signal,
          onProgress: (p) =>
            ctx.onStatus?.(planned, `${p.second.toFixed(0)} / ${s.durationSeconds} s · ${p.tps.toFixed(0)} tps`),
        });
        marks.gone = Date.now();
        await withAdmin(server, runDatabase(server), waitForPgbenchGone);
        marks.ran = Date.now();
        return pgbench;
      },
      after: tableCounters,
    });
    const closeSeconds = (Date.now() - marks.ran) / 1000;
    const pgbench = window.run;
    // The reads, after the write window closed: the write figures above are what they were without them.
    const [reads, readPhaseSeconds] = s.reads?.length ? await timed(() => readPhase(ctx, planned)) : [undefined, 0];
    const outcome = pgbenchOutcome(pgbench);
    if (window.btreeEntries && outcome.status === "ok") counted.add(round);
    // Every timed window of the trial, the reads' too: what the run's time account counts as measured.
    const readSeconds = (reads ?? []).reduce((t, r) => t + (r.seconds ?? 0), 0);
    return {
      ...planned,
      ...outcome,
      ...(outcome.status === "ok" && readSeconds > 0 ? { measuredSeconds: outcome.seconds + readSeconds } : {}),
      startedAt,
      finishedAt: new Date().toISOString(),
      counters: counterDelta(window.before, window.after),
      ...(speed ? { speed } : {}),
      pgbench,
      ...windowFacts(window),
      speedSeconds,
      cloneSeconds,
      openSeconds: (marks.run - marks.open) / 1000,
      goneSeconds: (marks.ran - marks.gone) / 1000,
      closeSeconds,
      ...(reads ? { reads, readSetupSeconds: Math.max(0, readPhaseSeconds - readSeconds) } : {}),
    };
  };
}

/** `read` on the run database once pgbench's sessions are gone (their statistics flushed). */
const afterPgbench = <T>(server: StartedServer, read: (c: Client) => Promise<T>) =>
  withAdmin(server, runDatabase(server), async (c) => {
    await waitForPgbenchGone(c);
    return read(c);
  });

/** Makes the clone's new sessions read-only: the server then refuses any write a read script tries. */
async function readOnlyClone(server: StartedServer): Promise<void> {
  const db = runDatabase(server);
  await withAdmin(server, server.connection.database, (c) =>
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
  const { server, ...s } = ctx;
  await readOnlyClone(server);
  const out: ReadRun[] = [];
  for (const script of s.reads ?? []) {
    ctx.onStatus?.(planned, `read script ${script.name}…`);
    const before = await withAdmin(server, runDatabase(server), indexScans);
    const result = await pgbenchOnClone(server, ctx.runner, {
      clients: s.clients,
      threads: s.threads,
      durationSeconds: s.readSeconds ?? 1,
      scripts: [{ name: script.name, text: script.text }],
      defines: s.defines,
      signal: ctx.signal,
    }).catch((error: unknown) => {
      if (ctx.signal?.aborted || !(error instanceof PgbenchError) || error.kind !== "script") throw error;
      out.push({ script: script.name, error: error.message });
    });
    if (!result) continue;
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

/** Rows a run wrote to each table, by pg_stat_user_tables' n_tup_ins, n_tup_upd, n_tup_del, n_tup_hot_upd. */
const WRITES = { ins: "inserted", upd: "updated", del: "deleted", hot_upd: "hotUpdated" } as const;
export type TableWrites = Readonly<Record<(typeof WRITES)[keyof typeof WRITES], number>>;
export const NO_WRITES: TableWrites = { inserted: 0, updated: 0, deleted: 0, hotUpdated: 0 };

const rowsWritten = (w: TableWrites): number => w.inserted + w.updated + w.deleted;

export function tableWrites(counters: Counters | undefined): Record<string, TableWrites> {
  const out: Record<string, TableWrites> = {};
  for (const [key, value] of counterEntries(counters)) {
    const m = /^table\.(.+)\.n_tup_(ins|upd|del|hot_upd)$/.exec(key);
    if (m) out[m[1]] = { ...(out[m[1]] ?? NO_WRITES), [WRITES[m[2] as keyof typeof WRITES]]: value };
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

const readsFix =
  " A read script's latency is what an index buys your reads, so it must only read (it runs with default_transaction_read_only = on): move the writing statements to workload, where their cost is measured, or out of the script, and start a new run.";

const sentence = (text: string) => text.replace(/\.*\s*$/, ".");

/** A failed 1-s check in pgbench's or the server's words, with what to fix where the script is at fault. */
function checkFailure(name: string, reading: boolean, said: string, lost: string, kind?: string, cause?: unknown) {
  if (reading && /read-only transaction/.test(said))
    return new ReadScriptError(`${name} writes: ${sentence(said)}${readsFix}`, { cause });
  // In pgbench's simple protocol a `:name` with no variable of that name reaches the server as written.
  const unsetVariable = /syntax error at or near ":"/.test(said)
    ? " A `:name` that pgbench has no variable for is sent as written: set it with \\set (or fix its spelling)."
    : "";
  const fix = `${unsetVariable} Fix the script and start a new run: resuming this one would run the same script again.`;
  if (kind === "script")
    return new (reading ? ReadScriptError : WorkloadError)(`${name} was rejected: ${sentence(said)}${fix}`, { cause });
  return new Error(`the 1-s check of ${name} ${lost}: ${said || "pgbench said nothing"}`, { cause });
}

export interface ScriptsCheck {
  readonly scripts: readonly { readonly name: string; readonly transactions: number; readonly written: Counts }[];
  readonly writtenTables: readonly string[];
}
type Counts = Readonly<Record<string, number>>;

/** Each script alone for 1 s on a clone of the baseline: a rejected one is refused with their words and what to fix.
 * A workload that writes nothing is refused (a write cost needs writes); so is a read script that writes, refused by
 * the server or by the rows a read-write transaction wrote. */
export async function checkScripts(
  server: StartedServer,
  runner: PgbenchRunner,
  baseline: string,
  { scripts, defines }: Pick<TrialContext, "scripts" | "defines">,
  { reading = false, signal }: { readonly reading?: boolean; readonly signal?: AbortSignal } = {},
): Promise<ScriptsCheck> {
  const out: ScriptsCheck["scripts"][number][] = [];
  for (const script of scripts) {
    const name = `${reading ? "read" : "workload"} script ${script.name}`;
    await cloneDatabase(server.connection, baseline, runDatabase(server));
    if (reading) await readOnlyClone(server);
    const before = await withAdmin(server, runDatabase(server), tableCounters);
    const result = await pgbenchOnClone(server, runner, {
      clients: 1,
      durationSeconds: 1,
      scripts: [{ name: script.name, text: script.text }],
      defines,
      log: "none",
      signal,
    }).catch((error: unknown) => {
      if (signal?.aborted) throw error;
      const kind = error instanceof PgbenchError ? error.kind : undefined;
      const lost = kind === "connection" || kind === "silent" ? "lost the server" : "failed";
      throw checkFailure(name, reading, errorMessage(error), lost, kind, error);
    });
    // A failed check is said from pgbench's words; the server may be gone, so its counters are not read.
    if (result.summary.abortedClients > 0 || result.summary.transactions === 0) {
      const kind = pgbenchFailureKind(result.messages, 2);
      throw checkFailure(name, reading, result.messages.join(" · "), "completed no transaction", kind);
    }
    const writes = tableWrites(counterDelta(before, await afterPgbench(server, tableCounters)));
    const written: Counts = Object.fromEntries(
      Object.entries(writes).flatMap(([t, w]) => (rowsWritten(w) > 0 ? [[t, rowsWritten(w)]] : [])),
    );
    const rows = Object.entries(written).map(([t, n]) => `${t} ${n}`);
    if (reading && rows.length)
      throw new ReadScriptError(
        `${name} writes: in its 1-s check it wrote rows (${rows.join(", ")}) although its sessions were read-only, ` +
          `so it makes its transactions read-write (BEGIN READ WRITE or SET transaction_read_only).${readsFix}`,
      );
    out.push({ name: script.name, transactions: result.summary.transactions, written });
  }
  const writtenTables = [...new Set(out.flatMap((s) => Object.keys(s.written)))].sort();
  const each = out.map((s) => `${s.name}: ${s.transactions} transactions`).join(", ");
  if (!reading && writtenTables.length === 0)
    throw new WorkloadError(
      `the workload writes nothing: in a 1-s check of each script (${each}) no row was inserted, updated or deleted, so no index can cost it anything`,
    );
  return { scripts: out, writtenTables };
}

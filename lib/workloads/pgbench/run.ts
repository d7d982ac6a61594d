/**
 * `initPgbench` and `runPgbench` (a timed load with progress, per-statement latencies and a
 * transaction log), on the host (registered for the reaper) or inside a docker target's container.
 */
import { spawn } from "node:child_process";
import { randomBytes } from "node:crypto";
import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import { processStartTicks } from "../../runtime/resource-registry";
import { register, unregister } from "../../runtime/resources";
import type { ConnectionInfo, StartedServer } from "../../targets/types";
import {
  connectionArgs,
  customScripts,
  initArgs,
  loadArgs,
  type PgbenchInitOptions,
  type PgbenchLoadOptions,
  type PgbenchScript,
} from "./args";
import { describeRunner, locatePgbench, type PgbenchRunner } from "./locate";
import {
  aggregateSeries,
  latencyDistribution,
  parseAggregateLog,
  parseTransactionLog,
  transactionSeries,
} from "./parse-log";
import { parseProgressLine, parseSummary } from "./parse-output";
import type { PgbenchLogMode, PgbenchRunResult, ProgressPoint } from "./types";
import { ignored } from "../../runtime/debug";
import { noteProgress } from "../watchdog";
import { keepRawOutput } from "../raw-output";
import { redactText } from "../../targets/uri";

export interface RunOptions extends PgbenchLoadOptions {
  /** Default "transactions": exact percentiles and per-bucket series. */
  readonly log?: PgbenchLogMode;
  /** `--sampling-rate` (default 1). */
  readonly samplingRate?: number;
  /** ms (default 1000). */
  readonly bucketMs?: number;
  readonly signal?: AbortSignal;
  /** Called with the wall-clock start (Unix ms). */
  readonly onStart?: (startedAtMs: number) => void;
  /** Host runs; a container run reports them at the end. */
  readonly onProgress?: (point: ProgressPoint) => void;
  /** Default: `locatePgbench`. */
  readonly runner?: PgbenchRunner;
}

export interface InitResult {
  readonly seconds: number;
  readonly steps: Readonly<Record<string, number>>;
  readonly runner: string;
  readonly version: string;
}

interface RawRun {
  readonly exitCode: number;
  readonly stdout: string;
  readonly stderr: string;
  readonly startedAtMs: number;
  readonly finishedAtMs: number;
  readonly logs: readonly string[];
}

export class PgbenchAbortedError extends Error {
  override readonly name = "AbortError";
  constructor() {
    super("pgbench was stopped (aborted by the caller)");
  }
}

/** Why a run gave no result, from pgbench's words: `script` (repeats on every run), `connection`, `silent`, `other`. */
export type PgbenchFailureKind = "script" | "connection" | "silent" | "other";

/** A pgbench run that gave no result; the message's first line carries pgbench's own words. */
export class PgbenchError extends Error {
  override readonly name = "PgbenchError";
  constructor(
    message: string,
    readonly kind: PgbenchFailureKind,
    readonly exitCode: number,
    readonly said: readonly string[],
  ) {
    super(message);
  }
}

// libpq's words for a lost or unmade connection, and a server going away.
const CONNECTION_WORDS =
  /server closed the connection|could not (receive|send) data|connection to server .* failed|could not connect|Connection refused|no connection to the server|terminating connection|the database system is (shutting down|starting up|in recovery mode)|SSL SYSCALL error|Connection timed out|timeout expired/i;

export function pgbenchFailureKind(said: readonly string[], exitCode: number): PgbenchFailureKind {
  const text = said.join(" · ");
  if (CONNECTION_WORDS.test(text)) return "connection";
  if (/\bERROR:\s/.test(text) || (exitCode === 1 && /error/i.test(text))) return "script";
  return said.length === 0 && exitCode !== 0 ? "silent" : "other";
}

/** The error of a run without "tps = " or failing with no aborted client; pgbench's words on the first line. */
export function pgbenchFailure(exitCode: number, stdout: string, stderr: string): PgbenchError {
  const said = stderr
    .split("\n")
    .map((l) => l.trim())
    .filter((l) => l && !/^\^+$/.test(l) && !parseProgressLine(l) && !/^pgbench \(|^starting vacuum/.test(l))
    .slice(-10);
  const text = said.join(" · ");
  const kind = pgbenchFailureKind(said, exitCode);
  const lead =
    exitCode === 0 && said.length === 0
      ? "pgbench finished without completing a transaction"
      : kind === "script"
        ? "pgbench could not run the script"
        : kind === "connection"
          ? "pgbench lost its connection to the server (or never made it)"
          : kind === "silent"
            ? "pgbench ended without a result and without a word of error (a server that went away under it leaves it none)"
            : "pgbench failed";
  const out = stdout.trim().split("\n").slice(-3).join(" · ");
  return new PgbenchError(
    `${lead} (exit ${exitCode}${/^tps = /m.test(stdout) ? "" : ', no "tps = " line'})${text ? `: ${text}` : out ? `; its output ends with: ${out}` : ""}`,
    kind,
    exitCode,
    said,
  );
}

/**
 * A client tool's environment: the server's libpq settings and the password, in this child only. No PG*
 * variable is inherited (the user's would change what is measured); PGAPPNAME unset, so sessions are "pgbench".
 */
export function clientToolEnv(connection: Pick<ConnectionInfo, "password" | "libpqEnvironment">): NodeJS.ProcessEnv {
  return {
    PATH: process.env.PATH,
    HOME: process.env.HOME,
    LANG: "C",
    LC_ALL: "C",
    ...connection.libpqEnvironment,
    PGPASSWORD: connection.password,
  };
}

function runOnHost(
  file: string,
  args: readonly string[],
  connection: Pick<ConnectionInfo, "password" | "libpqEnvironment">,
  workDir: string,
  options: { signal?: AbortSignal; onStart?: (ms: number) => void; onLine?: (line: string) => void; timeoutMs: number },
): Promise<Omit<RawRun, "logs">> {
  return new Promise((resolve, reject) => {
    if (options.signal?.aborted) return reject(new PgbenchAbortedError());
    const startedAtMs = Date.now();
    // Own process group: the notebook's Stop (SIGINT to the kernel's group) must end pgbench through onAbort.
    const child = spawn(file, [...args], {
      cwd: workDir,
      env: clientToolEnv(connection),
      stdio: ["ignore", "pipe", "pipe"],
      detached: true,
    });
    const recordId = child.pid
      ? register({
          type: "process",
          pid: child.pid,
          pidStartTicks: processStartTicks(child.pid),
          directory: workDir,
          description: `pgbench pid ${child.pid} (${args.slice(0, 6).join(" ")} …)`,
        })
      : undefined;
    options.onStart?.(startedAtMs);
    let stdout = "";
    let stderr = "";
    let partial = "";
    let aborted = false;
    child.stdout.setEncoding("utf8").on("data", (d: string) => (stdout += d));
    child.stderr.setEncoding("utf8").on("data", (d: string) => {
      stderr += d;
      const lines = (partial + d).split("\n");
      partial = lines.pop() ?? "";
      for (const line of lines) options.onLine?.(line);
    });
    const stop = (signal: NodeJS.Signals) => {
      if (child.exitCode === null && child.signalCode === null) child.kill(signal);
    };
    const onAbort = () => {
      aborted = true;
      stop("SIGINT");
      setTimeout(() => stop("SIGKILL"), 5000).unref();
    };
    options.signal?.addEventListener("abort", onAbort, { once: true });
    // A wedged pgbench must not hang the notebook forever.
    const watchdog = setTimeout(() => {
      stderr += `\n(db-write-lab: pgbench ran ${Math.round(options.timeoutMs / 1000)} s past its duration and was stopped)`;
      stop("SIGTERM");
      setTimeout(() => stop("SIGKILL"), 5000).unref();
    }, options.timeoutMs);
    watchdog.unref();
    // `on`, not `once`: a later error must not be uncaught.
    child.on("error", (error) => {
      clearTimeout(watchdog);
      if (recordId) unregister(recordId);
      reject(error);
    });
    child.once("close", (code, signal) => {
      clearTimeout(watchdog);
      options.signal?.removeEventListener("abort", onAbort);
      if (recordId) unregister(recordId);
      if (partial) options.onLine?.(partial);
      if (aborted) return reject(new PgbenchAbortedError());
      resolve({ exitCode: code ?? (signal ? 128 : -1), stdout, stderr, startedAtMs, finishedAtMs: Date.now() });
    });
  });
}

/** pgbench's log files, or undefined when the directory is gone (pgbench's own error is then reported). */
function readLogs(dir: string, prefix: string): string[] | undefined {
  try {
    return fs
      .readdirSync(dir)
      .filter((f) => f.startsWith(`${prefix}.`))
      .map((f) => fs.readFileSync(path.join(dir, f), "utf8"));
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === "ENOENT") return undefined;
    throw error;
  }
}

async function runInContainer(
  runner: Extract<PgbenchRunner, { kind: "container" }>,
  buildArgs: (dir: string) => string[],
  password: string,
  scripts: readonly PgbenchScript[],
  signal: AbortSignal | undefined,
  onStart?: (ms: number) => void,
): Promise<RawRun> {
  const server = runner.server;
  const dir = `/tmp/dblab-pgbench-${randomBytes(4).toString("hex")}`;
  const sh = (command: string, ...params: string[]) => server.exec(["sh", "-c", command, "sh", ...params]);
  await sh('mkdir -p "$1"', dir);
  for (const script of scripts) {
    // No stdin on exec: the script travels base64-encoded as an argument.
    await sh('printf %s "$1" | base64 -d > "$2"', Buffer.from(script.text).toString("base64"), `${dir}/${script.name}`);
  }
  const onAbort = () => void sh('kill -INT "$(cat "$1/pid")" 2>/dev/null', dir).catch(ignored("pgbench: kill -INT"));
  signal?.addEventListener("abort", onAbort, { once: true });
  try {
    const startedAtMs = Date.now();
    onStart?.(startedAtMs);
    const result = await server.exec(
      ["sh", "-c", 'echo $$ > "$0/pid"; cd "$0" && exec pgbench "$@"', dir, ...buildArgs(dir)],
      {
        env: [`PGPASSWORD=${password}`],
      },
    );
    const finishedAtMs = Date.now();
    if (signal?.aborted) throw new PgbenchAbortedError();
    const listing = await sh('for f in "$1"/tx.* "$1"/agg.*; do [ -f "$f" ] && cat "$f" && echo; done; true', dir);
    return { ...result, startedAtMs, finishedAtMs, logs: [listing.stdout] };
  } finally {
    signal?.removeEventListener("abort", onAbort);
    await sh('rm -rf "$1"', dir).catch(ignored("pgbench: remove its directory in the container"));
  }
}

function target(
  server: StartedServer,
  runner: PgbenchRunner,
  database: string | undefined,
): { conn: string[]; db: string; password: string } {
  const c: ConnectionInfo = server.connection;
  const conn =
    runner.kind === "host" ? connectionArgs(c.host, c.port, c.user) : connectionArgs("127.0.0.1", runner.port, c.user);
  return { conn, db: database ?? c.database, password: c.password };
}

export async function initPgbench(
  server: StartedServer,
  o: PgbenchInitOptions,
  runner?: PgbenchRunner,
): Promise<InitResult> {
  const r = runner ?? (await locatePgbench(server));
  const { conn, db, password } = target(server, r, o.database);
  const args = [...initArgs(o), ...conn, db];
  const started = Date.now();
  let raw: { exitCode: number; stdout: string; stderr: string };
  if (r.kind === "host") {
    const dir = fs.mkdtempSync(path.join(os.tmpdir(), "dblab-pgbench-init-"));
    try {
      raw = await runOnHost(r.path, args, server.connection, dir, { timeoutMs: 24 * 3600_000, signal: o.signal });
    } finally {
      fs.rmSync(dir, { recursive: true, force: true });
    }
  } else {
    raw = await r.server.exec(["pgbench", ...args], { env: [`PGPASSWORD=${password}`] });
  }
  if (raw.exitCode !== 0) {
    throw new Error(
      `pgbench -i failed (exit ${raw.exitCode}):\n${(raw.stderr || raw.stdout).trim().split("\n").slice(-10).join("\n")}`,
    );
  }
  const done = /done in ([\d.]+) s \(([^)]*)\)/.exec(raw.stderr + raw.stdout);
  const steps: Record<string, number> = {};
  for (const part of done?.[2].split(",") ?? []) {
    const m = /^\s*(.*\S)\s+([\d.]+) s\s*$/.exec(part);
    if (m) steps[m[1]] = Number(m[2]);
  }
  return {
    seconds: done ? Number(done[1]) : (Date.now() - started) / 1000,
    steps,
    runner: describeRunner(r),
    version: r.version,
  };
}

export async function runPgbench(server: StartedServer, o: RunOptions): Promise<PgbenchRunResult> {
  const runner = o.runner ?? (await locatePgbench(server));
  const { conn, db, password } = target(server, runner, o.database);
  const mode = o.log ?? "transactions";
  const samplingRate = o.samplingRate ?? 1;
  const bucketMs = o.bucketMs ?? 1000;
  const progress: ProgressPoint[] = [];
  const messages: string[] = [];
  let startedAt = 0;
  const onLine = (line: string) => {
    const p = parseProgressLine(line, startedAt || undefined);
    if (p) {
      progress.push(p);
      if (p.tps > 0) noteProgress(); // the stall watchdog: a frozen server still gets 0-tps lines
      o.onProgress?.(p);
    } else if (line.trim()) {
      messages.push(line.trim());
    }
  };
  const prefix = mode === "aggregate" ? "agg" : "tx";
  const argsFor = (dir: string) => [
    ...loadArgs(
      o,
      { mode, prefix: path.posix.join(dir, prefix), samplingRate, aggregateSeconds: bucketMs / 1000 },
      (name) => path.posix.join(dir, name),
    ),
    ...conn,
    db,
  ];
  if (mode === "aggregate" && (bucketMs % 1000 !== 0 || bucketMs < 1000)) {
    throw new Error(`an aggregated pgbench log has whole-second intervals; bucketMs ${bucketMs} is not one`);
  }
  let raw: RawRun;
  let args: string[];
  let logsLost: string | undefined;
  if (runner.kind === "host") {
    const dir = fs.mkdtempSync(path.join(os.tmpdir(), "dblab-pgbench-"));
    try {
      for (const script of customScripts(o)) fs.writeFileSync(path.join(dir, script.name), script.text);
      args = argsFor(dir);
      const run = await runOnHost(runner.path, args, server.connection, dir, {
        signal: o.signal,
        onStart: (ms) => {
          startedAt = ms;
          o.onStart?.(ms);
        },
        onLine,
        timeoutMs: (o.durationSeconds + 120) * 1000,
      });
      const logs = mode === "none" ? [] : readLogs(dir, prefix);
      logsLost = logs === undefined ? dir : undefined;
      raw = { ...run, logs: logs ?? [] };
    } finally {
      fs.rmSync(dir, { recursive: true, force: true });
    }
  } else {
    let dirUsed = "";
    raw = await runInContainer(
      runner,
      (dir) => {
        dirUsed = dir;
        return argsFor(dir);
      },
      password,
      customScripts(o),
      o.signal,
      (ms) => {
        startedAt = ms;
        o.onStart?.(ms);
      },
    );
    args = argsFor(dirUsed);
    for (const line of raw.stderr.split("\n")) onLine(line);
  }
  // Kept per trial (raw-output.ts); URIs in errors are redacted.
  keepRawOutput("pgbench", [
    { name: "command.txt", text: `pgbench ${redactText(args.join(" "))}\n` },
    { name: "stdout.txt", text: raw.stdout },
    { name: "stderr.txt", text: redactText(raw.stderr) },
    ...raw.logs.map((text, i) => ({ name: `${prefix}-log-${i + 1}.txt`, text })),
  ]);
  if (!/^tps = /m.test(raw.stdout)) throw pgbenchFailure(raw.exitCode, raw.stdout, raw.stderr);
  const summary = parseSummary(raw.stdout, raw.stderr);
  if (raw.exitCode !== 0 && summary.abortedClients === 0) throw pgbenchFailure(raw.exitCode, raw.stdout, raw.stderr);
  // pgbench's own error is the cause when there is one.
  if (logsLost !== undefined)
    throw new Error(`pgbench finished, but its log directory ${logsLost} was gone before its logs were read`);
  const text = raw.logs.join("\n");
  let series: PgbenchRunResult["series"] = [];
  let latency: PgbenchRunResult["latency"];
  let loadStartedAtMs = raw.startedAtMs;
  if (mode === "transactions") {
    const transactions = parseTransactionLog(text);
    const ok = transactions.filter((t) => !t.failed);
    // -T counts from the clients' start: anchor the buckets there, not at the spawn.
    if (ok.length) loadStartedAtMs = ok.reduce((a, t) => Math.min(a, t.endMs - t.latencyMs), Infinity);
    series = transactionSeries(
      transactions,
      loadStartedAtMs,
      loadStartedAtMs + o.durationSeconds * 1000,
      bucketMs,
      samplingRate,
    );
    latency = latencyDistribution(transactions, samplingRate);
  } else if (mode === "aggregate") {
    series = aggregateSeries(parseAggregateLog(text), raw.startedAtMs, bucketMs / 1000);
  }
  return {
    args,
    runner: describeRunner(runner),
    version: runner.version,
    startedAtMs: raw.startedAtMs,
    loadStartedAtMs,
    finishedAtMs: raw.finishedAtMs,
    summary,
    progress,
    series,
    latency,
    messages: messages.filter((m) => !/^pgbench \(|^starting vacuum/.test(m)).slice(-20),
  };
}

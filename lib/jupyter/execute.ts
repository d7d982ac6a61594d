/** Runs one notebook headless with nbclient: the executed .ipynb is saved even when a cell fails. */
import { spawn, spawnSync } from "node:child_process";
import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import readline from "node:readline";
import { ensureKernelSpec, KERNEL_NAME, projectRoot } from "./kernel-spec";
import { injectParameters, type NotebookJson } from "./inject-parameters";

export const INSTALL_HINT =
  "apt-get install jupyter-notebook jupyter-nbconvert python3-nbclient (Debian/Ubuntu), " +
  "or point DBLAB_PYTHON at a Python that can `import nbclient, nbconvert`";

export class JupyterUnavailableError extends Error {
  override readonly name = "JupyterUnavailableError";
}

let cachedPython: string | undefined;

/** $DBLAB_PYTHON, /usr/bin/python3, PATH; else JupyterUnavailableError. */
export function findPython(): string {
  if (cachedPython) return cachedPython;
  const fromEnv = process.env.DBLAB_PYTHON;
  const candidates = fromEnv ? [fromEnv] : ["/usr/bin/python3", "python3"];
  const tried: string[] = [];
  for (const py of candidates) {
    const r = spawnSync(py, ["-c", "import nbclient, nbconvert, nbformat"], { encoding: "utf8", timeout: 30_000 });
    if (r.status === 0) {
      cachedPython = py;
      return py;
    }
    const why = r.error
      ? ((r.error as NodeJS.ErrnoException).code ?? r.error.message)
      : (r.stderr.trim().split("\n").pop() ?? "");
    tried.push(`${py} (${why})`);
  }
  throw new JupyterUnavailableError(
    `No Python with nbclient/nbconvert found; tried ${tried.join("; ")}. Install it: ${INSTALL_HINT}` +
      (fromEnv ? ". (DBLAB_PYTHON is set, so only it was tried.)" : "."),
  );
}

export type ExecutorEvent =
  | { event: "kernel"; pid: number | null; seconds: number }
  | { event: "cell"; index: number; count: number; phase: "start" | "end"; cell: number }
  | {
      event: "error";
      cell: number | null;
      index: number | null;
      count: number;
      ename: string;
      evalue: string;
      source_head: string;
    }
  | { event: "interrupted"; signal: number }
  | { event: "report_error"; message: string }
  | { event: "fatal"; message: string }
  | { event: "saved"; ipynb: string; html: string | null };

export interface CellFailure {
  /** The executed notebook holds the injected cell. */
  readonly cell: number | null;
  readonly codeIndex: number | null;
  readonly codeCount: number;
  readonly ename: string;
  readonly evalue: string;
  readonly sourceHead: string;
}

export interface ExecuteOptions {
  readonly notebook: string;
  readonly outputIpynb: string;
  readonly outputHtml?: string;
  readonly profile: string;
  readonly overrides?: Record<string, unknown>;
  readonly hideCode?: boolean;
  /** Seconds; 0 = none. */
  readonly cellTimeoutSec?: number;
  readonly startupTimeoutSec?: number;
  /** On abort the kernel gets SIGTERM and this long to release its servers. */
  readonly stopGraceSec?: number;
  readonly env?: Record<string, string>;
  readonly onEvent?: (event: ExecutorEvent) => void;
  /** The result is then "interrupted". */
  readonly signal?: AbortSignal;
  readonly logFile?: string;
}

export interface ExecuteResult {
  readonly status: "ok" | "failed" | "interrupted";
  readonly exitCode: number | null;
  readonly durationMs: number;
  readonly kernelStartMs: number | null;
  /** ms from the executor's start. */
  readonly cellTimes: readonly CellTime[];
  readonly cellsDone: number;
  readonly cellCount: number;
  readonly failure?: CellFailure;
  /** Kernel start, report export. */
  readonly message?: string;
  readonly outputIpynb: string;
  readonly outputHtml?: string;
  readonly logFile: string;
}

export interface CellTime {
  /** 1-based, as the progress line counts. */
  readonly ordinal: number;
  readonly head: string;
  readonly startMs: number;
  readonly endMs: number | null;
}

export function describeFailure(f: CellFailure): string {
  const where =
    f.cell === null
      ? "before any cell ran"
      : `cell ${f.cell} (code cell ${(f.codeIndex ?? 0) + 1} of ${f.codeCount}: \`${f.sourceHead}\`)`;
  return `${where}: ${f.ename}${f.evalue ? `: ${f.evalue}` : ""}`;
}

export async function executeNotebook(opts: ExecuteOptions): Promise<ExecuteResult> {
  const root = projectRoot();
  const python = findPython();
  const spec = ensureKernelSpec(root);
  const source = path.resolve(opts.notebook);
  const notebookJson = JSON.parse(fs.readFileSync(source, "utf8")) as NotebookJson;
  const injected = injectParameters(notebookJson, opts.profile, opts.overrides ?? {}, path.basename(source));

  const outputIpynb = path.resolve(opts.outputIpynb);
  const outputHtml = opts.outputHtml ? path.resolve(opts.outputHtml) : undefined;
  const logFile = path.resolve(opts.logFile ?? outputIpynb.replace(/\.ipynb$/, "") + ".log");
  if (outputIpynb === source) throw new Error(`outputIpynb must differ from the notebook itself (${source})`);
  for (const f of [outputIpynb, outputHtml, logFile]) if (f) fs.mkdirSync(path.dirname(f), { recursive: true });
  // Relative imports still resolve from the original's folder.
  fs.writeFileSync(outputIpynb, JSON.stringify(injected, null, 1) + "\n");
  if (outputHtml) fs.rmSync(outputHtml, { force: true });

  const stopGraceSec = opts.stopGraceSec ?? 30;
  const args = [
    path.join(root, "scripts", "execute_notebook.py"),
    outputIpynb,
    "--output",
    outputIpynb,
    "--cwd",
    path.dirname(source),
    "--kernel",
    KERNEL_NAME,
    "--timeout",
    String(opts.cellTimeoutSec ?? 3600),
    "--startup-timeout",
    String(opts.startupTimeoutSec ?? 120),
    "--stop-grace",
    String(stopGraceSec),
  ];
  if (outputHtml) args.push("--html", outputHtml);
  if (opts.hideCode) args.push("--hide-code");
  // The kernel's Unix sockets (execute_notebook.py says why), made here so that they are removed here
  // even when the executor is killed first; a socket's path holds 107 bytes, so a deep TMPDIR gives way.
  const tmp = opts.env?.TMPDIR ?? os.tmpdir();
  const sockets = fs.mkdtempSync(path.join(tmp.length > 70 ? "/tmp" : tmp, "dblab-kernel-"));
  args.push("--sockets", sockets);

  const started = Date.now();
  const log = fs.openSync(logFile, "w");
  const child = spawn(python, args, {
    cwd: path.dirname(source),
    env: { ...process.env, ...spec.env, ...opts.env, PYTHONUNBUFFERED: "1" },
    stdio: ["ignore", "pipe", log],
    // Own process group: a terminal's Ctrl-C reaches only us, and we stop the executor in order.
    detached: true,
  });
  fs.closeSync(log);

  let kernelPid: number | null = null;
  let kernelStartMs: number | null = null;
  let cellsDone = 0;
  const cellTimes: CellTime[] = [];
  let cellCount = injected.cells.filter((c) => c.cell_type === "code").length;
  let failure: CellFailure | undefined;
  let message: string | undefined;
  let aborted = false;

  if (!child.stdout) throw new Error("the notebook runner has no stdout pipe");
  const lines = readline.createInterface({ input: child.stdout });
  lines.on("line", (line) => {
    let event: ExecutorEvent;
    try {
      event = JSON.parse(line) as ExecutorEvent;
    } catch {
      fs.appendFileSync(logFile, `[stdout] ${line}\n`);
      return;
    }
    switch (event.event) {
      case "kernel":
        kernelPid = event.pid;
        kernelStartMs = Math.round(event.seconds * 1000);
        break;
      case "cell": {
        cellCount = event.count;
        if (event.phase === "end") cellsDone = event.index + 1;
        const at = Date.now() - started;
        if (event.phase === "start")
          cellTimes.push({
            ordinal: event.index + 1,
            head: headOf(injected.cells[event.cell]?.source),
            startMs: at,
            endMs: null,
          });
        else {
          const i = cellTimes.findIndex((c) => c.ordinal === event.index + 1 && c.endMs === null);
          if (i >= 0) cellTimes[i] = { ...cellTimes[i], endMs: at };
        }
        break;
      }
      case "error":
        failure = {
          cell: event.cell,
          codeIndex: event.index,
          codeCount: event.count,
          ename: event.ename,
          evalue: event.evalue,
          sourceHead: event.source_head,
        };
        break;
      case "report_error":
      case "fatal":
        message = event.message;
        break;
    }
    opts.onEvent?.(event);
  });

  let killTimer: NodeJS.Timeout | undefined;
  const onAbort = (): void => {
    aborted = true;
    try {
      child.kill("SIGTERM"); // the executor stops its kernel, saves the notebook and exits
    } catch {
      /* already gone */
    }
    killTimer = setTimeout(
      () => {
        for (const pid of [kernelPid ? -kernelPid : 0, -(child.pid ?? 0)]) {
          if (!pid) continue;
          try {
            process.kill(pid, "SIGKILL");
          } catch {
            /* already gone */
          }
        }
      },
      (stopGraceSec + 15) * 1000,
    );
    killTimer.unref();
  };
  if (opts.signal?.aborted) onAbort();
  opts.signal?.addEventListener("abort", onAbort, { once: true });

  const exitCode = await new Promise<number | null>((resolve) => {
    child.on("error", (err) => {
      message = `cannot start ${python}: ${err.message}`;
      resolve(null);
    });
    child.on("close", (code, sig) => resolve(code ?? (sig ? 128 + (os.constants.signals[sig] ?? 0) : null)));
  });
  opts.signal?.removeEventListener("abort", onAbort);
  if (killTimer) clearTimeout(killTimer);
  fs.rmSync(sockets, { recursive: true, force: true });

  const status: ExecuteResult["status"] =
    aborted || (exitCode ?? 0) >= 128 ? "interrupted" : exitCode === 0 ? "ok" : "failed";
  if (aborted && !failure) {
    message = `stopped by a signal${kernelStartMs === null ? " while the kernel was starting" : ""}`;
  } else if (status !== "ok" && !failure && !message) {
    const tail = fs.readFileSync(logFile, "utf8").trim().split("\n").slice(-5).join("\n");
    message = `executor exited with ${exitCode}${tail ? `:\n${tail}` : ""}`;
  }
  return {
    status,
    exitCode,
    durationMs: Date.now() - started,
    kernelStartMs,
    cellTimes,
    cellsDone,
    cellCount,
    failure,
    message,
    outputIpynb,
    outputHtml: outputHtml && fs.existsSync(outputHtml) ? outputHtml : undefined,
    logFile,
  };
}

export function jupyterUnavailableReason(): string | undefined {
  try {
    findPython();
    return undefined;
  } catch (e) {
    if (e instanceof JupyterUnavailableError) return e.message;
    throw e;
  }
}

function headOf(source: string | readonly string[] | undefined): string {
  const text = Array.isArray(source) ? source.join("") : typeof source === "string" ? source : "";
  const line =
    text
      .split("\n")
      .find((l) => l.trim() !== "")
      ?.trim() ?? "";
  return line.length > 60 ? `${line.slice(0, 59)}…` : line;
}

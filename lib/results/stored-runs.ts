/**
 * Stored runs as a comparison reads them, read only and defensively: a removed, half-written or
 * older-format run directory is described, never a crash.
 */
import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import type { RunMetadata } from "./metadata";
import { resultsRoot, type TrialRecord } from "./run-store";
import { readTimeAccount, type TimeAccount } from "./time-account";

/**
 * finished; in progress (owner alive here); stopped (error, interrupt, or owner gone: its finished
 * trials are valid); unknown end (no finishedAt recorded); half-written (no readable metadata); removed.
 */
export type RunState = "finished" | "in progress" | "stopped" | "unknown end" | "half-written" | "removed";

export interface VerdictRow {
  readonly id: string;
  readonly claim: string;
  readonly verdict: string;
  readonly why: string;
}

export interface StoredRun {
  readonly id: string;
  readonly directory: string;
  readonly state: RunState;
  readonly stateWhy: string;
  readonly notebook: string;
  readonly notebookId: string;
  readonly startedAt?: string;
  readonly metadata?: RunMetadata & Readonly<Record<string, unknown>>;
  readonly params?: Readonly<Record<string, unknown>>;
  readonly trials: readonly TrialRecord[];
  readonly verdicts?: readonly VerdictRow[];
  readonly problems: readonly string[];
  readonly time?: TimeAccount;
}

/** Bad input to a comparison: the CLI exits with status 2. */
export class CompareInputError extends Error {
  override readonly name = "CompareInputError";
}

function readJson(file: string, problems: string[]): unknown {
  if (!fs.existsSync(file)) return undefined;
  try {
    return JSON.parse(fs.readFileSync(file, "utf8")) as unknown;
  } catch (error) {
    problems.push(`${path.basename(file)} unreadable: ${(error as Error).message}`);
    return undefined;
  }
}

const isRecord = (v: unknown): v is Record<string, unknown> => typeof v === "object" && v !== null && !Array.isArray(v);
const text = (v: unknown): string =>
  typeof v === "string" ? v : v === undefined || v === null ? "" : JSON.stringify(v);

/** The claims' verdicts wherever summary.json keeps them (objects with `verdict` and `id`/`claim`). */
export function findVerdicts(summary: unknown): VerdictRow[] | undefined {
  const found: VerdictRow[] = [];
  const walk = (v: unknown, depth: number): void => {
    if (depth > 4) return;
    if (Array.isArray(v)) {
      const rows = v.filter(
        (x): x is Record<string, unknown> =>
          isRecord(x) && typeof x.verdict === "string" && (x.id !== undefined || x.claim !== undefined),
      );
      if (rows.length) {
        for (const r of rows) {
          found.push({
            id: text(r.id ?? r.claim),
            claim: text(r.claim ?? r.id),
            verdict: text(r.verdict),
            why: text(r.why),
          });
        }
        return;
      }
      for (const x of v) walk(x, depth + 1);
    } else if (isRecord(v)) {
      for (const x of Object.values(v)) walk(x, depth + 1);
    }
  };
  walk(summary, 0);
  return found.length ? found : undefined;
}

function readTrials(file: string, problems: string[]): TrialRecord[] {
  if (!fs.existsSync(file)) return [];
  const out: TrialRecord[] = [];
  const lines = fs.readFileSync(file, "utf8").split("\n");
  lines.forEach((line, i) => {
    if (!line.trim()) return;
    try {
      const t = JSON.parse(line) as unknown;
      if (isRecord(t) && isRecord(t.condition) && typeof t.key === "string") out.push(t as unknown as TrialRecord);
      else problems.push(`trials.jsonl line ${i + 1} is not a trial`);
    } catch {
      problems.push(`trials.jsonl line ${i + 1} is torn (the run was stopped mid-write)`);
    }
  });
  return out;
}

function processAlive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch (error) {
    // EPERM: it exists but belongs to someone else.
    return (error as NodeJS.ErrnoException).code === "EPERM";
  }
}

function notebookFromId(id: string): string {
  return /_(\d\d-[a-z0-9-]+)_[0-9a-f]+$/.exec(id)?.[1] ?? "";
}

export function readRun(directory: string): StoredRun {
  const id = path.basename(directory);
  const problems: string[] = [];
  const base = { id, directory, problems };
  if (!fs.existsSync(directory)) {
    const notebook = notebookFromId(id);
    return {
      ...base,
      state: "removed",
      stateWhy: "the directory is gone",
      notebook,
      notebookId: notebook.slice(0, 2),
      trials: [],
    };
  }
  const meta = readJson(path.join(directory, "metadata.json"), problems);
  const params = readJson(path.join(directory, "params.json"), problems);
  const trials = readTrials(path.join(directory, "trials.jsonl"), problems);
  const summary = readJson(path.join(directory, "summary.json"), problems);
  const timeAccount = readTimeAccount(directory);
  const metadata =
    isRecord(meta) && typeof meta.notebook === "string" ? (meta as unknown as StoredRun["metadata"]) : undefined;
  const notebook = metadata?.notebook ?? notebookFromId(id);
  let state: RunState;
  let stateWhy: string;
  if (!metadata) {
    state = "half-written";
    stateWhy = fs.existsSync(path.join(directory, "metadata.json"))
      ? "metadata.json is unreadable"
      : "no metadata.json (the run stopped before its servers started, or the copy is partial)";
  } else if (metadata.finishedAt) {
    state = metadata.outcome === undefined || metadata.outcome === "finished" ? "finished" : "stopped";
    stateWhy =
      state === "finished" ? `finished ${metadata.finishedAt}` : `${metadata.outcome} at ${metadata.finishedAt}`;
  } else if (metadata.owner) {
    const here = metadata.owner.host === os.hostname();
    if (here && processAlive(metadata.owner.pid)) {
      state = "in progress";
      stateWhy = `no finishedAt, and its process ${metadata.owner.pid} is alive`;
    } else if (here) {
      state = "stopped";
      stateWhy = `no finishedAt, and its process ${metadata.owner.pid} is gone (killed?)`;
    } else {
      state = "unknown end";
      stateWhy = `no finishedAt; written on host ${metadata.owner.host}, whose processes this one cannot see`;
    }
  } else {
    state = "unknown end";
    stateWhy = "recorded before runs noted when they finished";
  }
  return {
    ...base,
    state,
    stateWhy,
    notebook,
    notebookId: /^\d\d/.exec(notebook)?.[0] ?? "",
    startedAt: metadata?.startedAt,
    metadata,
    params: isRecord(params) ? params : undefined,
    trials,
    verdicts: findVerdicts(summary),
    ...(timeAccount ? { time: timeAccount } : {}),
  };
}

export function listRuns(root = resultsRoot()): StoredRun[] {
  if (!fs.existsSync(root)) return [];
  const dirs = fs
    .readdirSync(root, { withFileTypes: true })
    .filter((d) => d.isDirectory() && !d.name.startsWith("."))
    .map((d) => d.name);
  return dirs
    .map((d) => readRun(path.join(root, d)))
    .map((run) => ({ run, time: startTime(run) }))
    .sort((a, b) => b.time - a.time || (a.run.id < b.run.id ? 1 : -1))
    .map((x) => x.run);
}

function startTime(r: StoredRun): number {
  if (r.startedAt && Number.isFinite(Date.parse(r.startedAt))) return Date.parse(r.startedAt);
  const m = /^(\d{4})(\d\d)(\d\d)T(\d\d)(\d\d)(\d\d)/.exec(r.id);
  if (m) return Date.UTC(+m[1], +m[2] - 1, +m[3], +m[4], +m[5], +m[6]);
  try {
    return fs.statSync(r.directory).mtimeMs;
  } catch {
    return 0;
  }
}

const LATEST = /^latest(?:\s+of)?(?:\s+notebook)?[\s:]*(\d{1,2})$/i;

/** A run by id, unique prefix, path or "latest of notebook NN"; else CompareInputError with the candidates. */
export function resolveRun(ref: string, root = resultsRoot()): StoredRun {
  const wanted = ref.trim();
  if (!wanted) throw new CompareInputError("an empty run name");
  const latest = LATEST.exec(wanted);
  if (latest) {
    const nb = latest[1].padStart(2, "0");
    const candidates = listRuns(root).filter(
      (r) => r.notebookId === nb && r.state !== "removed" && r.state !== "half-written",
    );
    // A run that stopped early is not what "latest" means.
    const done = candidates.find((r) => r.state === "finished" || r.state === "unknown end");
    if (!done) {
      const busy = candidates.length ? ` (${candidates.length} in progress or stopped early)` : "";
      throw new CompareInputError(`"${ref}": no finished run of notebook ${nb} in ${root}${busy}`);
    }
    return done;
  }
  if (wanted.includes("/") && fs.existsSync(wanted) && fs.statSync(wanted).isDirectory())
    return readRun(path.resolve(wanted));
  if (!/^[A-Za-z0-9_.-]+$/.test(wanted))
    throw new CompareInputError(`"${ref}" is not a run id, a prefix of one, or "latest of notebook NN"`);
  const exact = path.join(root, wanted);
  if (fs.existsSync(exact)) return readRun(exact);
  const names = fs.existsSync(root) ? fs.readdirSync(root).filter((n) => n.startsWith(wanted)) : [];
  if (names.length === 1) return readRun(path.join(root, names[0]));
  if (names.length > 1) {
    const shown = names.sort().slice(0, 8).join("\n  ");
    throw new CompareInputError(`"${ref}" names ${names.length} runs; give more of the id:\n  ${shown}`);
  }
  throw new CompareInputError(`no run "${ref}" in ${root} (\`npm run runs\` lists them)`);
}

/** Refuses what cannot be compared; early-stopped or unknown-end runs come with a warning. */
export function resolveForComparison(
  refs: readonly string[],
  root = resultsRoot(),
): { runs: StoredRun[]; warnings: string[] } {
  const runs = refs.map((r) => resolveRun(r, root));
  const warnings: string[] = [];
  runs.forEach((run, i) => {
    const name = refs[i] === run.id ? run.id : `${refs[i]} (${run.id})`;
    if (run.state === "removed" || run.state === "half-written")
      throw new CompareInputError(`run ${name} cannot be compared: ${run.stateWhy}`);
    if (run.state === "in progress") {
      throw new CompareInputError(
        `run ${name} is still in progress (${run.stateWhy}); compare it when it has finished`,
      );
    }
    if (run.state === "stopped")
      warnings.push(`run ${run.id} did not finish (${run.stateWhy}): only its finished trials are compared`);
    if (run.state === "unknown end") warnings.push(`run ${run.id}: ${run.stateWhy}; it is assumed finished`);
    for (const p of run.problems) warnings.push(`run ${run.id}: ${p}`);
  });
  const notebooks = new Set(runs.map((r) => r.notebook));
  if (notebooks.size > 1) {
    const list = runs.map((r) => `  ${r.id}: ${r.notebook || "unknown notebook"}`).join("\n");
    throw new CompareInputError(`runs of different notebooks cannot be compared condition by condition:\n${list}`);
  }
  return { runs, warnings };
}

export function isLatestRef(ref: string): boolean {
  return LATEST.test(ref.trim());
}

/**
 * `node build/scripts/reproduce.js` in a child process, as a person starts a run, and what the
 * tests that fault one look at: its output with when each part came, the processes under it
 * (PostgreSQL backends and pgbench show what they do in their titles), and the logs its kernels left.
 */
import { spawn, type ChildProcess } from "node:child_process";
import fs from "node:fs";
import path from "node:path";
import { projectRoot } from "../../lib/jupyter/kernel-spec";
import { processTree } from "../../lib/runtime/reaper";

const REPRODUCE = path.join(projectRoot(), "build", "scripts", "reproduce.js");

export interface Outcome {
  readonly code: number | null;
  readonly output: string;
  /** When each chunk of output came (ms since the epoch), to show where a slow end spent its time. */
  readonly chunks: readonly { readonly at: number; readonly text: string }[];
}

export function runReproduce(
  args: readonly string[],
  env: NodeJS.ProcessEnv,
): { child: ChildProcess; done: Promise<Outcome>; chunks: Outcome["chunks"] } {
  const child = spawn(process.execPath, [REPRODUCE, ...args], { env, stdio: ["ignore", "pipe", "pipe"] });
  let output = "";
  const chunks: { at: number; text: string }[] = [];
  const take = (d: Buffer): void => {
    output += d.toString();
    chunks.push({ at: Date.now(), text: d.toString() });
  };
  child.stdout?.on("data", take);
  child.stderr?.on("data", take);
  const done = new Promise<Outcome>((resolve) => child.on("close", (code) => resolve({ code, output, chunks })));
  // The chunks so far too: what a run still going has said.
  return { child, done, chunks };
}

/** A process's title as `ps` shows it (PostgreSQL backends write their current command there). */
export function title(pid: number): string {
  try {
    return fs.readFileSync(`/proc/${pid}/cmdline`, "utf8").replace(/\0/g, " ").trim();
  } catch {
    return "";
  }
}

export const isPgbench = (pid: number): boolean => /(^|\/)pgbench /.test(title(pid));

/** A pgbench process among the runner's descendants, or undefined. */
export function pgbenchUnder(runner: number): number | undefined {
  return processTree(runner).find(isPgbench);
}

/** The executed notebooks and kernel logs of this run under `dir` (its cells' stderr is in them). */
export function logsUnder(dir: string, runId: string): string[] {
  if (!fs.existsSync(dir)) return [];
  const stamp = runId.split("_")[0];
  const out: string[] = [];
  for (const entry of fs.readdirSync(dir, { withFileTypes: true })) {
    const full = path.join(dir, entry.name);
    if (entry.isDirectory() && entry.name === stamp) out.push(...logsUnder(full, runId));
    else if (entry.isFile() && /\.(ipynb|log)$/.test(entry.name)) out.push(fs.readFileSync(full, "utf8"));
  }
  return out;
}

/**
 * Turnaround: how long a user waits. Runs `reproduce` over all notebooks with a
 * profile on the embedded target (the README's main job), reports into a scratch directory so the
 * user's reports/ stay as they were, and reads the per-notebook times and kernel start times that
 * reproduce records in run.json.
 */
import { spawn } from "node:child_process";
import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import { median } from "simple-statistics";
import { EXPERIMENTS } from "../lib/experiments/registry";
import type { TurnaroundRecord } from "../scripts/reproduce";

export interface TurnaroundResult {
  readonly profile: string;
  /** The whole command as a user runs it after the build: node build/scripts/reproduce.js. */
  readonly wallSeconds: number;
  readonly goalSeconds: number;
  readonly notebooks: TurnaroundRecord["notebooks"];
  /** Median over the notebooks of executor start → kernel ready. */
  readonly kernelStartSeconds: number | null;
  readonly failed: readonly string[];
  /** Where the figures come from: this bench run, or an earlier `npm run reproduce` (its run id). */
  readonly source: string;
  readonly finishedAt: string;
}

/** What a user should wait at most on a 2-core machine: 3 minutes to try the lab, 20 to reproduce it. */
export const TURNAROUND_GOAL_SECONDS: Readonly<Record<string, number>> = { smoke: 3 * 60, default: 20 * 60 };

function summarise(record: TurnaroundRecord, wallSeconds: number, source: string): TurnaroundResult {
  const kernel = record.notebooks.map((n) => n.kernelStartSeconds).filter((s): s is number => s !== null);
  return {
    profile: record.profile,
    wallSeconds,
    goalSeconds: TURNAROUND_GOAL_SECONDS[record.profile] ?? Number.NaN,
    notebooks: record.notebooks,
    kernelStartSeconds: kernel.length ? median(kernel) : null,
    failed: record.notebooks.filter((n) => n.status !== "ok").map((n) => n.id),
    source,
    finishedAt: record.finishedAt,
  };
}

export async function benchTurnaround(profile: string): Promise<TurnaroundResult> {
  const reproduce = path.resolve(__dirname, "..", "scripts", "reproduce.js");
  const reportsDir = fs.mkdtempSync(path.join(os.tmpdir(), `dblab-turnaround-${profile}-`));
  try {
    const t0 = process.hrtime.bigint();
    const code = await new Promise<number | null>((resolve, reject) => {
      const child = spawn(process.execPath, [reproduce, "--profile", profile, "--reports-dir", reportsDir], {
        env: { ...process.env, DBLAB_TARGET: "embedded" },
        stdio: ["ignore", "inherit", "inherit"],
      });
      child.on("error", reject);
      child.on("exit", (c) => resolve(c));
    });
    const wallSeconds = Number(process.hrtime.bigint() - t0) / 1e9;
    const file = path.join(reportsDir, "run.json");
    if (!fs.existsSync(file))
      throw new Error(`reproduce --profile ${profile} exited with ${code} and wrote no run.json`);
    const record = JSON.parse(fs.readFileSync(file, "utf8")) as TurnaroundRecord;
    return summarise(record, wallSeconds, "this run");
  } finally {
    fs.rmSync(reportsDir, { recursive: true, force: true });
  }
}

/** The last `npm run reproduce` with this profile, if its reports/run.json is still there. */
export function lastRecordedTurnaround(profile: string, reportsDir: string): TurnaroundResult | undefined {
  const file = path.join(reportsDir, "run.json");
  if (!fs.existsSync(file)) return undefined;
  const record = JSON.parse(fs.readFileSync(file, "utf8")) as TurnaroundRecord;
  // Whole: every notebook a plain `npm run reproduce` runs (00 needs runs named, so it is not one of them).
  const ran = new Set(record.notebooks.map((n) => n.id));
  const whole = EXPERIMENTS.every((n) => n.requires || ran.has(n.id)) && Object.keys(record.overrides).length === 0;
  if (record.profile !== profile || !whole) return undefined;
  return summarise(
    record,
    record.totalSeconds,
    `npm run reproduce ${record.runId} (commit ${record.commit.slice(0, 12)})`,
  );
}

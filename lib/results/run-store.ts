/**
 * Where results live: `data/results/<run-id>/` holds params.json, metadata.json and trials.jsonl.
 * Each finished trial is appended and flushed to disk before the next one begins; summaries are
 * written atomically (write, then rename). A run can be resumed by id with the same parameters.
 */
import fs from "node:fs";
import path from "node:path";
import { randomBytes } from "node:crypto";
import { isDeepStrictEqual } from "node:util";
import { redactText } from "../targets/uri";
import type { Counters } from "../stats/counters";
import type { SpeedProbe } from "../stats/speed";
import { partsOf, type EarlierPart } from "./metadata";

/** What every trial record carries, finished or failed. */
interface TrialBase<C extends object, K extends string> {
  /** Identifies the trial within the run: condition + repeat. Used to skip finished trials on resume. */
  readonly key: string;
  readonly condition: C;
  readonly repeat: number;
  /** Its place in the run's (rotated or shuffled) order, from 0: what drift would land on. */
  readonly position?: number;
  /** Raw durations of each timed unit (batch), milliseconds, kept for any later statistic. */
  readonly unitMs?: readonly number[];
  /** Server-side counters, after − before, named by the workload's collector (K). */
  readonly counters?: Counters<K>;
  /** The machine's speed state just before the timed run (lib/engines/postgres/speed-probe.ts). */
  readonly speed?: SpeedProbe;
  readonly startedAt: string;
  readonly finishedAt: string;
}

/** A trial that finished: its timed total is there. */
export interface OkTrial<C extends object = Record<string, unknown>, K extends string = string> extends TrialBase<
  C,
  K
> {
  readonly status: "ok";
  /** Timed total, seconds (sum of the timed units). */
  readonly seconds: number;
  readonly error?: undefined;
}

/** A trial that failed: why, and no timed total. */
export interface FailedTrial<C extends object = Record<string, unknown>, K extends string = string> extends TrialBase<
  C,
  K
> {
  readonly status: "failed";
  readonly error: string;
  readonly seconds?: undefined;
}

/**
 * One line of trials.jsonl. A workload adds its own fields with an intersection
 * (`type XTrial = TrialRecord<C, K> & { … }`), which keeps the union: `status` narrows it. K names
 * its counters (lib/stats/counters.ts); a store reads them back as plain names (K = string), which
 * the workload's own type accepts: a run on disk may hold names an older version wrote.
 */
export type TrialRecord<C extends object = Record<string, unknown>, K extends string = string> =
  OkTrial<C, K> | FailedTrial<C, K>;

/** The finished members of a workload's trial type T (T = TrialRecord<C> & its own fields). */
export type OkOf<T extends TrialRecord<object, string>> = T & { readonly status: "ok"; readonly seconds: number };

/**
 * A finished trial. `status` alone narrows the union; the seconds are checked too because records
 * are read back from trials.jsonl, which older runs wrote before the union said what each carries.
 */
export function isOk<T extends TrialRecord<object, string>>(t: T): t is OkOf<T> {
  return t.status === "ok" && typeof t.seconds === "number";
}

export function resultsRoot(): string {
  return process.env.DBLAB_RESULTS_DIR ?? path.resolve(__dirname, "..", "..", "..", "data", "results");
}

/** A stored run's id, its results folder's name: reproduce's run id (DBLAB_RUN_ID), the notebook, a random tail. */
export function newStoredRunId(notebook: string): string {
  const base = process.env.DBLAB_RUN_ID ?? new Date().toISOString().replace(/[-:]/g, "").replace(/\..*/, "");
  return `${base}_${notebook}_${randomBytes(2).toString("hex")}`;
}

const RUN_ID = /^[A-Za-z0-9_.-]+$/;

export function writeJsonAtomic(file: string, value: unknown): void {
  const tmp = `${file}.${process.pid}.tmp`;
  fs.writeFileSync(tmp, JSON.stringify(value, null, 2));
  fs.renameSync(tmp, file);
}

/**
 * Truncates a file open for appending to just after its last newline, when it does not end with
 * one. Only the last record can be torn (each is written whole and fsynced before the next starts),
 * so what is cut is a record that never finished being written; its trial runs again on resume.
 */
export function repairTornTail(fd: number): void {
  const size = fs.fstatSync(fd).size;
  if (size === 0) return;
  const chunk = Buffer.alloc(64 * 1024);
  let end = size;
  while (end > 0) {
    const start = Math.max(0, end - chunk.length);
    const read = fs.readSync(fd, chunk, 0, end - start, start);
    const at = chunk.subarray(0, read).lastIndexOf(0x0a);
    if (at >= 0) {
      const keep = start + at + 1;
      if (keep !== size) fs.ftruncateSync(fd, keep);
      return;
    }
    end = start;
  }
  fs.ftruncateSync(fd, 0); // one torn record and nothing before it
}

/**
 * Set by `npm run reproduce -- --resume <id>` for the kernel it starts: the notebook's cells call
 * `run(params, { profile })` as always, and the first new store opened for that run's notebook
 * resumes `<id>` instead (taken once: a second run in the same kernel starts a new one).
 */
export const RESUME_ENV = "DBLAB_RESUME_ID";

function resumeRequested(notebook: string): string | undefined {
  const id = process.env[RESUME_ENV];
  if (!id || !id.includes(`_${notebook}_`)) return undefined;
  delete process.env[RESUME_ENV];
  return id;
}

/**
 * The parts a resumed run had before this one, oldest first: the stored metadata.json's (a part
 * that ended before writing one adds nothing).
 */
function partsBefore(directory: string): EarlierPart[] {
  const file = path.join(directory, "metadata.json");
  if (!fs.existsSync(file)) return [];
  try {
    return partsOf(JSON.parse(fs.readFileSync(file, "utf8"))).reverse();
  } catch {
    return []; // written atomically, so unreadable means edited by hand: nothing to keep
  }
}

export class RunStore<C extends object = Record<string, unknown>> {
  private constructor(
    readonly runId: string,
    readonly directory: string,
    /** A resumed run's earlier parts, oldest first (empty for a new run): the session keeps them in metadata.json. */
    readonly earlierParts: readonly EarlierPart[] = [],
  ) {}

  get trialsFile(): string {
    return path.join(this.directory, "trials.jsonl");
  }

  /**
   * Opens a new run, or resumes `resumeId` when given: then the parameters must equal the stored
   * ones, or the resume is refused (mixed parameters would make one run's numbers meaningless).
   */
  static open<C extends object>(options: {
    readonly notebook: string;
    readonly params: object;
    readonly resumeId?: string;
    readonly root?: string;
  }): RunStore<C> {
    const root = options.root ?? resultsRoot();
    const resumeId = options.resumeId ?? resumeRequested(options.notebook);
    if (resumeId !== undefined) {
      if (!RUN_ID.test(resumeId)) throw new Error(`"${resumeId}" is not a run id`);
      const directory = path.join(root, resumeId);
      const paramsFile = path.join(directory, "params.json");
      if (!fs.existsSync(paramsFile)) throw new Error(`No run "${resumeId}" in ${root} to resume`);
      const stored = JSON.parse(fs.readFileSync(paramsFile, "utf8")) as unknown;
      const given = JSON.parse(JSON.stringify(options.params)) as unknown;
      if (!isDeepStrictEqual(stored, given)) {
        throw new Error(
          `Refusing to resume run ${resumeId}: its parameters differ from these.\n` +
            `stored: ${JSON.stringify(stored)}\ngiven:  ${JSON.stringify(given)}`,
        );
      }
      return new RunStore<C>(resumeId, directory, partsBefore(directory));
    }
    const runId = newStoredRunId(options.notebook);
    const directory = path.join(root, runId);
    fs.mkdirSync(directory, { recursive: true });
    writeJsonAtomic(path.join(directory, "params.json"), options.params);
    return new RunStore<C>(runId, directory);
  }

  writeMetadata(metadata: object): void {
    writeJsonAtomic(path.join(this.directory, "metadata.json"), metadata);
  }

  /**
   * Merges `patch` into metadata.json as it is on disk (experiments write their own fields there),
   * e.g. `finishedAt` when the run ends. No metadata.json yet: nothing to mark, nothing written.
   */
  updateMetadata(patch: object): void {
    const file = path.join(this.directory, "metadata.json");
    if (!fs.existsSync(file)) return;
    const current = JSON.parse(fs.readFileSync(file, "utf8")) as object;
    writeJsonAtomic(file, { ...current, ...patch });
  }

  /**
   * Appends one trial and flushes it to disk before returning. Error texts are redacted.
   * A torn last line (a writer killed mid-record) is cut off first: appended to, it would swallow
   * this record too (measured: after resuming t3 and t4 on a torn t3, only t1, t2, t4 were read).
   */
  append(record: TrialRecord<C>): void {
    const safe = record.error ? { ...record, error: redactText(record.error) } : record;
    const fd = fs.openSync(this.trialsFile, "a+");
    try {
      repairTornTail(fd);
      fs.writeSync(fd, `${JSON.stringify(safe)}\n`);
      fs.fsyncSync(fd);
    } finally {
      fs.closeSync(fd);
    }
  }

  /** Every trial recorded so far; a torn last line (the process died mid-write) is ignored. */
  trials(): TrialRecord<C>[] {
    if (!fs.existsSync(this.trialsFile)) return [];
    const out: TrialRecord<C>[] = [];
    for (const line of fs.readFileSync(this.trialsFile, "utf8").split("\n")) {
      if (!line.trim()) continue;
      try {
        out.push(JSON.parse(line) as TrialRecord<C>);
      } catch {
        // Only the final line can be torn; earlier lines were flushed whole.
      }
    }
    return out;
  }

  /** Keys of trials that finished successfully: a resume skips them. */
  finishedKeys(): Set<string> {
    return new Set(
      this.trials()
        .filter((t) => t.status === "ok")
        .map((t) => t.key),
    );
  }

  writeSummary(name: string, value: unknown): string {
    const file = path.join(this.directory, name);
    if (name.endsWith(".json")) writeJsonAtomic(file, value);
    else {
      const tmp = `${file}.${process.pid}.tmp`;
      fs.writeFileSync(tmp, String(value));
      fs.renameSync(tmp, file);
    }
    return file;
  }
}

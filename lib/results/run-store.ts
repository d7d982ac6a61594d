/**
 * Each trial is appended and flushed before the next begins; summaries are written atomically. A run
 * can be resumed by id with the same parameters.
 */
import fs from "node:fs";
import path from "node:path";
import { randomBytes } from "node:crypto";
import { isDeepStrictEqual } from "node:util";
import { redactText } from "../targets/uri";
import type { Counters } from "../stats/counters";
import type { SpeedProbe } from "../stats/speed";
import { partsOf, type EarlierPart } from "./metadata";

interface TrialBase<C extends object, K extends string> {
  /** What a resume skips by. */
  readonly key: string;
  readonly condition: C;
  readonly repeat: number;
  readonly position?: number;
  readonly unitMs?: readonly number[];
  /** after − before (lib/stats/counters.ts). */
  readonly counters?: Counters<K>;
  readonly speed?: SpeedProbe;
  readonly startedAt: string;
  readonly finishedAt: string;
}

export interface OkTrial<C extends object = Record<string, unknown>, K extends string = string> extends TrialBase<
  C,
  K
> {
  readonly status: "ok";
  readonly seconds: number;
  readonly error?: undefined;
}

export interface FailedTrial<C extends object = Record<string, unknown>, K extends string = string> extends TrialBase<
  C,
  K
> {
  readonly status: "failed";
  readonly error: string;
  readonly seconds?: undefined;
}

/** Stored counters read back as plain names, since a run on disk may hold an older version's. */
export type TrialRecord<C extends object = Record<string, unknown>, K extends string = string> =
  OkTrial<C, K> | FailedTrial<C, K>;

export type OkOf<T extends TrialRecord<object, string>> = T & { readonly status: "ok"; readonly seconds: number };

/** The seconds are checked too: older runs on disk predate the union. */
export function isOk<T extends TrialRecord<object, string>>(t: T): t is OkOf<T> {
  return t.status === "ok" && typeof t.seconds === "number";
}

export function resultsRoot(): string {
  return process.env.DBLAB_RESULTS_DIR ?? path.resolve(__dirname, "..", "..", "..", "data", "results");
}

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

/** Only the last record can be torn. */
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
  fs.ftruncateSync(fd, 0);
}

/** `npm run reproduce -- --resume <id>`: the first store opened for that notebook resumes it (once). */
export const RESUME_ENV = "DBLAB_RESUME_ID";
/** `npm run reproduce -- --reopen <id>`: the notebook's first run() gives back that stored run (once). */
export const REOPEN_ENV = "DBLAB_REOPEN_ID";

/** The run id the kernel was started with in `env`, if it is one of `notebook`'s; taken once. */
export function requestedRun(env: typeof RESUME_ENV | typeof REOPEN_ENV, notebook: string): string | undefined {
  const id = process.env[env];
  if (!id || !id.includes(`_${notebook}_`)) return undefined;
  delete process.env[env];
  return id;
}

function partsBefore(directory: string): EarlierPart[] {
  const file = path.join(directory, "metadata.json");
  if (!fs.existsSync(file)) return [];
  try {
    return partsOf(JSON.parse(fs.readFileSync(file, "utf8"))).reverse();
  } catch {
    return []; // written atomically, so unreadable means edited by hand
  }
}

export class RunStore<C extends object = Record<string, unknown>> {
  private constructor(
    readonly runId: string,
    readonly directory: string,
    readonly earlierParts: readonly EarlierPart[] = [],
  ) {}

  get trialsFile(): string {
    return path.join(this.directory, "trials.jsonl");
  }

  /** Its stored parameters must be equal, else the resume is refused. */
  static open<C extends object>(options: {
    readonly notebook: string;
    readonly params: object;
    readonly resumeId?: string;
    readonly root?: string;
  }): RunStore<C> {
    const root = options.root ?? resultsRoot();
    const resumeId = options.resumeId ?? requestedRun(RESUME_ENV, options.notebook);
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

  updateMetadata(patch: object): void {
    const file = path.join(this.directory, "metadata.json");
    if (!fs.existsSync(file)) return;
    const current = JSON.parse(fs.readFileSync(file, "utf8")) as object;
    writeJsonAtomic(file, { ...current, ...patch });
  }

  /** A torn last line is cut off first: appended to, it would swallow this record. */
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

  trials(): TrialRecord<C>[] {
    if (!fs.existsSync(this.trialsFile)) return [];
    const out: TrialRecord<C>[] = [];
    for (const line of fs.readFileSync(this.trialsFile, "utf8").split("\n")) {
      if (!line.trim()) continue;
      try {
        out.push(JSON.parse(line) as TrialRecord<C>);
      } catch {
        // only the final line can be torn
      }
    }
    return out;
  }

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

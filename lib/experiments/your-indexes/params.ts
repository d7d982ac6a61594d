/**
 * Parameters of notebook 06 (your indexes), per profile, and their checks. Every file is checked
 * to exist and be readable here, before any server starts; what only a server can check (the SQL,
 * the index names, the scripts) is checked right after it starts, before the rounds.
 */
import fs from "node:fs";
import path from "node:path";
import type { LimitParams } from "../define";
import { writtenIndexNames } from "./workload/variants";
import { redactText } from "../../targets/uri";
import type { ProfileName } from "../../params/profiles";
import {
  clientsAndThreads,
  nonNegativeNumber,
  oneOf,
  ParameterError,
  positiveInteger,
  repeatsWithCap,
} from "../../params/validate";

export interface YourIndexesParams extends LimitParams {
  /** A SQL file with the tables and their current indexes (`pg_dump --schema-only` output is accepted). */
  readonly schema: string;
  /** A SQL file that fills the tables, run by psql with `-v scale=<scale>` (`:scale` in it); "" with sampleFrom. */
  readonly data: string;
  /** The data file's (and the scripts') `:scale`. */
  readonly scale: number;
  /** A source server's URI to copy rows from instead of `data` (read-only there); "" for none. */
  readonly sampleFrom: string;
  /** Rows copied per table from `sampleFrom`. */
  readonly sampleRows: number;
  /** pgbench scripts, each "file" or "file@weight" as pgbench takes them. */
  readonly workload: readonly string[];
  /**
   * pgbench scripts that only read ("file"), each timed alone after every write run, on the same
   * clone, in a read-only session (a script that writes is refused before the rounds): what each
   * judged index's absence does to its latency. [] for none.
   */
  readonly reads: readonly string[];
  /** Seconds each read script runs after a write run. */
  readonly readSeconds: number;
  /** pgbench clients (-c). */
  readonly clients: number;
  /** pgbench threads (-j), at most `clients`. */
  readonly threads: number;
  /** Seconds per timed run. */
  readonly durationSeconds: number;
  /** CREATE INDEX statements to try: each alone, and (two or more) all together. */
  readonly candidates: readonly string[];
  /**
   * Secondary indexes of the schema to drop one at a time, by name; "all"; or "unused" (with
   * sampleFrom: those the source has not scanned since its statistics were reset).
   */
  readonly existing: readonly string[] | "all" | "unused";
  /**
   * The shortest window of the source's statistics that `existing: "unused"` accepts, in days: an
   * index read only by a weekly job looks unused in a shorter one. The reader's call, declared
   * before the run (0 accepts any window).
   */
  readonly minStatsDays: number;
  /**
   * Named sets judged together, each one variant (all its indexes dropped, or all added): members
   * are index names of the schema (dropped) or the names candidates write (added), not both.
   */
  readonly groups: Readonly<Record<string, readonly string[]>>;
  /**
   * Whether `existing` and `candidates` are also judged one index at a time: "always", "never"
   * (their sets only: every judged existing index together, all candidates together), or "auto":
   * one at a time when the planned rounds of that design fit `budgetSeconds`, else the sets first.
   */
  readonly oneAtATime: "auto" | "always" | "never";
  /**
   * Rounds (every variant once per round, order rotated); more while an index is undecided, up to
   * maxRepeats and while the budget lasts.
   */
  readonly repeats: number;
  /** Most rounds the adaptive design may reach while an index is undecided. */
  readonly maxRepeats: number;
  /** Seconds the run may take before the adaptive design adds no more rounds. */
  readonly budgetSeconds: number;
  /**
   * The reader's question about write throughput, as a fraction (0.05 = ±5 %): is an index's cost
   * within ±margin? Declared before the run and never derived from its data; a cost measured above
   * 0 is stated whatever the margin says (see BASE for the default's reason).
   */
  readonly equivalenceMargin: number;
  /**
   * off: a commit does not wait for its WAL flush, so a run measures what the indexes cost the
   * server (CPU, WAL, buffers), not the disk's flush latency shared by every variant; on: as most
   * production servers run.
   */
  readonly synchronousCommit: "on" | "off";
  /** shared_buffers, MB. */
  readonly sharedBuffersMB: number;
  /** maintenance_work_mem, MB (index builds). */
  readonly maintenanceWorkMemMB: number;
  /** max_wal_size, GB. */
  readonly maxWalSizeGB: number;
  /** checkpoint_timeout, minutes. */
  readonly checkpointTimeoutMin: number;
}

const EXAMPLE = "data/examples/your-indexes";

const BASE = {
  target: "auto",
  schema: `${EXAMPLE}/schema.sql`,
  data: `${EXAMPLE}/data.sql`,
  sampleFrom: "",
  sampleRows: 10_000,
  workload: [`${EXAMPLE}/new-order.sql@3`, `${EXAMPLE}/fulfil.sql@7`],
  reads: [`${EXAMPLE}/order-history.sql`],
  readSeconds: 1,
  candidates: ["CREATE INDEX orders_created_at_idx ON orders (created_at)"],
  existing: "all",
  // A week: the shortest window that holds a weekly job's queries.
  minStatsDays: 7,
  groups: {},
  oneAtATime: "auto",
  // ±5 %: a capacity-planning question, the same on every profile and machine, never this machine's
  // noise (docs/your-indexes.md, "The parameters", says why).
  equivalenceMargin: 0.05,
  synchronousCommit: "off",
  maintenanceWorkMemMB: 256,
  maxWalSizeGB: 8,
  checkpointTimeoutMin: 30,
  cpus: 2,
} as const;

export const YOUR_INDEXES_PROFILES: Readonly<Record<ProfileName, YourIndexesParams>> = {
  // Seconds: the index on the updated column and the one on the table never written, two rounds.
  smoke: {
    ...BASE,
    scale: 0.2,
    existing: ["orders_status_idx", "suppliers_country_idx"],
    candidates: [],
    clients: 2,
    threads: 1,
    durationSeconds: 2,
    repeats: 2,
    maxRepeats: 2,
    budgetSeconds: 60,
    sharedBuffersMB: 128,
    memoryGiB: 2,
  },
  // Every secondary index of the example and one candidate, one at a time. Eight rounds: the median's
  // interval is then the 2nd to 7th paired cost, so one disturbed run does not set it; eleven, the next
  // n at which it narrows. Runs of 2 s, so that eight rounds fit; eight clients keep the larger share of
  // two shared cores (docs/your-indexes.md, "The profiles").
  default: {
    ...BASE,
    scale: 1,
    clients: 8,
    threads: 2,
    durationSeconds: 2,
    repeats: 8,
    maxRepeats: 11,
    budgetSeconds: 460,
    sharedBuffersMB: 512,
    memoryGiB: 4,
  },
  full: {
    ...BASE,
    scale: 10,
    clients: 8,
    threads: 4,
    durationSeconds: 60,
    readSeconds: 10,
    repeats: 5,
    maxRepeats: 9,
    budgetSeconds: 7200,
    sharedBuffersMB: 2048,
    memoryGiB: 8,
  },
};

/** The project's root (build/lib/experiments/your-indexes → four up), where the example's paths start. */
const ROOT = path.resolve(__dirname, "..", "..", "..", "..");

/** A file parameter that exists: absolute; relative to the current folder, else to the project root (notebooks). */
function resolveInputFile(name: string, value: unknown): string {
  if (typeof value !== "string" || value.trim() === "")
    throw new ParameterError(`${name} must be a file path, got ${JSON.stringify(value)}`);
  const candidates = path.isAbsolute(value) ? [value] : [path.resolve(value), path.resolve(ROOT, value)];
  const file = candidates.find((f) => {
    try {
      fs.accessSync(f, fs.constants.R_OK);
      return fs.statSync(f).isFile();
    } catch {
      return false;
    }
  });
  if (!file)
    throw new ParameterError(`${name}: cannot read ${value} (looked at ${[...new Set(candidates)].join(", ")})`);
  return file;
}

function stringList(name: string, value: unknown): string[] {
  if (!Array.isArray(value) || value.some((v) => typeof v !== "string"))
    throw new ParameterError(`${name} must be a list of strings, got ${JSON.stringify(value)}`);
  return value as string[];
}

function uriHasPassword(uri: string): boolean {
  try {
    const u = new URL(uri);
    return u.password !== "" || u.searchParams.has("password");
  } catch {
    return /:\/\/[^/@]*:[^/@]*@|[?&]password=/.test(uri);
  }
}

function fraction(name: string, value: unknown, max: number): number {
  if (typeof value !== "number" || !Number.isFinite(value) || value <= 0 || value > max)
    throw new ParameterError(`${name} must be a number > 0 and ≤ ${max}, got ${JSON.stringify(value)}`);
  return value;
}

/**
 * `groups` checked as far as the text can: each a non-empty list of distinct names, all candidates'
 * written names (added together) or none (the schema's, dropped together: the server checks them).
 */
function checkedGroups(
  value: unknown,
  candidates: readonly string[],
  existing: YourIndexesParams["existing"],
): Record<string, string[]> {
  if (typeof value !== "object" || value === null || Array.isArray(value))
    throw new ParameterError(`groups must be an object of named lists, e.g. { "reporting": ["a_idx", "b_idx"] }`);
  const written = new Set(candidates.flatMap((c) => writtenIndexNames(c)));
  const out: Record<string, string[]> = {};
  for (const [name, members] of Object.entries(value as Record<string, unknown>)) {
    if (!name.trim()) throw new ParameterError("groups: a group needs a name");
    const list = stringList(`groups.${name}`, members);
    if (list.length === 0) throw new ParameterError(`groups.${name} is empty: name the indexes it judges together`);
    if (new Set(list).size !== list.length) throw new ParameterError(`groups.${name} names an index twice`);
    const added = list.filter((m) => written.has(m));
    if (added.length && added.length !== list.length)
      throw new ParameterError(
        `groups.${name} mixes candidates (${added.join(", ")}) with existing indexes (${list.filter((m) => !written.has(m)).join(", ")}): a set is either added or dropped; make two groups`,
      );
    if (written.has(name) || (Array.isArray(existing) && existing.includes(name)))
      throw new ParameterError(`groups: "${name}" is also an index judged on its own; give the group another name`);
    out[name] = list;
  }
  return out;
}

/** Every value of a profile merged with the reader's overrides, checked (target, cpus, memoryGiB: the base). */
export function checkParams(p: YourIndexesParams, overrides: Partial<YourIndexesParams>): YourIndexesParams {
  const sampleFrom = typeof p.sampleFrom === "string" ? p.sampleFrom.trim() : undefined;
  if (sampleFrom === undefined)
    throw new ParameterError(`sampleFrom must be a URI or "", got ${JSON.stringify(p.sampleFrom)}`);
  if (sampleFrom && !/^postgres(ql)?:\/\//.test(sampleFrom))
    throw new ParameterError(`sampleFrom must be a postgresql:// URI, got ${redactText(sampleFrom)}`);
  // The parameters are kept in the run's params.json (a resume reads them back): a password goes where libpq looks.
  if (sampleFrom && uriHasPassword(sampleFrom))
    throw new ParameterError(
      `sampleFrom carries a password (${redactText(sampleFrom)}), which the lab would keep in the run's params.json: give the URI without it and the password in PGPASSWORD or ~/.pgpass (libpq's password file), where the lab reads it`,
    );
  if (sampleFrom && overrides.data !== undefined && overrides.data !== "")
    throw new ParameterError("give either data (a SQL file) or sampleFrom (a URI), not both");
  const data = sampleFrom ? "" : resolveInputFile("data", p.data);
  if (!Array.isArray(p.workload) || p.workload.length === 0)
    throw new ParameterError(`workload must be a non-empty list of "file@weight", got ${JSON.stringify(p.workload)}`);
  const workload = p.workload.map((w: unknown, i) => {
    if (typeof w !== "string") throw new ParameterError(`workload[${i}] must be "file" or "file@weight"`);
    const m = /^(.*)@(\d+)$/.exec(w);
    if (m && Number(m[2]) < 1)
      throw new ParameterError(`workload[${i}]: the weight must be a positive integer, got ${m[2]}`);
    return `${resolveInputFile(`workload[${i}]`, m ? m[1] : w)}@${m ? Number(m[2]) : 1}`;
  });
  // The example's read script, candidate and (smoke's) index names are about its tables: with a schema or
  // a source of the reader's own, no reads or candidates, and `existing` is "all" as on the other profiles.
  const ownSchema = overrides.schema !== undefined || (overrides.sampleFrom ?? "") !== "";
  const reads = stringList("reads", ownSchema && overrides.reads === undefined ? [] : p.reads).map((r, i) => {
    if (/@\d+$/.test(r) && !fs.existsSync(r))
      throw new ParameterError(
        `reads[${i}]: a read script runs alone, so it takes no @weight; got ${JSON.stringify(r)}`,
      );
    return resolveInputFile(`reads[${i}]`, r);
  });
  const candidates = stringList("candidates", ownSchema && overrides.candidates === undefined ? [] : p.candidates).map(
    (c, i) => {
      const statement = c.trim().replace(/;\s*$/, "");
      if (!/^\s*CREATE\s+(UNIQUE\s+)?INDEX\s/i.test(statement) || statement.includes(";"))
        throw new ParameterError(`candidates[${i}] must be one CREATE INDEX statement, got ${JSON.stringify(c)}`);
      if (/\bCONCURRENTLY\b/i.test(statement))
        throw new ParameterError(
          `candidates[${i}]: CONCURRENTLY is not needed (the lab builds indexes in its own copy)`,
        );
      return statement;
    },
  );
  const asked = ownSchema && overrides.existing === undefined ? "all" : p.existing;
  const existing = asked === "all" || asked === "unused" ? asked : stringList("existing", asked);
  if (existing === "unused" && !sampleFrom)
    throw new ParameterError(
      'existing: "unused" needs sampleFrom (a postgresql:// URI of your server): which indexes nothing scans is read from its statistics',
    );
  if (Array.isArray(existing) && new Set(existing).size !== existing.length)
    throw new ParameterError(`existing names an index twice: ${existing.join(", ")}`);
  const groups = checkedGroups(p.groups, candidates, existing);
  if (Array.isArray(existing) && existing.length === 0 && candidates.length === 0 && Object.keys(groups).length === 0)
    throw new ParameterError('nothing to judge: give existing index names (or "all"), candidates or groups');
  const rounds = repeatsWithCap(p, overrides);
  const clients = clientsAndThreads(p);
  const sharedBuffersMB = positiveInteger("sharedBuffersMB", p.sharedBuffersMB);
  if (sharedBuffersMB >= p.memoryGiB * 1024)
    throw new ParameterError(`sharedBuffersMB (${sharedBuffersMB}) must be below memoryGiB (${p.memoryGiB} GiB)`);
  const integers = [
    "sampleRows",
    "readSeconds",
    "durationSeconds",
    "budgetSeconds",
    "maintenanceWorkMemMB",
    "maxWalSizeGB",
    "checkpointTimeoutMin",
  ] as const;
  return {
    ...p,
    ...Object.fromEntries(integers.map((k) => [k, positiveInteger(k, p[k])])),
    schema: resolveInputFile("schema", p.schema),
    data,
    scale: fraction("scale", p.scale, 10_000),
    sampleFrom,
    workload,
    reads,
    ...clients,
    candidates,
    existing,
    minStatsDays: nonNegativeNumber("minStatsDays", p.minStatsDays),
    groups,
    oneAtATime: oneOf("oneAtATime", p.oneAtATime, ["auto", "always", "never"] as const),
    ...rounds,
    equivalenceMargin: fraction("equivalenceMargin", p.equivalenceMargin, 0.5),
    synchronousCommit: oneOf("synchronousCommit", p.synchronousCommit, ["on", "off"] as const),
    sharedBuffersMB,
  };
}

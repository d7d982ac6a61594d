/** Notebook 06's parameters, per profile, and their checks. Files are checked here, before any server starts;
 * what only a server can check (the SQL, the index names, the scripts) right after it starts, before the rounds. */
import fs from "node:fs";
import path from "node:path";
import { LIMIT_PARAMS } from "../target-params";
import { writtenIndexNames } from "./workload/variants";
import { redactText, redactUri } from "../../targets/uri";
import type { ProfileName } from "../../params/profiles";
import { custom, declareParams, integer, number, oneOf, stringList, type ParamsOf } from "../../params/declare";
import { clientsAndThreads, ParameterError, repeatsWithCap } from "../../params/validate";

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
  // Every secondary index of the example and one candidate, one at a time. Eight rounds: the median's interval is
  // then the 2nd to 7th paired cost, so one disturbed run does not set it; eleven, the next n at which it narrows.
  // 2-s runs so that eight rounds fit; eight clients keep more of two shared cores (docs/your-indexes.md).
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

const sourceUri = (meaning: string) =>
  custom("string", meaning, (name, value): string => {
    const uri = typeof value === "string" ? value.trim() : undefined;
    if (uri === undefined) throw new ParameterError(`${name} must be a URI or "", got ${JSON.stringify(value)}`);
    if (uri && !/^postgres(ql)?:\/\//.test(uri))
      throw new ParameterError(`${name} must be a postgresql:// URI, got ${redactText(uri)}`);
    // The parameters are kept in the run's params.json (a resume reads them back): a password goes where libpq looks.
    // Whatever redactUri hides is a secret: a password in the user-info or a password parameter.
    if (uri && redactUri(uri) !== uri)
      throw new ParameterError(
        `${name} carries a password (${redactText(uri)}), which the lab would keep in the run's params.json: give the URI without it and the password in PGPASSWORD or ~/.pgpass (libpq's password file), where the lab reads it`,
      );
    return uri;
  });

/** pgbench script files: "file@weight" where `weighted` (workload); a read script runs alone, so takes no weight. */
const scriptFiles = (weighted: boolean, meaning: string) =>
  custom("string[]", meaning, (name, value): readonly string[] => {
    const list = stringList(name, value);
    if (weighted && list.length === 0)
      throw new ParameterError(`${name} must be a non-empty list of "file@weight", got ${JSON.stringify(value)}`);
    return list.map((entry, i) => {
      const m = /^(.*)@(\d+)$/.exec(entry);
      if (m && !weighted && !fs.existsSync(entry))
        throw new ParameterError(
          `${name}[${i}]: a read script runs alone, so it takes no @weight; got ${JSON.stringify(entry)}`,
        );
      if (m && weighted && Number(m[2]) < 1)
        throw new ParameterError(`${name}[${i}]: the weight must be a positive integer, got ${m[2]}`);
      const file = resolveInputFile(`${name}[${i}]`, m && weighted ? m[1] : entry);
      return weighted ? `${file}@${m ? Number(m[2]) : 1}` : file;
    });
  });

const createIndexStatements = (meaning: string) =>
  custom("string[]", meaning, (name, value): readonly string[] =>
    stringList(name, value).map((c, i) => {
      const statement = c.trim().replace(/;\s*$/, "");
      if (!/^\s*CREATE\s+(UNIQUE\s+)?INDEX\s/i.test(statement) || statement.includes(";"))
        throw new ParameterError(`${name}[${i}] must be one CREATE INDEX statement, got ${JSON.stringify(c)}`);
      if (/\bCONCURRENTLY\b/i.test(statement))
        throw new ParameterError(`${name}[${i}]: CONCURRENTLY is not needed (the lab builds indexes in its own copy)`);
      return statement;
    }),
  );

function existingIndexes(name: string, value: unknown): readonly string[] | "all" | "unused" {
  if (value === "all" || value === "unused") return value;
  const list = stringList(name, value);
  if (new Set(list).size !== list.length) throw new ParameterError(`${name} names an index twice: ${list.join(", ")}`);
  return list;
}

/** `groups` as far as the value alone can say: each a named, non-empty list of distinct names. */
function namedGroups(name: string, value: unknown): Readonly<Record<string, readonly string[]>> {
  if (typeof value !== "object" || value === null || Array.isArray(value))
    throw new ParameterError(
      `${name} must be an object of named lists, e.g. { "reporting": ["a_idx", "b_idx"] }, got ${JSON.stringify(value)}`,
    );
  const out: Record<string, string[]> = {};
  for (const [group, members] of Object.entries(value as Record<string, unknown>)) {
    if (!group.trim()) throw new ParameterError(`${name}: a group needs a name`);
    const list = stringList(`${name}.${group}`, members);
    if (list.length === 0) throw new ParameterError(`${name}.${group} is empty: name the indexes it judges together`);
    if (new Set(list).size !== list.length) throw new ParameterError(`${name}.${group} names an index twice`);
    out[group] = list;
  }
  return out;
}

const fraction = (meaning: string, max: number) => number(meaning, { min: 0, aboveMin: true, max });

export const YourIndexesParams = declareParams({
  ...LIMIT_PARAMS,
  schema: custom(
    "string",
    "A SQL file with the tables and their current indexes (`pg_dump --schema-only` output is accepted).",
    resolveInputFile,
  ),
  data: custom(
    "string",
    'A SQL file that fills the tables, run by psql with `-v scale=<scale>` (`:scale` in it); "" with sampleFrom.',
    (name, v) => (v === "" ? "" : resolveInputFile(name, v)),
  ),
  scale: fraction("The data file's (and the scripts') `:scale`.", 10_000),
  sampleFrom: sourceUri('A source server\'s URI to copy rows from instead of `data` (read-only there); "" for none.'),
  sampleRows: integer("Rows copied per table from `sampleFrom`."),
  workload: scriptFiles(true, 'pgbench scripts, each "file" or "file@weight" as pgbench takes them.'),
  reads: scriptFiles(
    false,
    'pgbench scripts that only read ("file"), each timed alone after every write run, on the same clone, in a ' +
      "read-only session (a script that writes is refused before the rounds): what each judged index's absence " +
      "does to its latency. [] for none.",
  ),
  readSeconds: integer("Seconds each read script runs after a write run."),
  clients: integer("pgbench clients (-c)."),
  threads: integer("pgbench threads (-j), at most `clients`."),
  durationSeconds: integer("Seconds per timed run."),
  candidates: createIndexStatements("CREATE INDEX statements to try: each alone, and (two or more) all together."),
  existing: custom(
    'string[] | "all" | "unused"',
    'Secondary indexes of the schema to drop one at a time, by name; "all"; or "unused" (with sampleFrom: those ' +
      "the source has not scanned since its statistics were reset).",
    existingIndexes,
  ),
  minStatsDays: number(
    'The shortest window of the source\'s statistics that `existing: "unused"` accepts, in days: an index read ' +
      "only by a weekly job looks unused in a shorter one. The reader's call, declared before the run (0 accepts " +
      "any window).",
    { min: 0 },
  ),
  groups: custom(
    "Readonly<Record<string, readonly string[]>>",
    "Named sets judged together, each one variant (all its indexes dropped, or all added): members are index " +
      "names of the schema (dropped) or the names candidates write (added), not both.",
    namedGroups,
  ),
  oneAtATime: oneOf(
    ["auto", "always", "never"],
    'Whether `existing` and `candidates` are also judged one index at a time: "always", "never" (their sets ' +
      'only: every judged existing index together, all candidates together), or "auto": one at a time when the ' +
      "planned rounds of that design fit `budgetSeconds`, else the sets first.",
  ),
  repeats: integer(
    "Rounds (every variant once per round, order rotated); more while an index is undecided, up to maxRepeats " +
      "and while the budget lasts.",
  ),
  maxRepeats: integer("Most rounds the adaptive design may reach while an index is undecided."),
  budgetSeconds: integer("Seconds the run may take before the adaptive design adds no more rounds."),
  equivalenceMargin: fraction(
    "The reader's question about write throughput, as a fraction (0.05 = ±5 %): is an index's cost within " +
      "±margin? Declared before the run and never derived from its data; a cost measured above 0 is stated " +
      "whatever the margin says (see BASE for the default's reason).",
    0.5,
  ),
  synchronousCommit: oneOf(
    ["on", "off"],
    "off: a commit does not wait for its WAL flush, so a run measures what the indexes cost the server (CPU, " +
      "WAL, buffers), not the disk's flush latency shared by every variant; on: as most production servers run.",
  ),
  sharedBuffersMB: integer("shared_buffers, MB."),
  maintenanceWorkMemMB: integer("maintenance_work_mem, MB (index builds)."),
  maxWalSizeGB: integer("max_wal_size, GB."),
  checkpointTimeoutMin: integer("checkpoint_timeout, minutes."),
});
export type YourIndexesParams = ParamsOf<typeof YourIndexesParams>;

/** A profile's values merged with the reader's overrides, checked as declared, then with each other. The example's
 * reads, candidate and (smoke's) index names are about its tables: with a schema or source of the reader's own, no
 * reads or candidates, and `existing` is "all" as on the other profiles. */
export function checkParams(given: YourIndexesParams, overrides: Partial<YourIndexesParams>): YourIndexesParams {
  const p = YourIndexesParams.check(given);
  if (p.sampleFrom && overrides.data !== undefined && overrides.data !== "")
    throw new ParameterError("give either data (a SQL file) or sampleFrom (a URI), not both");
  const data = p.sampleFrom ? "" : resolveInputFile("data", p.data);
  const ownSchema = overrides.schema !== undefined || (overrides.sampleFrom ?? "") !== "";
  const reads = ownSchema && overrides.reads === undefined ? [] : p.reads;
  const candidates = ownSchema && overrides.candidates === undefined ? [] : p.candidates;
  const existing = ownSchema && overrides.existing === undefined ? "all" : p.existing;
  if (existing === "unused" && !p.sampleFrom)
    throw new ParameterError(
      'existing: "unused" needs sampleFrom (a postgresql:// URI of your server): which indexes nothing scans is read from its statistics',
    );
  // A group is added (every member a name a candidate writes) or dropped (none is): the server checks the latter.
  const written = new Set(candidates.flatMap((c) => writtenIndexNames(c)));
  for (const [name, list] of Object.entries(p.groups)) {
    const added = list.filter((m) => written.has(m));
    if (added.length && added.length !== list.length)
      throw new ParameterError(
        `groups.${name} mixes candidates (${added.join(", ")}) with existing indexes (${list.filter((m) => !written.has(m)).join(", ")}): a set is either added or dropped; make two groups`,
      );
    if (written.has(name) || (Array.isArray(existing) && existing.includes(name)))
      throw new ParameterError(`groups: "${name}" is also an index judged on its own; give the group another name`);
  }
  if (Array.isArray(existing) && existing.length === 0 && candidates.length === 0 && Object.keys(p.groups).length === 0)
    throw new ParameterError('nothing to judge: give existing index names (or "all"), candidates or groups');
  if (p.sharedBuffersMB >= p.memoryGiB * 1024)
    throw new ParameterError(`sharedBuffersMB (${p.sharedBuffersMB}) must be below memoryGiB (${p.memoryGiB} GiB)`);
  return {
    ...p,
    data,
    reads,
    candidates,
    existing,
    ...repeatsWithCap(p, overrides),
    ...clientsAndThreads(p),
  };
}

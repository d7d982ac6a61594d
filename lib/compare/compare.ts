/**
 * Comparing stored runs of one notebook, benchstat-style: what differed in their configuration first
 * (the usual cause of an unexpected difference), then per condition the change B/A with an interval
 * and significance, then the claims' verdicts. Bad input throws CompareInputError before any work.
 */
import { containerFacts } from "../results/metadata";
import { resultsRoot, type TrialRecord } from "../results/run-store";
import { groupBy } from "../stats/summary";
import { CompareInputError, resolveForComparison, type StoredRun, type VerdictRow } from "../results/stored-runs";
import { change, DEFAULT_ALPHA, conditionInterval, type Change } from "./stats";

export interface Metric {
  readonly name: string;
  readonly unit: string;
  readonly higherIsBetter: boolean;
  readonly describe: string;
}

/** How a metric is read off a trial (apart from Metric, which serialises to JSON). */
const READERS: Readonly<Record<string, (t: TrialRecord) => number | undefined>> = {
  seconds: (t) => t.seconds,
  tps: (t) => {
    const tps = (t as { pgbench?: { summary?: { tps?: unknown } } }).pgbench?.summary?.tps;
    return typeof tps === "number" ? tps : undefined;
  },
};

export const METRICS: Readonly<Record<string, Metric>> = {
  seconds: { name: "seconds", unit: "s", higherIsBetter: false, describe: "timed seconds per trial (lower is better)" },
  tps: {
    name: "tps",
    unit: "tps",
    higherIsBetter: true,
    describe: "pgbench transactions per second (higher is better)",
  },
};

/** pgbench runs (all trials) are judged by TPS, their seconds being fixed; any other run by timed seconds. */
export function defaultMetric(trials: readonly TrialRecord[]): Metric {
  const ok = trials.filter((t) => t.status === "ok");
  return ok.length > 0 && ok.every((t) => READERS.tps(t) !== undefined) ? METRICS.tps : METRICS.seconds;
}

export interface CompareOptions {
  readonly alpha?: number;
  /** Regression gate: worse by more than this fraction and distinguishable. */
  readonly regressionThreshold?: number;
  readonly metric?: string;
  readonly root?: string;
}

export interface RunInfo {
  readonly label: string;
  readonly id: string;
  readonly notebook: string;
  readonly profile: string;
  readonly target: string;
  readonly commit: string;
  readonly startedAt: string;
  readonly state: string;
  readonly trialsOk: number;
  readonly trialsFailed: number;
}

export interface ConfigRow {
  readonly section: string;
  readonly field: string;
  readonly values: readonly string[];
}

export interface SideSummary {
  readonly n: number;
  readonly failed: number;
  readonly median: number;
  readonly low: number;
  readonly high: number;
  readonly coverage: number;
  readonly values: readonly number[];
}

export interface ConditionRow {
  readonly key: string;
  readonly label: string;
  readonly condition: Readonly<Record<string, unknown>>;
  readonly a?: SideSummary;
  readonly b?: SideSummary;
  readonly only?: "A" | "B";
  readonly change?: Change;
  /** Worse than A by more than the threshold and distinguishable from noise. */
  readonly regression?: boolean;
}

export type ComparedRow = ConditionRow & { readonly a: SideSummary; readonly b: SideSummary; readonly change: Change };

export function isCompared(r: ConditionRow): r is ComparedRow {
  return r.a !== undefined && r.b !== undefined && r.change !== undefined;
}

export interface VerdictPair {
  readonly id: string;
  readonly claim: string;
  readonly a?: string;
  readonly b?: string;
  readonly whyA?: string;
  readonly whyB?: string;
  readonly changed: boolean;
}

export interface PairComparison {
  readonly a: RunInfo;
  readonly b: RunInfo;
  readonly rows: readonly ConditionRow[];
  readonly common: number;
  readonly distinguishable: number;
  readonly regressions: number;
  /** The smallest p the sample sizes allow: above α nothing can be flagged. */
  readonly minPossibleP: number;
  readonly verdicts?: readonly VerdictPair[];
  readonly verdictsNote: string;
}

export interface Comparison {
  readonly notebook: string;
  readonly metric: Metric;
  readonly alpha: number;
  readonly regressionThreshold?: number;
  readonly runs: readonly RunInfo[];
  readonly config: readonly ConfigRow[];
  readonly identicalFields: number;
  readonly pairs: readonly PairComparison[];
  readonly warnings: readonly string[];
}

// Configuration diff

/** Settings that differ between any two servers (ports, paths): not configuration. */
const PER_INSTANCE_SETTINGS = new Set([
  "port",
  "data_directory",
  "config_file",
  "hba_file",
  "ident_file",
  "unix_socket_directories",
  "external_pid_file",
  "log_directory",
  "cluster_name",
]);

/** Top-level metadata fields shown by their own rows, or not configuration. */
const HANDLED = new Set([
  "runId",
  "notebook",
  "profile",
  "startedAt",
  "finishedAt",
  "outcome",
  "owner",
  "host",
  "gitCommit",
  "servers",
  "serverSettings",
  "params",
  "notes",
  "unavailable",
]);

const show = (v: unknown): string =>
  v === undefined || v === null ? "—" : typeof v === "string" ? v : JSON.stringify(v);

function flatten(prefix: string, value: unknown, out: Map<string, string>, depth = 0): void {
  if (value !== null && typeof value === "object" && !Array.isArray(value) && depth < 3) {
    for (const [k, v] of Object.entries(value)) flatten(prefix ? `${prefix}.${k}` : k, v, out, depth + 1);
  } else {
    out.set(prefix, show(value));
  }
}

type Fields = Map<string, { section: string; field: string; value: string }>;

function configFields(run: StoredRun): Fields {
  const m = run.metadata;
  const fields: Fields = new Map();
  const put = (section: string, field: string, value: unknown) =>
    fields.set(`${section}\u0000${field}`, { section, field, value: show(value) });
  if (!m) return fields;
  for (const s of m.servers ?? []) {
    const e = s.engine;
    // Only a container enforces limits and has an image; elsewhere they are recorded, not applied.
    const container = containerFacts(s);
    put("server", `${e} version`, s.version);
    put("server", `${e} target`, s.kind);
    put("server", `${e} route`, s.route);
    put("server", `${e} image / binaries`, s.source);
    put(
      "server",
      `${e} image kind`,
      container ? (s.standInImage ? "stand-in (built from embedded binaries)" : "official") : "n/a",
    );
    put("server", `${e} CPU limit`, container ? s.limits?.cpus : "none (host's)");
    put(
      "server",
      `${e} memory limit`,
      container && s.limits?.memoryBytes ? `${(s.limits.memoryBytes / 2 ** 30).toFixed(1)} GiB` : "none (host's)",
    );
    for (const [k, v] of Object.entries(s.settings ?? {})) put("server", `${e} setting ${k} (asked)`, v);
  }
  for (const [engine, settings] of Object.entries(m.serverSettings ?? {})) {
    for (const [k, v] of Object.entries(settings))
      if (!PER_INSTANCE_SETTINGS.has(k)) put("server", `${engine} setting ${k}`, v);
  }
  for (const [engine, why] of Object.entries(m.unavailable ?? {})) put("server", `${engine} unavailable`, why);
  const h = m.host;
  if (h) {
    put("host", "CPU model", h.cpuModel);
    put("host", "CPUs", h.cpus);
    put("host", "memory GiB", h.memoryGiB);
    put("host", "platform", h.platform);
    put("host", "kernel", h.kernel);
    put("host", "Node", h.node);
  }
  put("lab", "commit", m.gitCommit);
  put("lab", "profile", m.profile);
  const params = new Map<string, string>();
  flatten("", run.params ?? m.params, params);
  for (const [k, v] of params) put("params", k, v);
  const other = new Map<string, string>();
  for (const [k, v] of Object.entries(m)) if (!HANDLED.has(k)) flatten(k, v, other);
  for (const [k, v] of other) put("recorded", k, v);
  return fields;
}

export function configDiff(runs: readonly StoredRun[]): { rows: ConfigRow[]; identical: number } {
  const per = runs.map(configFields);
  const keys: string[] = [];
  for (const f of per) for (const k of f.keys()) if (!keys.includes(k)) keys.push(k);
  const rows: ConfigRow[] = [];
  let identical = 0;
  for (const k of keys) {
    const first = per.map((f) => f.get(k)).find((v) => v !== undefined);
    if (!first) continue;
    const values = per.map((f) => f.get(k)?.value ?? "—");
    if (values.every((v) => v === values[0])) identical++;
    else rows.push({ section: first.section, field: first.field, values });
  }
  return { rows, identical };
}

// Conditions

export function conditionKey(condition: Readonly<Record<string, unknown>>): string {
  return JSON.stringify(Object.fromEntries(Object.entries(condition).sort(([x], [y]) => (x < y ? -1 : x > y ? 1 : 0))));
}

function runInfo(run: StoredRun, label: string): RunInfo {
  const m = run.metadata;
  const targets = [...new Set((m?.servers ?? []).map((s) => `${s.kind}${s.route ? `/${s.route}` : ""}`))];
  return {
    label,
    id: run.id,
    notebook: run.notebook,
    profile: m?.profile ?? "?",
    target: targets.join(", ") || "?",
    commit: m?.gitCommit ?? "?",
    startedAt: run.startedAt ?? "?",
    state: run.state,
    trialsOk: run.trials.filter((t) => t.status === "ok").length,
    trialsFailed: run.trials.filter((t) => t.status === "failed").length,
  };
}

interface Grouped {
  readonly condition: Readonly<Record<string, unknown>>;
  readonly values: number[];
  failed: number;
}

function groupTrials(run: StoredRun, read: (t: TrialRecord) => number | undefined): Map<string, Grouped> {
  const out = new Map<string, Grouped>();
  for (const [key, trials] of groupBy(run.trials, (t) => conditionKey(t.condition))) {
    const values = trials
      .filter((t) => t.status === "ok")
      .map(read)
      .filter((v): v is number => typeof v === "number" && Number.isFinite(v));
    out.set(key, {
      condition: trials[0].condition,
      values,
      failed: trials.filter((t) => t.status === "failed").length,
    });
  }
  return out;
}

function side(g: Grouped | undefined): SideSummary | undefined {
  if (!g || g.values.length === 0) return undefined;
  const m = conditionInterval(g.values);
  return {
    n: g.values.length,
    failed: g.failed,
    median: m.median,
    low: m.low,
    high: m.high,
    coverage: m.coverage,
    values: g.values,
  };
}

function labels(
  conditions: readonly Readonly<Record<string, unknown>>[],
): (c: Readonly<Record<string, unknown>>) => string {
  const varying = new Set<string>();
  const firstSeen = new Map<string, string>();
  for (const c of conditions) {
    for (const [k, v] of Object.entries(c)) {
      const s = show(v);
      if (!firstSeen.has(k)) firstSeen.set(k, s);
      else if (firstSeen.get(k) !== s) varying.add(k);
    }
  }
  for (const c of conditions) for (const k of firstSeen.keys()) if (!(k in c)) varying.add(k);
  return (c) => {
    const parts = Object.entries(c)
      .filter(([k]) => varying.has(k))
      .map(([k, v]) => `${k}=${show(v)}`);
    return parts.join(" ") || "all";
  };
}

function verdictPairs(a: StoredRun, b: StoredRun): { verdicts?: VerdictPair[]; note: string } {
  if (!a.verdicts && !b.verdicts) return { note: "no verdicts recorded (no summary.json with claims in either run)" };
  const ids: string[] = [];
  const byId = (rows: readonly VerdictRow[] | undefined) => new Map((rows ?? []).map((r) => [r.id, r]));
  const ma = byId(a.verdicts);
  const mb = byId(b.verdicts);
  for (const r of [...(a.verdicts ?? []), ...(b.verdicts ?? [])]) if (!ids.includes(r.id)) ids.push(r.id);
  const verdicts = ids.flatMap((id) => {
    const va = ma.get(id);
    const vb = mb.get(id);
    const either = va ?? vb;
    if (!either) return [];
    const pair: VerdictPair = {
      id,
      claim: either.claim,
      a: va?.verdict,
      b: vb?.verdict,
      whyA: va?.why,
      whyB: vb?.why,
      changed: va?.verdict !== vb?.verdict,
    };
    return [pair];
  });
  const missing = !a.verdicts ? "A recorded no verdicts" : !b.verdicts ? "B recorded no verdicts" : "";
  return { verdicts, note: missing };
}

function comparePair(
  a: StoredRun,
  b: StoredRun,
  read: (t: TrialRecord) => number | undefined,
  metric: Metric,
  o: Required<Pick<CompareOptions, "alpha">> & CompareOptions,
): PairComparison {
  const ga = groupTrials(a, read);
  const gb = groupTrials(b, read);
  const conditions = new Map<string, Readonly<Record<string, unknown>>>();
  for (const [key, g] of [...ga, ...gb]) if (!conditions.has(key)) conditions.set(key, g.condition);
  const label = labels([...conditions.values()]);
  let minPossibleP = 0;
  const rows: ConditionRow[] = [...conditions].map(([key, condition]) => {
    const sa = side(ga.get(key));
    const sb = side(gb.get(key));
    const base = { key, label: label(condition), condition, a: sa, b: sb };
    if (!sa || !sb) return { ...base, only: sa ? ("A" as const) : sb ? ("B" as const) : undefined };
    const c = change(sa.values, sb.values, o.alpha);
    minPossibleP = Math.max(minPossibleP, c.test.minP);
    // "Slower by more than t": time × (1 + t), a rate ÷ (1 + t).
    const worse = metric.higherIsBetter
      ? c.ratio < 1 / (1 + (o.regressionThreshold ?? 0))
      : c.ratio > 1 + (o.regressionThreshold ?? 0);
    const regression = o.regressionThreshold !== undefined ? worse && c.distinguishable : undefined;
    return { ...base, change: c, regression };
  });
  const compared = rows.filter(isCompared);
  const v = verdictPairs(a, b);
  return {
    a: runInfo(a, "A"),
    b: runInfo(b, "B"),
    rows,
    common: compared.length,
    distinguishable: compared.filter((r) => r.change.distinguishable).length,
    regressions: compared.filter((r) => r.regression).length,
    minPossibleP,
    verdicts: v.verdicts,
    verdictsNote: v.note,
  };
}

/** Loads the runs (ids, prefixes, "latest of notebook NN"), checks them, and compares each with the first. */
export function compareRuns(refs: readonly string[], options: CompareOptions = {}): Comparison {
  const alpha = options.alpha ?? DEFAULT_ALPHA;
  if (!(alpha > 0 && alpha < 1)) throw new CompareInputError(`alpha must be between 0 and 1, got ${alpha}`);
  if (options.regressionThreshold !== undefined && !(options.regressionThreshold >= 0)) {
    throw new CompareInputError(`the regression threshold must be ≥ 0, got ${options.regressionThreshold}`);
  }
  if (refs.length < 2) throw new CompareInputError(`name at least two runs to compare (got ${refs.length})`);
  const { runs, warnings } = resolveForComparison(refs, options.root ?? resultsRoot());
  const notebooks = [runs[0].notebook];
  const metric = options.metric !== undefined ? METRICS[options.metric] : defaultMetric(runs[0].trials);
  if (!metric)
    throw new CompareInputError(`unknown metric "${options.metric}"; known: ${Object.keys(METRICS).join(", ")}`);
  const read = READERS[metric.name];
  for (const run of runs) {
    if (!run.trials.some((t) => t.status === "ok" && read(t) !== undefined)) {
      throw new CompareInputError(`run ${run.id} has no finished trial with a ${metric.name} value`);
    }
  }
  const o = { ...options, alpha };
  const pairs = runs.slice(1).map((b) => comparePair(runs[0], b, read, metric, o));
  pairs.forEach((p) => {
    if (p.common === 0) {
      throw new CompareInputError(
        `runs ${p.a.id} and ${p.b.id} have no condition in common: their parameters differ too much ` +
          "(compare their params.json)",
      );
    }
  });
  const { rows, identical } = configDiff(runs);
  return {
    notebook: notebooks[0],
    metric,
    alpha,
    regressionThreshold: options.regressionThreshold,
    runs: runs.map((r, i) => runInfo(r, i === 0 ? "A" : runs.length === 2 ? "B" : String.fromCharCode(65 + i))),
    config: rows,
    identicalFields: identical,
    pairs: pairs.map((p, i) => ({ ...p, b: { ...p.b, label: runs.length === 2 ? "B" : String.fromCharCode(66 + i) } })),
    warnings,
  };
}

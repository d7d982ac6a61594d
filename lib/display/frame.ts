/**
 * A run's trials as a danfo DataFrame for one's own cut, one row per trial, e.g.
 *   lab.frame(run).groupby(["fillfactor"]).agg({ seconds: ["median", "count"] })
 * `lab.frame("latest of notebook 01")` (or a run id or prefix) reads a stored run.
 */
import type { DataFrame } from "danfojs-node";
import type { DataFrame as FrameView } from "danfojs-node/dist/danfojs-base";
import type { TrialRecord } from "../results/run-store";
import { resolveRun } from "../results/stored-runs";
import { escapeHtml, noteHtml, show } from "./output";
import { tableHtml, toDataFrame, type Row, type TableOptions } from "./table";
import { errorMessage } from "../runtime/error-message";

/** A notebook's run (`lab.indexWriteCost.run(…)`) or a stored run (`lab.listRuns()`). */
export interface TrialsSource {
  readonly trials: readonly TrialRecord<object, string>[];
  readonly runId?: string;
  readonly id?: string;
  readonly metadata?: { readonly notebook?: string };
  readonly notebook?: string;
}

type Scalar = string | number | boolean | null;
const isScalar = (v: unknown): v is Scalar =>
  v === null || typeof v === "string" || typeof v === "number" || typeof v === "boolean";
const isRecord = (v: unknown): v is Record<string, unknown> => typeof v === "object" && v !== null && !Array.isArray(v);

/**
 * One trial as a flat row: identity columns, condition keys, counters by name, the timed units, and
 * scalar fields up to one level deep; deeper structures stay in trials.jsonl.
 */
export function trialRow(trial: TrialRecord<object, string>, run: string, notebook: string): Row {
  const row: Record<string, Scalar> = {
    run,
    notebook,
    key: trial.key,
    repeat: trial.repeat,
    position: trial.position ?? null,
    status: trial.status,
    seconds: trial.status === "ok" ? trial.seconds : null,
  };
  const put = (name: string, value: Scalar) => {
    // A condition key named like an identity column keeps its prefix.
    row[name in row ? `condition.${name}` : name] = value;
  };
  for (const [k, v] of Object.entries(trial.condition as Record<string, unknown>)) {
    if (isScalar(v)) put(k, v);
    else if (Array.isArray(v)) put(k, v.join(" "));
  }
  for (const [k, v] of Object.entries(trial.counters ?? {}) as [string, unknown][])
    if (typeof v === "number") row[k] = v;
  if (trial.unitMs?.length) {
    const sorted = [...trial.unitMs].sort((a, b) => a - b);
    const mid = Math.floor(sorted.length / 2);
    row.units = sorted.length;
    row["unit median ms"] = sorted.length % 2 ? sorted[mid] : (sorted[mid - 1] + sorted[mid]) / 2;
  }
  const skip = new Set(["key", "condition", "repeat", "position", "status", "seconds", "unitMs", "counters"]);
  for (const [k, v] of Object.entries(trial as unknown as Record<string, unknown>)) {
    if (skip.has(k)) continue;
    if (isScalar(v)) row[k in row ? `trial.${k}` : k] = v;
    else if (isRecord(v)) {
      for (const [sub, x] of Object.entries(v)) if (isScalar(x)) row[`${k}.${sub}`] = x;
    }
  }
  return row;
}

export function trialRows(source: TrialsSource): Row[] {
  const run = source.runId ?? source.id ?? "";
  const notebook = source.metadata?.notebook ?? source.notebook ?? "";
  return source.trials.map((t) => trialRow(t, run, notebook));
}

/** A run's trials as a danfo DataFrame: a run object, or a stored run by id, prefix or "latest of notebook NN". */
export function frame(source: TrialsSource | string): DataFrame {
  return toDataFrame(trialRows(typeof source === "string" ? resolveRun(source) : source));
}

/** What `groupby(keys).agg(aggregates)` takes: for each column, danfo's names ("median", "count", "mean" …). */
export type Aggregates = Readonly<Record<string, readonly string[]>>;

/**
 * `frame.groupby(keys).agg(aggregates)` as a table's HTML. Written here because danfo's groupby throws an internal
 * TypeError on a frame with no rows (a run whose every trial failed, or a query that matched none) and names no
 * column it lacks; both are said in words instead, before danfo is called.
 */
export function groupedHtml(
  frame: DataFrame | FrameView,
  keys: readonly string[],
  aggregates: Aggregates,
  options: TableOptions = {},
): string {
  // Through values: a column named like a method (07's "column") shadows danfo's accessors.
  const at = frame.columns.indexOf("status");
  const statuses = at < 0 ? [] : (frame.values as unknown[][]).map((row) => row[at]);
  if (frame.shape[0] === 0 || (at >= 0 && !statuses.includes("ok"))) {
    const what = frame.shape[0] === 0 ? "no trial of this run matched" : "no trial of this run finished";
    return noteHtml(escapeHtml(`Nothing to group by ${keys.join(", ")}: ${what}.`), "#999", "#f6f6f6");
  }
  const missing = [...keys, ...Object.keys(aggregates)].filter((c) => !frame.columns.includes(c));
  if (missing.length) {
    const names = missing.map((c) => `"${c}"`).join(", ");
    throw new Error(`no column ${names} in this frame; its columns: ${frame.columns.join(", ")}`);
  }
  const ops = Object.fromEntries(Object.entries(aggregates).map(([c, names]) => [c, [...names]]));
  try {
    return tableHtml(frame.groupby([...keys]).agg(ops), options);
  } catch (error) {
    // danfo's statistics throw on a missing value (a failed trial's counters) without naming the column.
    const message = errorMessage(error);
    throw new Error(
      `groupby(${JSON.stringify(keys)}).agg(…) failed: ${message}; a column with missing values? ` +
        `keep the finished trials first: frame.query(frame["status"].eq("ok"))`,
      { cause: error },
    );
  }
}

/** `groupedHtml` shown: a notebook's own cut, e.g. `lab.showGrouped(ok, ["level"], { seconds: ["median"] })`. */
export function showGrouped(
  frame: DataFrame | FrameView,
  keys: readonly string[],
  aggregates: Aggregates,
  options: TableOptions = {},
): void {
  show().html(groupedHtml(frame, keys, aggregates, options));
}

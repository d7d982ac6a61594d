/**
 * Tables: results are shown as HTML tables, and become danfo DataFrames when a reader asks for one
 * (`lab.frame`), to query, sort and export in a cell. danfo has no HTML renderer of its own, hence
 * the few lines here.
 *
 * danfojs-node is required only when a frame is built: it brings @tensorflow/tfjs, and loading it
 * took 1.9 s of the 3.8 s `node build/scripts/reproduce.js --help` took here (2 shared cores), in
 * every run and every kernel whether or not a cell asks for a frame. Tables of rows need none of it.
 */
import type { DataFrame } from "danfojs-node";
import { escapeHtml, show } from "./output";

export type Row = Readonly<Record<string, string | number | boolean | null | undefined>>;

/** Every row's keys, in first-seen order. */
function columnsOf(rows: readonly Row[]): string[] {
  return [...new Set(rows.flatMap((r) => Object.keys(r)))];
}

export function toDataFrame(rows: readonly Row[]): DataFrame {
  // eslint-disable-next-line @typescript-eslint/no-require-imports -- lazily: see the file's comment
  const danfo = require("danfojs-node") as typeof import("danfojs-node");
  // danfo refuses an empty list; an empty frame needs explicit columns.
  if (!rows.length) return new danfo.DataFrame([], { columns: [] });
  // danfo takes the columns from the first row and the values by position: give every row every
  // column (first-seen order) so a key missing from some rows cannot shift the others.
  const columns = columnsOf(rows);
  return new danfo.DataFrame(rows.map((r) => Object.fromEntries(columns.map((c) => [c, r[c] ?? null]))));
}

export interface TableOptions {
  readonly caption?: string;
  /** Significant digits for numbers (default 3); integers are shown whole. */
  readonly digits?: number;
}

export function formatNumber(value: number, digits = 3): string {
  if (!Number.isFinite(value)) return String(value);
  if (Number.isInteger(value)) return value.toLocaleString("en-US");
  const abs = Math.abs(value);
  if (abs >= 1000) return Math.round(value).toLocaleString("en-US");
  return value.toPrecision(digits);
}

/**
 * Rows, or a frame. Not `instanceof DataFrame`: what danfo's query, groupby and agg return is built
 * from danfojs-base's own DataFrame class, not danfojs-node's, and would be taken for rows.
 */
function isRows(frame: DataFrame | readonly Row[]): frame is readonly Row[] {
  return Array.isArray(frame);
}

export function tableHtml(frame: DataFrame | readonly Row[], options: TableOptions = {}): string {
  const columns = isRows(frame) ? columnsOf(frame) : frame.columns;
  const values = isRows(frame) ? frame.map((r) => columns.map((c) => r[c] ?? null)) : (frame.values as unknown[][]);
  const cell = (v: unknown): string => {
    if (typeof v === "number") return `<td style="text-align:right">${formatNumber(v, options.digits)}</td>`;
    if (v === null || v === undefined || (typeof v === "number" && Number.isNaN(v))) return "<td></td>";
    const text =
      typeof v === "string" ? v : typeof v === "boolean" || typeof v === "bigint" ? v.toString() : JSON.stringify(v);
    return `<td>${escapeHtml(text ?? "")}</td>`;
  };
  const head = columns.map((c) => `<th>${escapeHtml(c)}</th>`).join("");
  const body = values.map((row) => `<tr>${row.map(cell).join("")}</tr>`).join("\n");
  const caption = options.caption
    ? `<caption style="caption-side:top;text-align:left;font-weight:bold">${escapeHtml(options.caption)}</caption>`
    : "";
  return `<table class="dblab-table">${caption}<thead><tr>${head}</tr></thead><tbody>${body}</tbody></table>`;
}

export function showTable(frame: DataFrame | readonly Row[], options: TableOptions = {}): void {
  show().html(tableHtml(frame, options));
}

type SortValue = number | string | boolean | null | undefined;
/**
 * One key of a reading order: a value (numbers ascending, strings alphabetically, missing last),
 * or a value with its fixed order (`[t => t.engine, ["postgresql", "mongodb"]]`; values not in
 * the list come after it).
 */
export type SortKey<T> = ((item: T) => SortValue) | readonly [(item: T) => SortValue, readonly SortValue[]];

function compareValues(a: SortValue, b: SortValue): number {
  const aMissing = a === null || a === undefined || (typeof a === "number" && Number.isNaN(a));
  const bMissing = b === null || b === undefined || (typeof b === "number" && Number.isNaN(b));
  if (aMissing || bMissing) return aMissing === bMissing ? 0 : aMissing ? 1 : -1;
  if (typeof a === "number" && typeof b === "number") return a - b;
  return String(a).localeCompare(String(b), "en", { numeric: true });
}

/**
 * The items in reading order: by the first key, ties by the next, and so on; items equal on every
 * key keep their order (Array.prototype.sort is stable). Hand-written because danfo's sortValues
 * sorts by one column and knows no fixed orders (INSERT before UPDATE, baseline before REINDEX).
 */
export function sortedBy<T>(items: readonly T[], ...keys: readonly SortKey<T>[]): T[] {
  const comparators = keys.map((key) => {
    if (typeof key === "function") return (a: T, b: T) => compareValues(key(a), key(b));
    const [pick, order] = key;
    const rank = (v: SortValue): number => {
      const i = order.indexOf(v);
      return i < 0 ? order.length : i;
    };
    return (a: T, b: T) => rank(pick(a)) - rank(pick(b)) || compareValues(pick(a), pick(b));
  });
  return [...items].sort((a, b) => {
    for (const c of comparators) {
      const d = c(a, b);
      if (d !== 0) return d;
    }
    return 0;
  });
}

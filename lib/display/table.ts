/**
 * Results as HTML tables, and as danfo DataFrames on request (`lab.frame`). danfojs-node is required
 * only when a frame is built: its tensorflow load is slow (docs/architecture.md).
 */
import type { DataFrame } from "danfojs-node";
import { escapeHtml, show } from "./output";

export type Row = Readonly<Record<string, string | number | boolean | null | undefined>>;

function columnsOf(rows: readonly Row[]): string[] {
  return [...new Set(rows.flatMap((r) => Object.keys(r)))];
}

export function toDataFrame(rows: readonly Row[]): DataFrame {
  // eslint-disable-next-line @typescript-eslint/no-require-imports -- lazily: see the file's comment
  const danfo = require("danfojs-node") as typeof import("danfojs-node");
  // danfo refuses an empty list; an empty frame needs explicit columns.
  if (!rows.length) return new danfo.DataFrame([], { columns: [] });
  // danfo takes values by position from the first row's columns: give every row every column.
  const columns = columnsOf(rows);
  return new danfo.DataFrame(rows.map((r) => Object.fromEntries(columns.map((c) => [c, r[c] ?? null]))));
}

export interface TableOptions {
  readonly caption?: string;
  /** Default 3; integers whole. */
  readonly digits?: number;
}

export function formatNumber(value: number, digits = 3): string {
  if (!Number.isFinite(value)) return String(value);
  if (Number.isInteger(value)) return value.toLocaleString("en-US");
  const abs = Math.abs(value);
  if (abs >= 1000) return Math.round(value).toLocaleString("en-US");
  return value.toPrecision(digits);
}

/** Not `instanceof DataFrame`: danfo's query/groupby results are danfojs-base's class. */
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
/** Numbers ascending, strings alphabetically, missing last, or a fixed order. */
export type SortKey<T> = ((item: T) => SortValue) | readonly [(item: T) => SortValue, readonly SortValue[]];

function compareValues(a: SortValue, b: SortValue): number {
  const aMissing = a === null || a === undefined || (typeof a === "number" && Number.isNaN(a));
  const bMissing = b === null || b === undefined || (typeof b === "number" && Number.isNaN(b));
  if (aMissing || bMissing) return aMissing === bMissing ? 0 : aMissing ? 1 : -1;
  if (typeof a === "number" && typeof b === "number") return a - b;
  return String(a).localeCompare(String(b), "en", { numeric: true });
}

/** danfo's sortValues takes one column and no fixed orders. */
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

/** A cell's number at `d` decimals; undefined stays blank. */
export const rounded = (x: number | undefined, d = 2): number | undefined =>
  x === undefined ? undefined : Math.round(x * 10 ** d) / 10 ** d;

/**
 * Tables: results become danfo DataFrames (so a reader can query, sort and export them in a cell),
 * and are shown as HTML tables. danfo has no HTML renderer of its own, hence the few lines here.
 */
import { DataFrame } from "danfojs-node";
import { escapeHtml, show } from "./output";

export type Row = Readonly<Record<string, string | number | boolean | null | undefined>>;

export function toDataFrame(rows: readonly Row[]): DataFrame {
  // danfo refuses an empty list; an empty frame needs explicit columns.
  if (!rows.length) return new DataFrame([], { columns: [] });
  // danfo takes the columns from the first row and the values by position: give every row every
  // column (first-seen order) so a key missing from some rows cannot shift the others.
  const columns = [...new Set(rows.flatMap((r) => Object.keys(r)))];
  return new DataFrame(rows.map((r) => Object.fromEntries(columns.map((c) => [c, r[c] ?? null]))));
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

export function tableHtml(frame: DataFrame | readonly Row[], options: TableOptions = {}): string {
  const df = frame instanceof DataFrame ? frame : toDataFrame(frame);
  const columns = df.columns;
  const values = df.values as unknown[][];
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

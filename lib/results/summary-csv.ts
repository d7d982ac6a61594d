/**
 * summary.csv as every notebook writes it: its own rows, led by the run id and the notebook, so the
 * CSVs of several runs and notebooks stack into one table (`pandas.concat`, or DuckDB's read_csv
 * over a glob with union_by_name: docs/analysis.md). The columns are the union of
 * every row's, in first-seen order: a notebook whose rows differ by kind loses none.
 */
import { stringify } from "csv-stringify/sync";

export function summaryCsv(
  rows: readonly Readonly<Record<string, unknown>>[],
  run: { readonly runId: string; readonly notebook: string },
): string {
  const led = rows.map((r) => ({ run_id: run.runId, notebook: run.notebook, ...r }));
  const columns = [...new Set(["run_id", "notebook", ...led.flatMap((r) => Object.keys(r))])];
  return stringify(led, { header: true, columns });
}

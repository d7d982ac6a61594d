/**
 * summary.csv: each notebook's rows led by run id and notebook, so several runs' CSVs stack into one
 * table (docs/analysis.md); columns are the union of every row's, first-seen order.
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

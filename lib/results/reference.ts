/** The seeds' published figures (data/reference/published-results.csv, copied from the seeds). */
import fs from "node:fs";
import path from "node:path";
import { parse } from "csv-parse/sync";
import { citationText, seedCitation } from "./seeds";

export interface PublishedFigure {
  readonly experiment: string;
  readonly seedFile: string;
  readonly engine: string;
  readonly series: string;
  readonly condition: string;
  readonly rows: number | undefined;
  readonly extraIndexes: number | undefined;
  readonly value: number;
  readonly unit: string;
  readonly note: string;
  /** The seed as a reader can find it (title, author, publication, year, URL: lib/results/seeds.ts). */
  readonly source: string;
}

export function referenceFile(): string {
  return path.resolve(__dirname, "..", "..", "..", "data", "reference", "published-results.csv");
}

export function publishedFigures(experiment?: string): PublishedFigure[] {
  const records = parse<Record<string, string>>(fs.readFileSync(referenceFile(), "utf8"), {
    columns: true,
    skip_empty_lines: true,
  });
  const num = (v: string | undefined) => (v === undefined || v === "" ? undefined : Number(v));
  return records
    .map((r) => ({
      experiment: r.experiment,
      seedFile: r.seed_file,
      engine: r.engine,
      series: r.series,
      condition: r.condition,
      rows: num(r.rows),
      extraIndexes: num(r.extra_indexes),
      value: Number(r.value),
      unit: r.unit,
      note: r.note ?? "",
      source: citationText(seedCitation(r.seed_file)),
    }))
    .filter((f) => experiment === undefined || f.experiment === experiment);
}

/**
 * The seed's published figures (data/reference/published-results.csv), read once for the
 * seed-beside-ours table, the size sweep's chart and claim (1b)'s why.
 */
import { publishedFigures } from "../../results/reference";

const EXPERIMENT = "create_index_after_load";

export interface SeedFigures {
  readonly loadThenIndexS: number;
  readonly indexThenLoadS: number;
  readonly ratio: number;
  readonly walRecordsRatio: number;
  readonly rows: number;
}

export function seedFigures(): SeedFigures {
  const f = publishedFigures(EXPERIMENT);
  const value = (series: string) => {
    const hit = f.find((x) => x.series === series);
    if (!hit) throw new Error(`data/reference/published-results.csv has no ${EXPERIMENT} row "${series}"`);
    return hit;
  };
  const a = value("load_then_create_index");
  const b = value("index_then_load");
  return {
    loadThenIndexS: a.value,
    indexThenLoadS: b.value,
    ratio: b.value / a.value,
    walRecordsRatio: value("wal_records_ratio").value,
    rows: a.rows ?? 100_000_000,
  };
}

/** The seed's published figures (data/reference/published-results.csv). */
import { publishedFigures } from "../../results/reference";

export function seedFigures() {
  const f = publishedFigures("create_index_after_load");
  const value = (series: string) => {
    const hit = f.find((x) => x.series === series);
    if (!hit) throw new Error(`data/reference/published-results.csv has no create_index_after_load row "${series}"`);
    return hit;
  };
  const [a, b] = [value("load_then_create_index"), value("index_then_load")];
  return {
    loadThenIndexS: a.value,
    indexThenLoadS: b.value,
    ratio: b.value / a.value,
    walRecordsRatio: value("wal_records_ratio").value,
    rows: a.rows ?? 100_000_000,
  };
}

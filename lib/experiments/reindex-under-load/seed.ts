/** Seed 003's published figures per set (TPS and the accounts UPDATE's -r latency), for tables and charts. */
import { publishedFigures } from "../../results/reference";

export interface SeedSet {
  readonly set: number;
  readonly baselineTps: number;
  readonly reindexTps: number;
  readonly baselineUpdateMs?: number;
  readonly reindexUpdateMs?: number;
}

/** The seed's three sets: TPS and the accounts UPDATE's -r latency, without and with REINDEX. */
export function seedSets(): SeedSet[] {
  const figures = publishedFigures("reindex_impact");
  const value = (series: string, condition: string) =>
    figures.find((f) => f.series === series && f.condition === condition)?.value;
  const sets = [...new Set(figures.map((f) => f.condition).filter((c) => /^set\d+$/.test(c)))].sort();
  return sets.flatMap((c) => {
    const base = value("tps_without_reindex", c);
    const re = value("tps_with_reindex", c);
    return base !== undefined && re !== undefined
      ? [
          {
            set: Number(c.slice(3)),
            baselineTps: base,
            reindexTps: re,
            baselineUpdateMs: value("update_accounts_latency_without_reindex", c),
            reindexUpdateMs: value("update_accounts_latency_with_reindex", c),
          },
        ]
      : [];
  });
}

/** The seed's first set's UPDATE latencies (the present table's seed row). */
export function seedUpdateLatency(): { baselineMs?: number; reindexMs?: number } {
  const s = seedSets()[0];
  return { baselineMs: s?.baselineUpdateMs, reindexMs: s?.reindexUpdateMs };
}

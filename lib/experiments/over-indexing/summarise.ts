/**
 * Notebook 03's figures from the raw rounds: per round TPS, latency percentiles, WAL and blocks per
 * transaction, index entries written, HOT share, cache hit ratio, sizes; per level the medians over
 * rounds and the ratio to the 7-index level.
 */
import { publishedFigures } from "../../results/reference";
import { groupBy, ratioOfMedians, spread, type Ratio, type Spread } from "../../stats/summary";
import { pgbenchFigures, type PgbenchFigures, type SeriesPoint } from "../../workloads/pgbench";
import { TABLES, type InventoryTable } from "../../workloads/over-indexing/schema";
import type { StatementStats } from "../../workloads/over-indexing/observations";
import type { OverIndexingTrial } from "../../workloads/over-indexing/run-trials";

export interface TableFigures {
  /** Indexes on the table in this round. */
  readonly indexes: number;
  readonly tableBytesBefore: number;
  readonly tableBytesAfter: number;
  readonly indexBytesBefore: number;
  readonly indexBytesAfter: number;
  readonly inserted: number;
  readonly updated: number;
  readonly hotUpdated: number;
}

export interface RoundSummary extends PgbenchFigures {
  readonly key: string;
  readonly level: number;
  readonly repeat: number;
  readonly series: readonly SeriesPoint[];
  readonly walBytesPerTx?: number;
  /** WAL written during the round, bytes. */
  readonly walBytes: number;
  readonly walRecordsPerTx?: number;
  readonly walFpiPerTx?: number;
  /** Buffer cache hit ratio of the database during the round: blks_hit / (blks_hit + blks_read). */
  readonly hitRatio?: number;
  /** Blocks read into shared buffers during the round, and the time spent reading them (track_io_timing). */
  readonly blocksRead: number;
  readonly blockReadMs: number;
  /** Buffers evicted from shared buffers to make room (pg_stat_io, all backends): 0 = every read was a first touch. */
  readonly evictions: number;
  /** Shared blocks dirtied per transaction (pg_stat_statements). */
  readonly dirtiedPerTx?: number;
  /** New index entries per transaction: Σ tables (inserted + non-HOT updated rows) × its indexes. */
  readonly indexEntriesPerTx?: number;
  /** Index blocks touched (hit + read) per transaction (pg_statio_user_tables). */
  readonly indexBlocksPerTx?: number;
  /** Share of stock updates that were HOT (no new index entries). */
  readonly stockHotShare?: number;
  /** Growth of all tables and all indexes over the round, bytes; and index growth per transaction. */
  readonly tableGrowthBytes: number;
  readonly indexGrowthBytes: number;
  readonly indexGrowthPerTx?: number;
  readonly checkpoints: number;
  readonly checkpointerBuffers: number;
  readonly bgwriterBuffers: number;
  /** Buffers written by the clients' own backends (pg_stat_io): work the bgwriter did not take off them. */
  readonly backendWrites: number;
  readonly tables: Readonly<Record<InventoryTable, TableFigures>>;
  readonly statements: readonly StatementStats[];
  readonly cloneSeconds?: number;
  readonly indexBuildSeconds?: number;
}

export interface LevelSummary {
  readonly level: number;
  readonly rounds: number;
  readonly tps: Spread;
  readonly latencyAvgMs?: Spread;
  readonly p50Ms?: number;
  readonly p95Ms?: number;
  readonly p99Ms?: number;
  /** TPS ÷ TPS at 7 indexes (medians, bootstrap CI). */
  readonly tpsRatio?: Ratio;
  readonly latencyRatio?: Ratio;
  readonly walBytesPerTx?: number;
  readonly walFpiPerTx?: number;
  readonly dirtiedPerTx?: number;
  readonly indexEntriesPerTx?: number;
  readonly indexBlocksPerTx?: number;
  readonly stockHotShare?: number;
  readonly hitRatio?: number;
  readonly minHitRatio?: number;
  readonly tableGrowthBytes?: number;
  readonly indexGrowthBytes?: number;
  readonly indexGrowthPerTx?: number;
  readonly checkpoints: number;
  readonly backendWrites?: number;
  readonly walMiB?: number;
  readonly checkpointerBuffers?: number;
  readonly bgwriterBuffers?: number;
}

export interface OverIndexingSummary {
  readonly durationSeconds: number;
  readonly clients: number;
  readonly rounds: readonly RoundSummary[];
  readonly levels: readonly LevelSummary[];
  readonly failed: readonly { readonly key: string; readonly error: string }[];
}

const sum = (o: Readonly<Record<string, number>> | undefined, prefix: string): number =>
  Object.entries(o ?? {}).reduce((a, [k, v]) => (k.startsWith(prefix) ? a + v : a), 0);

function tableFigures(t: OverIndexingTrial, table: InventoryTable): TableFigures {
  const c = t.counters ?? {};
  const before = t.sizesBefore ?? {};
  const after = t.sizesAfter ?? {};
  return {
    indexes: Object.keys(after).filter((k) => k.startsWith(`index.${table}.`)).length,
    tableBytesBefore: before[`table.${table}`] ?? 0,
    tableBytesAfter: after[`table.${table}`] ?? 0,
    indexBytesBefore: sum(before, `index.${table}.`),
    indexBytesAfter: sum(after, `index.${table}.`),
    inserted: c[`table.${table}.n_tup_ins`] ?? 0,
    updated: c[`table.${table}.n_tup_upd`] ?? 0,
    hotUpdated: c[`table.${table}.n_tup_hot_upd`] ?? 0,
  };
}

function summariseRound(t: OverIndexingTrial): RoundSummary {
  const b = t.pgbench!;
  const c = t.counters ?? {};
  const n = b.summary.transactions;
  const per = (x: number | undefined) => (x === undefined || !n ? undefined : x / n);
  const tables = Object.fromEntries(TABLES.map((name) => [name, tableFigures(t, name)])) as Record<InventoryTable, TableFigures>;
  const entries = TABLES.reduce((a, name) => {
    const f = tables[name];
    return a + (f.inserted + f.updated - f.hotUpdated) * f.indexes;
  }, 0);
  const hit = c["db.blks_hit"];
  const read = c["db.blks_read"];
  const dirtied = (t.statements ?? []).reduce((a, s) => a + s.sharedDirtied, 0);
  const indexBlocks = TABLES.reduce((a, name) => a + (c[`table.${name}.idx_blks_hit`] ?? 0) + (c[`table.${name}.idx_blks_read`] ?? 0), 0);
  const tableGrowth = TABLES.reduce((a, name) => a + tables[name].tableBytesAfter - tables[name].tableBytesBefore, 0);
  const indexGrowth = TABLES.reduce((a, name) => a + tables[name].indexBytesAfter - tables[name].indexBytesBefore, 0);
  const stock = tables.stock;
  return {
    key: t.key,
    level: t.condition.level,
    repeat: t.repeat,
    ...pgbenchFigures(b),
    series: b.series,
    walBytesPerTx: per(c["wal.bytes"]),
    walBytes: c["wal.bytes"] ?? 0,
    walRecordsPerTx: per(c["wal.records"]),
    walFpiPerTx: per(c["wal.fpi"]),
    hitRatio: hit !== undefined && read !== undefined && hit + read > 0 ? hit / (hit + read) : undefined,
    blocksRead: read ?? 0,
    blockReadMs: c["db.blk_read_time_ms"] ?? 0,
    evictions: Object.entries(c).reduce((a, [k, v]) => (k.startsWith("io.") && k.includes(".relation.") && k.endsWith(".evictions") ? a + v : a), 0),
    dirtiedPerTx: per(dirtied),
    indexEntriesPerTx: per(entries),
    indexBlocksPerTx: per(indexBlocks),
    stockHotShare: stock.updated ? stock.hotUpdated / stock.updated : undefined,
    tableGrowthBytes: tableGrowth,
    indexGrowthBytes: indexGrowth,
    indexGrowthPerTx: per(indexGrowth),
    checkpoints: (c["checkpointer.timed"] ?? 0) + (c["checkpointer.requested"] ?? 0),
    checkpointerBuffers: c["checkpointer.buffers_written"] ?? 0,
    bgwriterBuffers: c["bgwriter.buffers_clean"] ?? 0,
    backendWrites: ioCounter(c, "client backend", "writes"),
    tables,
    statements: t.statements ?? [],
    cloneSeconds: t.prepared?.cloneSeconds,
    indexBuildSeconds: t.prepared?.indexSeconds,
  };
}

/** Σ of `io.<backend>.relation.*.<counter>` (pg_stat_io, relations only). */
function ioCounter(c: Readonly<Record<string, number>>, backend: string, counter: string): number {
  return Object.entries(c).reduce((a, [k, v]) => (k.startsWith(`io.${backend}.relation.`) && k.endsWith(`.${counter}`) ? a + v : a), 0);
}

function med(values: readonly (number | undefined)[]): number | undefined {
  const v = values.filter((x): x is number => x !== undefined && Number.isFinite(x));
  return v.length ? spread(v).median : undefined;
}

export function summarise(trials: readonly OverIndexingTrial[], durationSeconds: number, clients: number): OverIndexingSummary {
  const ok = trials.filter((t) => t.status === "ok" && t.pgbench);
  const rounds = ok.map(summariseRound).sort((a, b) => a.level - b.level || a.repeat - b.repeat);
  const byLevel = groupBy(rounds, (r) => String(r.level));
  const base = byLevel.get(String(Math.min(...rounds.map((r) => r.level))));
  const levels: LevelSummary[] = [...byLevel.values()].map((group) => {
    const level = group[0].level;
    const lat = group.map((r) => r.latencyAvgMs).filter((x): x is number => x !== undefined);
    const baseLat = base?.map((r) => r.latencyAvgMs).filter((x): x is number => x !== undefined) ?? [];
    const hits = group.map((r) => r.hitRatio).filter((x): x is number => x !== undefined);
    return {
      level,
      rounds: group.length,
      tps: spread(group.map((r) => r.tps)),
      latencyAvgMs: lat.length ? spread(lat) : undefined,
      p50Ms: med(group.map((r) => r.p50Ms)),
      p95Ms: med(group.map((r) => r.p95Ms)),
      p99Ms: med(group.map((r) => r.p99Ms)),
      tpsRatio: base && base[0].level !== level ? ratioOfMedians(group.map((r) => r.tps), base.map((r) => r.tps)) : undefined,
      latencyRatio: baseLat.length && lat.length && base![0].level !== level ? ratioOfMedians(lat, baseLat) : undefined,
      walBytesPerTx: med(group.map((r) => r.walBytesPerTx)),
      walFpiPerTx: med(group.map((r) => r.walFpiPerTx)),
      dirtiedPerTx: med(group.map((r) => r.dirtiedPerTx)),
      indexEntriesPerTx: med(group.map((r) => r.indexEntriesPerTx)),
      indexBlocksPerTx: med(group.map((r) => r.indexBlocksPerTx)),
      stockHotShare: med(group.map((r) => r.stockHotShare)),
      hitRatio: med(hits),
      minHitRatio: hits.length ? Math.min(...hits) : undefined,
      tableGrowthBytes: med(group.map((r) => r.tableGrowthBytes)),
      indexGrowthBytes: med(group.map((r) => r.indexGrowthBytes)),
      indexGrowthPerTx: med(group.map((r) => r.indexGrowthPerTx)),
      checkpoints: group.reduce((a, r) => a + r.checkpoints, 0),
      backendWrites: med(group.map((r) => r.backendWrites)),
      walMiB: med(group.map((r) => r.walBytes / 2 ** 20)),
      checkpointerBuffers: med(group.map((r) => r.checkpointerBuffers)),
      bgwriterBuffers: med(group.map((r) => r.bgwriterBuffers)),
    };
  });
  return {
    durationSeconds,
    clients,
    rounds,
    levels: levels.sort((a, b) => a.level - b.level),
    failed: trials.filter((t) => t.status === "failed").map((t) => ({ key: t.key, error: t.error ?? "" })),
  };
}

/** The seed's TPS per index level (read from its chart). */
export function seedTps(): { level: number; tps: number }[] {
  return publishedFigures("over_indexing_tps")
    .filter((f) => f.series === "tps" && f.extraIndexes !== undefined)
    .map((f) => ({ level: f.extraIndexes!, tps: f.value }))
    .sort((a, b) => a.level - b.level);
}

/** The seed's curve scaled so that its 7-index TPS equals ours: the shape to compare against. */
export function seedCurveScaledTo(ourTpsAt7: number): { level: number; tps: number; ratio: number }[] {
  const seed = seedTps();
  const at7 = seed.find((s) => s.level === 7)?.tps;
  if (!at7) return [];
  return seed.map((s) => ({ level: s.level, ratio: s.tps / at7, tps: (s.tps / at7) * ourTpsAt7 }));
}

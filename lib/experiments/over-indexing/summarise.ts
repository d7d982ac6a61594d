/**
 * Notebook 03's figures from the raw rounds: per round TPS, latency, WAL, blocks, B-tree inserts
 * (counted in the WAL) and the model of them, sizes; per level the medians over rounds and ratios to
 * other levels, paired per round (every level runs once in each round), with an exact interval of
 * their median.
 */
import { sameStatePairs, speedSpread, type SpeedSpread, type StatePairs } from "../../stats/speed";
import { publishedFigures } from "../../results/reference";
import { medianInterval, outlierFlags, type Interval } from "../../stats/intervals";
import type { LookPlan } from "../../stats/adaptive";
import { groupBy, spread, type Spread } from "../../stats/summary";
import { counterEntries, sumCounters, type Counters } from "../../stats/counters";
import type { PgIoCounter } from "../../engines/postgres/server-counters";
import { pgbenchFigures, type PgbenchRunResult } from "../../workloads/pgbench";
import { TABLES, type InventoryTable } from "./workload/schema";
import type { OverIndexingTrial } from "./workload/run-trials";

/** A table's figures in a round: its indexes, its and their bytes before and after, its rows written. */
export type TableFigures = ReturnType<typeof tableFigures>;
/** A round's figures (per transaction: the delta over the round ÷ its transactions). */
export type RoundSummary = Readonly<ReturnType<typeof summariseRound>>;

/** The round figures a level gives as their median over its rounds. */
const MEDIANS = [
  "p50Ms",
  "p95Ms",
  "p99Ms",
  "walBytesPerTx",
  "walFpiPerTx",
  "dirtiedPerTx",
  "modelIndexEntriesPerTx",
  "btreeInsertsPerTx",
  "btreeSplitsPerTx",
  "btreeWalShare",
  "serverMsPerTx",
  "indexBlocksPerTx",
  "stockHotShare",
  "hitRatio",
  "tableGrowthBytes",
  "indexGrowthBytes",
  "indexGrowthPerTx",
  "backendWrites",
  "checkpointerBuffers",
  "bgwriterBuffers",
] as const satisfies readonly (keyof RoundSummary)[];

export type LevelSummary = Readonly<Partial<Record<(typeof MEDIANS)[number], number>>> & {
  readonly level: number;
  readonly rounds: number;
  readonly tps: Spread;
  readonly latencyAvgMs?: Spread;
  /** TPS ÷ TPS at the lowest level, one ratio per round, and the interval of their median. */
  readonly tpsRatio?: Interval;
  /** Average latency ÷ the lowest level's, paired per round. */
  readonly latencyRatio?: Interval;
  /** Server time per transaction (pg_stat_statements) ÷ the lowest level's, paired per round. */
  readonly serverTimeRatio?: Interval;
  /** TPS ÷ TPS at the next lower level, paired per round (the step claim (1) reads). */
  readonly stepRatio?: Interval;
  readonly minHitRatio?: number;
  readonly checkpoints: number;
  readonly autovacuumRuns: number;
  /** Rounds flagged: disturbed (checkpoint or autovacuum inside) and TPS outliers. */
  readonly disturbedRounds: number;
  readonly outlierRounds: number;
  readonly walMiB?: number;
};

/** What a run of 03 ran on, beyond its trials: read from its metadata and template (index.ts). */
export interface ServerFacts {
  /** The server's CPUs (server-cpus.ts); undefined on an external server. */
  readonly cpus?: number;
  /** The template database's size after the load, bytes. */
  readonly dataBytes?: number;
  readonly sharedBuffersMB?: number;
}

export interface OverIndexingSummary {
  readonly durationSeconds: number;
  /** The server the rounds ran on, when the run is at hand (the claims' regime reads it). */
  readonly server?: ServerFacts;
  readonly clients: number;
  /** The data size as a fraction of the seed's (20M products), when known: named beside any seed figure. */
  readonly dataScale?: number;
  /** The write-path speed probe over the rounds: a between-round ratio carries its spread. */
  readonly speed?: SpeedSpread;
  readonly rounds: readonly RoundSummary[];
  readonly levels: readonly LevelSummary[];
  readonly failed: readonly { readonly key: string; readonly error: string }[];
  /** The adaptive design's looks (stats/adaptive `lookPlan`): the claims engine decides at its per-look coverage. */
  readonly looks?: LookPlan;
}

const sum = (o: Readonly<Record<string, number>> | undefined, prefix: string): number =>
  Object.entries(o ?? {}).reduce((a, [k, v]) => (k.startsWith(prefix) ? a + v : a), 0);

function tableFigures(t: OverIndexingTrial, table: InventoryTable) {
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

function summariseRound(t: OverIndexingTrial & { readonly pgbench: PgbenchRunResult }) {
  const b = t.pgbench;
  const c = t.counters ?? {};
  const n = b.summary.transactions;
  const per = (x: number | undefined) => (x === undefined || !n ? undefined : x / n);
  const tables = Object.fromEntries(TABLES.map((name) => [name, tableFigures(t, name)])) as Record<
    InventoryTable,
    TableFigures
  >;
  const entries = TABLES.reduce((a, name) => {
    const f = tables[name];
    return a + (f.inserted + f.updated - f.hotUpdated) * f.indexes;
  }, 0);
  const hit = c["db.blks_hit"];
  const read = c["db.blks_read"];
  const dirtied = (t.statements ?? []).reduce((a, s) => a + s.sharedDirtied, 0);
  const indexBlocks = TABLES.reduce(
    (a, name) => a + (c[`table.${name}.idx_blks_hit`] ?? 0) + (c[`table.${name}.idx_blks_read`] ?? 0),
    0,
  );
  const tableGrowth = TABLES.reduce((a, name) => a + tables[name].tableBytesAfter - tables[name].tableBytesBefore, 0);
  const indexGrowth = TABLES.reduce((a, name) => a + tables[name].indexBytesAfter - tables[name].indexBytesBefore, 0);
  const stock = tables.stock;
  // Another database wrote during the round: its WAL figures are the server's, not this run's.
  const ownWal = !t.walShared?.length;
  const wal = ownWal ? t.walRecords : undefined;
  const walCount = (kinds: readonly string[]) =>
    wal ? kinds.reduce((a, k) => a + (wal[`Btree/${k}`]?.count ?? 0), 0) : undefined;
  const walTotal = wal ? Object.values(wal).reduce((a, r) => a + r.bytes, 0) : 0;
  const btreeBytes = wal ? Object.entries(wal).reduce((a, [k, r]) => (k.startsWith("Btree/") ? a + r.bytes : a), 0) : 0;
  const heapRecords = wal
    ? Object.entries(wal).reduce((a, [k, r]) => (k.startsWith("Heap/") ? a + r.count : a), 0)
    : undefined;
  const serverMs = (t.statements ?? []).reduce((a, st) => a + st.totalMs, 0);
  const checkpoints = (c["checkpointer.timed"] ?? 0) + (c["checkpointer.requested"] ?? 0);
  const autovacuumRuns = TABLES.reduce(
    (a, name) => a + (c[`table.${name}.autovacuum_count`] ?? 0) + (c[`table.${name}.autoanalyze_count`] ?? 0),
    0,
  );
  return {
    key: t.key,
    level: t.condition.level,
    repeat: t.repeat,
    ...(t.order !== undefined ? { order: t.order } : {}),
    ...(t.speed ? { speedMs: t.speed.medianMs } : {}),
    ...pgbenchFigures(b),
    series: b.series,
    walBytesPerTx: ownWal ? per(c["wal.bytes"]) : undefined,
    // Undefined where another database wrote during the round (walShared).
    walBytes: ownWal ? (c["wal.bytes"] ?? 0) : undefined,
    walRecordsPerTx: ownWal ? per(c["wal.records"]) : undefined,
    walFpiPerTx: ownWal ? per(c["wal.fpi"]) : undefined,
    hitRatio: hit !== undefined && read !== undefined && hit + read > 0 ? hit / (hit + read) : undefined,
    blocksRead: read ?? 0,
    blockReadMs: c["db.blk_read_time_ms"] ?? 0,
    // Buffers evicted to make room (pg_stat_io): 0 = every read was a first touch.
    evictions: counterEntries(c).reduce(
      (a, [k, v]) => (k.startsWith("io.") && k.includes(".relation.") && k.endsWith(".evictions") ? a + v : a),
      0,
    ),
    dirtiedPerTx: per(dirtied),
    // A MODEL: Σ tables (inserted + non-HOT updated rows) × its indexes; then what the WAL MEASURED
    // (pg_walinspect; a split's record carries the new entry).
    modelIndexEntriesPerTx: per(entries),
    btreeInsertsPerTx: per(walCount(["INSERT_LEAF", "INSERT_POST", "SPLIT_L", "SPLIT_R"])),
    btreeSplitsPerTx: per(walCount(["SPLIT_L", "SPLIT_R"])),
    btreeWalShare: wal && walTotal > 0 ? btreeBytes / walTotal : undefined,
    heapRecordsPerTx: per(heapRecords),
    serverMsPerTx: serverMs > 0 ? per(serverMs) : undefined,
    indexBlocksPerTx: per(indexBlocks),
    stockHotShare: stock.updated ? stock.hotUpdated / stock.updated : undefined,
    tableGrowthBytes: tableGrowth,
    indexGrowthBytes: indexGrowth,
    indexGrowthPerTx: per(indexGrowth),
    checkpoints,
    autovacuumRuns,
    disturbed: checkpoints > 0 || autovacuumRuns > 0,
    // TPS far from the level's other rounds (OUTLIER_RULE): set by `summarise`.
    outlier: false as boolean,
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
function ioCounter(c: Counters, backend: string, counter: PgIoCounter): number {
  return sumCounters(c, `io.${backend}.relation.`, `.${counter}`);
}

function med(values: readonly (number | undefined)[]): number | undefined {
  const v = values.filter((x): x is number => x !== undefined && Number.isFinite(x));
  return v.length ? spread(v).median : undefined;
}

/** Per-round ratios of one level's value over another's, for the rounds both finished (paired by round). */
export function pairedLevelValues(
  rounds: readonly RoundSummary[],
  level: number,
  baseLevel: number,
  pick: (r: RoundSummary) => number | undefined,
  keep: (r: RoundSummary) => boolean = () => true,
): number[] {
  return levelPairs(rounds, level, baseLevel, pick, keep).kept.map((p) => p.ratio);
}

interface LevelPair {
  readonly repeat: number;
  readonly ratio: number;
  readonly probes: readonly (number | undefined)[];
}

/**
 * The rounds of two levels paired by repeat, with PAIR_STATE_RULE applied (stats/speed): every pair
 * counts, and a pair whose two rounds' probes split is named for the claims' sensitivity sentence.
 */
function levelPairs(
  rounds: readonly RoundSummary[],
  level: number,
  baseLevel: number,
  pick: (r: RoundSummary) => number | undefined,
  keep: (r: RoundSummary) => boolean = () => true,
): StatePairs<LevelPair> {
  const byRepeat = (l: number) =>
    new Map(
      rounds
        .filter((r) => r.level === l && keep(r))
        .map((r) => [r.repeat, { value: pick(r), speedMs: r.speedMs }] as const)
        .filter(
          (e): e is readonly [number, { value: number; speedMs: number | undefined }] =>
            e[1].value !== undefined && Number.isFinite(e[1].value),
        ),
    );
  const target = byRepeat(level);
  const base = byRepeat(baseLevel);
  const pairs: LevelPair[] = [];
  for (const [repeat, t] of target) {
    const b = base.get(repeat);
    if (b !== undefined && b.value > 0)
      pairs.push({ repeat, ratio: t.value / b.value, probes: [t.speedMs, b.speedMs] });
  }
  return sameStatePairs(
    pairs,
    (p) => p.probes,
    (p) => `${level}/${baseLevel} idx r${p.repeat}`,
  );
}

export function pairedLevelRatio(
  rounds: readonly RoundSummary[],
  level: number,
  baseLevel: number,
  pick: (r: RoundSummary) => number | undefined,
  of: string,
  keep: (r: RoundSummary) => boolean = () => true,
): Interval | undefined {
  const ratios = pairedLevelValues(rounds, level, baseLevel, pick, keep);
  return ratios.length ? medianInterval(ratios, of) : undefined;
}

export function summarise(
  trials: readonly OverIndexingTrial[],
  durationSeconds: number,
  clients: number,
  dataScale?: number,
): OverIndexingSummary {
  const speed = speedSpread(trials);
  const ok = trials.filter(
    (t): t is OverIndexingTrial & { readonly pgbench: PgbenchRunResult } =>
      t.status === "ok" && t.pgbench !== undefined,
  );
  const plain = ok.map(summariseRound).sort((a, b) => a.level - b.level || a.repeat - b.repeat);
  // Outliers by TPS within each level (shown, kept; claims say whether dropping them changes a verdict).
  const rounds: RoundSummary[] = [];
  for (const group of groupBy(plain, (r) => String(r.level)).values()) {
    const flags = outlierFlags(group.map((r) => r.tps));
    group.forEach((r, i) => rounds.push({ ...r, outlier: flags[i] }));
  }
  rounds.sort((a, b) => a.level - b.level || a.repeat - b.repeat);
  const byLevel = groupBy(rounds, (r) => String(r.level));
  const levelList = [...byLevel.keys()].map(Number).sort((a, b) => a - b);
  const baseLevel = levelList[0];
  const levels: LevelSummary[] = [...byLevel.values()].map((group) => {
    const level = group[0].level;
    const lat = group.map((r) => r.latencyAvgMs).filter((x): x is number => x !== undefined);
    const hits = group.map((r) => r.hitRatio).filter((x): x is number => x !== undefined);
    const previous = levelList[levelList.indexOf(level) - 1];
    const vs = (base: number | undefined, pick: (r: RoundSummary) => number | undefined, what: string) =>
      base !== undefined && level !== base
        ? pairedLevelRatio(rounds, level, base, pick, `${what} ${level} idx ÷ ${base} idx, paired per round`)
        : undefined;
    return {
      level,
      rounds: group.length,
      tps: spread(group.map((r) => r.tps)),
      latencyAvgMs: lat.length ? spread(lat) : undefined,
      ...Object.fromEntries(MEDIANS.map((k) => [k, med(group.map((r) => r[k]))])),
      tpsRatio: vs(baseLevel, (r) => r.tps, "TPS"),
      latencyRatio: vs(baseLevel, (r) => r.latencyAvgMs, "average latency"),
      serverTimeRatio: vs(baseLevel, (r) => r.serverMsPerTx, "server ms per tx"),
      stepRatio: vs(previous, (r) => r.tps, "TPS"),
      minHitRatio: hits.length ? Math.min(...hits) : undefined,
      checkpoints: group.reduce((a, r) => a + r.checkpoints, 0),
      autovacuumRuns: group.reduce((a, r) => a + r.autovacuumRuns, 0),
      disturbedRounds: group.filter((r) => r.disturbed).length,
      outlierRounds: group.filter((r) => r.outlier).length,
      walMiB: med(group.map((r) => (r.walBytes === undefined ? undefined : r.walBytes / 2 ** 20))),
    };
  });
  return {
    durationSeconds,
    clients,
    ...(dataScale !== undefined ? { dataScale } : {}),
    ...(speed ? { speed } : {}),
    rounds,
    levels: levels.sort((a, b) => a.level - b.level),
    failed: trials.filter((t) => t.status === "failed").map((t) => ({ key: t.key, error: t.error ?? "" })),
  };
}

/** The seed's TPS per index level (read from its chart). */
export function seedTps(): { level: number; tps: number }[] {
  return publishedFigures("over_indexing_tps")
    .flatMap((f) =>
      f.series === "tps" && f.extraIndexes !== undefined ? [{ level: f.extraIndexes, tps: f.value }] : [],
    )
    .sort((a, b) => a.level - b.level);
}

/** The seed's curve scaled so that its 7-index TPS equals ours: the shape to compare against. */
export function seedCurveScaledTo(ourTpsAt7: number): { level: number; tps: number; ratio: number }[] {
  const seed = seedTps();
  const at7 = seed.find((s) => s.level === 7)?.tps;
  if (!at7) return [];
  return seed.map((s) => ({ level: s.level, ratio: s.tps / at7, tps: (s.tps / at7) * ourTpsAt7 }));
}

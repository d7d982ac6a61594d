/** Notebook 03's figures from the raw rounds; ratios between levels are paired per round (each level runs in each). */
import { BTREE_ENTRY_TYPES } from "../../engines/postgres/wal-records";
import { speedSpread, type SpeedSpread } from "../../stats/speed";
import { publishedFigures } from "../../results/reference";
import { outlierFlags } from "../../stats/intervals";
import { flaggedUnits, medianOf, pairedQuotient, pairedValues, quotient } from "../../stats/claim-statistics";
import type { Without } from "../../stats/claim-engine";
import type { LookPlan } from "../../stats/adaptive";
import { groupBy, medianOfFinite, spread } from "../../stats/summary";
import { counterEntries, sumCounters } from "../../stats/counters";
import { pgbenchFigures, type PgbenchRunResult } from "../../workloads/pgbench";
import { TABLES, type InventoryTable } from "./workload/schema";
import type { OverIndexingTrial } from "./workload/run-trials";

type TableFigures = ReturnType<typeof tableFigures>;
/** Per transaction: the delta over the round ÷ its transactions. */
export type RoundSummary = Readonly<ReturnType<typeof summariseRound>>;

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

export type LevelSummary = ReturnType<typeof levelSummary>;

export interface OverIndexingSummary {
  readonly durationSeconds: number;
  /** When the run is at hand: the claims' regime reads it (cpus undefined on an external server). */
  readonly server?: { readonly cpus?: number; readonly dataBytes?: number; readonly sharedBuffersMB?: number };
  readonly clients: number;
  /** Of the seed's (20M products): named beside any seed figure. */
  readonly dataScale?: number;
  /** The write-path speed probe over the rounds: a between-round ratio carries its spread. */
  readonly speed?: SpeedSpread;
  readonly rounds: readonly RoundSummary[];
  readonly levels: readonly LevelSummary[];
  readonly failed: readonly { readonly key: string; readonly error: string }[];
  /** The claims engine decides at its per-look coverage. */
  readonly looks?: LookPlan;
}

function tableFigures(t: OverIndexingTrial, table: InventoryTable) {
  const c = t.counters ?? {};
  const before = t.sizesBefore ?? {};
  const after = t.sizesAfter ?? {};
  return {
    indexes: Object.keys(after).filter((k) => k.startsWith(`index.${table}.`)).length,
    tableBytesBefore: before[`table.${table}`] ?? 0,
    tableBytesAfter: after[`table.${table}`] ?? 0,
    indexBytesBefore: sumCounters(before, `index.${table}.`),
    indexBytesAfter: sumCounters(after, `index.${table}.`),
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
  const tables = Object.fromEntries(TABLES.map((n) => [n, tableFigures(t, n)])) as Record<InventoryTable, TableFigures>;
  const overTables = (f: (t: TableFigures, name: InventoryTable) => number) =>
    TABLES.reduce((a, n) => a + f(tables[n], n), 0);
  const hit = c["db.blks_hit"];
  const read = c["db.blks_read"];
  const indexBlocks = overTables((_f, n) => (c[`table.${n}.idx_blks_hit`] ?? 0) + (c[`table.${n}.idx_blks_read`] ?? 0));
  const indexGrowth = overTables((f) => f.indexBytesAfter - f.indexBytesBefore);
  const stock = tables.stock;
  // Another database wrote during the round: its WAL figures are the server's, not this run's.
  const ownWal = !t.walShared?.length;
  const wal = ownWal ? t.walRecords : undefined;
  const walSum = (prefix: string, of: "count" | "bytes") =>
    wal ? Object.entries(wal).reduce((a, [k, r]) => (k.startsWith(prefix) ? a + r[of] : a), 0) : 0;
  const walCount = (kinds: readonly string[]) =>
    wal ? kinds.reduce((a, k) => a + (wal[`Btree/${k}`]?.count ?? 0), 0) : undefined;
  const walTotal = walSum("", "bytes");
  const serverMs = (t.statements ?? []).reduce((a, st) => a + st.totalMs, 0);
  const checkpoints = (c["checkpointer.timed"] ?? 0) + (c["checkpointer.requested"] ?? 0);
  const autovacuumRuns = overTables(
    (_f, n) => (c[`table.${n}.autovacuum_count`] ?? 0) + (c[`table.${n}.autoanalyze_count`] ?? 0),
  );
  return {
    key: t.key,
    level: t.condition.level,
    repeat: t.repeat,
    ...(t.order !== undefined ? { order: t.order } : {}),
    ...pgbenchFigures(b),
    series: b.series,
    walBytesPerTx: ownWal ? per(c["wal.bytes"]) : undefined,
    walBytes: ownWal ? (c["wal.bytes"] ?? 0) : undefined,
    walFpiPerTx: ownWal ? per(c["wal.fpi"]) : undefined,
    hitRatio: hit !== undefined && read !== undefined && hit + read > 0 ? hit / (hit + read) : undefined,
    blocksRead: read ?? 0,
    blockReadMs: c["db.blk_read_time_ms"] ?? 0,
    evictions: counterEntries(c).reduce(
      (a, [k, v]) => (k.startsWith("io.") && k.includes(".relation.") && k.endsWith(".evictions") ? a + v : a),
      0,
    ),
    dirtiedPerTx: per((t.statements ?? []).reduce((a, s) => a + s.sharedDirtied, 0)),
    // A MODEL: Σ tables (inserted + non-HOT updated rows) × its indexes; then what the WAL MEASURED
    // (pg_walinspect; a split's record carries the new entry).
    modelIndexEntriesPerTx: per(overTables((f) => (f.inserted + f.updated - f.hotUpdated) * f.indexes)),
    btreeInsertsPerTx: per(walCount(BTREE_ENTRY_TYPES)),
    btreeSplitsPerTx: per(walCount(["SPLIT_L", "SPLIT_R"])),
    btreeWalShare: wal && walTotal > 0 ? walSum("Btree/", "bytes") / walTotal : undefined,
    serverMsPerTx: serverMs > 0 ? per(serverMs) : undefined,
    indexBlocksPerTx: per(indexBlocks),
    stockHotShare: stock.updated ? stock.hotUpdated / stock.updated : undefined,
    tableGrowthBytes: overTables((f) => f.tableBytesAfter - f.tableBytesBefore),
    indexGrowthBytes: indexGrowth,
    indexGrowthPerTx: per(indexGrowth),
    checkpoints,
    autovacuumRuns,
    disturbed: checkpoints > 0 || autovacuumRuns > 0,
    outlier: false as boolean,
    checkpointerBuffers: c["checkpointer.buffers_written"] ?? 0,
    bgwriterBuffers: c["bgwriter.buffers_clean"] ?? 0,
    backendWrites: sumCounters(c, "io.client backend.relation.", ".writes"),
    tables,
    statements: t.statements ?? [],
    cloneSeconds: t.prepared?.cloneSeconds,
    indexBuildSeconds: t.prepared?.indexSeconds,
  };
}

type Rounds = readonly RoundSummary[];
type Value = (r: RoundSummary) => number | undefined;
const repeat = (r: RoundSummary) => r.repeat;
const atLevel = (rounds: Rounds, level: number) => rounds.filter((r) => r.level === level);

/** Per repeat in which both levels ran: `f` of the round at `level` and the one at `base`. */
export const pairedLevels = (
  rounds: Rounds,
  level: number,
  base: number,
  f: (r: RoundSummary, b: RoundSummary) => number | undefined,
) => pairedValues(atLevel(rounds, level), atLevel(rounds, base), { top: repeat, bottom: repeat }, f);

export const pairedLevelRatio = (rounds: Rounds, level: number, base: number, pick: Value, of: string) =>
  pairedQuotient(atLevel(rounds, level), atLevel(rounds, base), repeat, pick, of);

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
  // Shown and kept; claims say whether dropping them changes a verdict. `plain` is in order: so are its groups.
  const groups = [...groupBy(plain, (r) => String(r.level)).values()].map((group) => {
    const flags = outlierFlags(group.map((r) => r.tps));
    return group.map((r, i) => ({ ...r, outlier: flags[i] }));
  });
  const rounds: RoundSummary[] = groups.flat();
  const levelList = groups.map((g) => g[0].level);
  return {
    durationSeconds,
    clients,
    ...(dataScale !== undefined ? { dataScale } : {}),
    ...(speed ? { speed } : {}),
    rounds,
    levels: groups.map((group) => levelSummary(group, rounds, levelList)),
    failed: trials.filter((t) => t.status === "failed").map((t) => ({ key: t.key, error: t.error ?? "" })),
  };
}

/** Medians over a level's rounds; ratios to the lowest level and to the previous (claim 1's step), paired per round. */
function levelSummary(group: readonly RoundSummary[], rounds: readonly RoundSummary[], levelList: readonly number[]) {
  const level = group[0].level;
  const lat = group.map((r) => r.latencyAvgMs).filter((x): x is number => x !== undefined);
  const vs = (base: number | undefined, pick: (r: RoundSummary) => number | undefined, what: string) =>
    base !== undefined && level !== base
      ? pairedLevelRatio(rounds, level, base, pick, `${what} ${level} idx ÷ ${base} idx, paired per round`)
      : undefined;
  const count = (f: (r: RoundSummary) => number) => group.reduce((a, r) => a + f(r), 0);
  return {
    level,
    rounds: group.length,
    tps: spread(group.map((r) => r.tps)),
    latencyAvgMs: lat.length ? spread(lat) : undefined,
    ...(Object.fromEntries(MEDIANS.map((k) => [k, medianOfFinite(group.map((r) => r[k]))])) as Partial<
      Record<(typeof MEDIANS)[number], number>
    >),
    tpsRatio: vs(levelList[0], (r) => r.tps, "TPS"),
    serverTimeRatio: vs(levelList[0], (r) => r.serverMsPerTx, "server ms per tx"),
    stepRatio: vs(levelList[levelList.indexOf(level) - 1], (r) => r.tps, "TPS"),
    checkpoints: count((r) => r.checkpoints),
    disturbedRounds: count((r) => (r.disturbed ? 1 : 0)),
    outlierRounds: count((r) => (r.outlier ? 1 : 0)),
    walMiB: medianOfFinite(group.map((r) => (r.walBytes === undefined ? undefined : r.walBytes / 2 ** 20))),
  };
}

/** The first round of each level: the one whose storage and statements are shown. */
export const firstRounds = (s: OverIndexingSummary): RoundSummary[] =>
  s.levels.flatMap((l) => s.rounds.find((r) => r.level === l.level) ?? []);

/** Read from its chart. */
export const seedTps = (): { level: number; tps: number }[] =>
  publishedFigures("over_indexing_tps")
    .flatMap((f) =>
      f.series === "tps" && f.extraIndexes !== undefined ? [{ level: f.extraIndexes, tps: f.value }] : [],
    )
    .sort((a, b) => a.level - b.level);

export function seedCurveScaledTo(ourTpsAt7: number): { level: number; tps: number; ratio: number }[] {
  const seed = seedTps();
  const at7 = seed.find((s) => s.level === 7)?.tps;
  return at7 ? seed.map((s) => ({ level: s.level, ratio: s.tps / at7, tps: (s.tps / at7) * ourTpsAt7 })) : [];
}

type S = OverIndexingSummary;
export const levelAt = (s: S, n: number): LevelSummary | undefined => s.levels.find((l) => l.level === n);
export const clientSeconds = (s: S): number => s.durationSeconds * s.clients;
export const ratio39to7 = (s: S, pick: Value, of: string) =>
  pairedLevelRatio(s.rounds, 39, 7, pick, `${of} 39 ÷ 7 idx, paired per round`);

/** Each step (higher level ÷ next lower): its per-round TPS ratios and the exact interval of their median. */
export function steps(s: S) {
  const ls = s.levels.map((l) => l.level).sort((a, b) => a - b);
  return ls.slice(1).map((to, i) => {
    const values = pairedLevels(s.rounds, to, ls[i], (r, b) => quotient(r.tps, b.tps));
    const interval = medianOf(values, (x) => x, `TPS ${to} ÷ ${ls[i]} idx, paired per round`);
    return { label: `${ls[i]}→${to}`, values, interval };
  });
}

/** Per round, extra block-read time at 39 indexes ÷ the TPS lost; a round whose TPS did not fall has none. */
export function readShareOfLoss(s: S) {
  const shares = pairedLevels(s.rounds, 39, 7, (hi, base) => {
    const loss = base.tps > 0 ? 1 - hi.tps / base.tps : 0;
    return loss > 0 ? (hi.blockReadMs - base.blockReadMs) / 1000 / clientSeconds(s) / loss : undefined;
  });
  return medianOf(shares, (x) => x, "extra read time ÷ TPS lost, 39 vs 7 idx, paired per round");
}

/** Per level its lowest round's hit ratio: every round is observed, so the interval is that value. */
export function lowestHits(s: S) {
  const parts = s.levels.flatMap(({ level: n }) => {
    const hits = s.rounds.flatMap((r) => (r.level === n && r.hitRatio !== undefined ? [r.hitRatio] : []));
    const [low, of] = [Math.min(...hits), `lowest hit ratio of ${hits.length} round(s) at ${n} idx`];
    return hits.length
      ? [{ label: `${n} idx`, interval: { estimate: low, low, high: low, n: hits.length, coverage: 1, of } }]
      : [];
  });
  return parts.length ? parts : undefined;
}

/** The sensitivity pass: the same rounds without those a checkpoint or autovacuum ran inside, or TPS outliers. */
export function withoutFlagged(s: S): Without<S> {
  const why = (r: RoundSummary) => [
    r.checkpoints ? `${r.checkpoints} checkpoint(s)` : "",
    r.autovacuumRuns ? `${r.autovacuumRuns} autovacuum run(s)` : "",
    r.outlier ? "TPS outlier" : "",
  ];
  const none = "No round was flagged (no checkpoint or autovacuum run inside a timed window, no TPS outlier).";
  const flagged = flaggedUnits("round", s.rounds, why, (r) => r.key, none);
  return { summary: { ...s, rounds: s.rounds.filter((r) => !r.disturbed && !r.outlier) }, flagged };
}

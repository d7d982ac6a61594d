/**
 * Notebook 06's figures from the raw runs: per run, per variant (medians), and per judged index its
 * write-throughput cost and write amplification, each paired per round with the exact interval of
 * its median; and the baseline's own neighbour spread (the noise floor).
 */
import type { LookPlan } from "../../stats/adaptive";
import { quantile } from "simple-statistics";
import { medianInterval, outlierFlags, type Interval } from "../../stats/intervals";
import { groupBy, spread } from "../../stats/summary";
import { pgbenchFigures, type PgbenchFigures, type PgbenchRunResult, type SeriesPoint } from "../../workloads/pgbench";
import type { IndexInfo } from "./workload/catalog";
import type { UpdateStatement } from "./workload/scripts";
import type { SourceIndexUsage } from "./workload/sample";
import type { YourIndexesTrial } from "./workload/run-trials";
import type { Judged } from "./workload/variants";
import { decide, type Decision, type ReadEffect } from "./decision";

export type { ReadEffect } from "./decision";

export interface TableWrites {
  readonly inserted: number;
  readonly updated: number;
  readonly deleted: number;
  readonly hotUpdated: number;
}

export interface RunSummary extends PgbenchFigures {
  readonly key: string;
  readonly variant: string;
  readonly repeat: number;
  readonly position?: number;
  readonly series: readonly SeriesPoint[];
  readonly walBytesPerTx?: number;
  /** Btree INSERT_LEAF + INSERT_POST + SPLIT_L + SPLIT_R records per transaction in the WAL (splits: SPLIT_*). */
  readonly btreeInsertsPerTx?: number;
  readonly btreeSplitsPerTx?: number;
  readonly tables: Readonly<Record<string, TableWrites>>;
  readonly checkpoints: number;
  readonly autovacuumRuns: number;
  /** A checkpoint or an autovacuum run fell inside the timed window. */
  readonly disturbed: boolean;
  /** TPS far from the variant's other runs (OUTLIER_RULE). */
  readonly outlier: boolean;
  readonly reads?: Readonly<Record<string, ReadFigures>>;
}

/** A read run: median latency, ms (the mean where the log was lost), and idx_scan by `<table>.<index>`. */
export interface ReadFigures {
  readonly latencyMs: number;
  readonly tps: number;
  readonly indexScans: Readonly<Record<string, number>>;
}

export interface VariantSummary {
  readonly id: string;
  readonly runs: number;
  readonly tps?: number;
  readonly p50Ms?: number;
  readonly p99Ms?: number;
  readonly walBytesPerTx?: number;
  readonly btreeInsertsPerTx?: number;
  readonly btreeSplitsPerTx?: number;
  /** Per table: HOT updates ÷ updates over all its runs. */
  readonly hotShare: Readonly<Record<string, number>>;
}

/** What a summary needs from the run: the variants' indexes as built, the scripts' UPDATEs, the source. */
export interface SummaryContext {
  readonly judged: readonly Judged[];
  readonly indexes: ReadonlyMap<string, readonly IndexInfo[]>;
  readonly updates: readonly UpdateStatement[];
  readonly sourceUsage?: readonly SourceIndexUsage[];
  readonly statsReset?: string;
  readonly equivalenceMargin: number;
  readonly readScripts?: readonly string[];
}

export interface IndexSummary {
  readonly id: string;
  readonly name: string;
  readonly kind: Judged["kind"];
  readonly members?: readonly string[];
  /** The table whose HOT share is counted (a set's: its most-updated table). */
  readonly table?: string;
  readonly columns: readonly string[];
  readonly definition?: string;
  readonly withVariant: string;
  readonly withoutVariant: string;
  /** Rounds in which both variants finished. */
  readonly pairs: number;
  /** 1 − TPS with ÷ TPS without, per round (against the flanking baseline runs); and without flagged runs. */
  readonly cost?: Interval;
  readonly costWithoutFlagged?: Interval;
  /** Median over rounds of p50 (p99) with ÷ without, − 1. */
  readonly p50Change?: number;
  readonly p99Change?: number;
  readonly walBytesPerTx: { readonly with?: number; readonly without?: number };
  readonly btreeInsertsPerTx: { readonly with?: number; readonly without?: number };
  readonly btreeSplitsPerTx: { readonly with?: number; readonly without?: number };
  /** HOT share of the table's updates with and without the index (runs pooled per variant). */
  readonly hotShare: { readonly with?: number; readonly without?: number };
  /** Write amplification, with − without, paired per round like the cost. */
  readonly amplification: WriteAmplification;
  /** Rows of the table the workload wrote over the variant-with runs. */
  readonly tableWrites?: TableWrites;
  /** The scripts' UPDATEs of the index's table that set a column the index reads. */
  readonly hotStatements: readonly { readonly statement: UpdateStatement; readonly columns: readonly string[] }[];
  readonly bytes?: number;
  /** On the sampleFrom source: scans of the index there. */
  readonly source?: SourceIndexUsage;
  /** The indexes this row adds over its without-variant. */
  readonly indexNames: readonly string[];
  readonly reads: readonly ReadEffect[];
  /** The decision table's plain line, from the write cost and the read effects. */
  readonly decision: Decision;
}

/** Per transaction: WAL bytes and B-tree leaf inserts added; the HOT share of its table's updates lost. */
export interface WriteAmplification {
  readonly walBytesPerTx?: Interval;
  readonly btreeInsertsPerTx?: Interval;
  readonly hotShareLost?: Interval;
}

/**
 * What this machine's noise alone does to the statistic: each baseline run that has a baseline run
 * on either side (every one but a round's first and last) as if it were a variant, 1 − its TPS ÷
 * the mean of theirs. Its neighbours are two places away where a variant's are one, so this spread
 * is an upper bound on the noise a variant's paired cost carries.
 */
export interface NoiseFloor {
  readonly n: number;
  readonly rounds: number;
  readonly q25: number;
  readonly q75: number;
  readonly p05: number;
  readonly p95: number;
  /** The median over rounds of the round's median pseudo-cost: a null index's interval. */
  readonly interval?: Interval;
}

export interface YourIndexesSummary {
  readonly durationSeconds: number;
  /** The adaptive design's looks: every verdict is decided at its per-look coverage. */
  readonly looks?: LookPlan;
  readonly clients: number;
  readonly equivalenceMargin: number;
  readonly noiseFloor?: NoiseFloor;
  readonly runs: readonly RunSummary[];
  readonly variants: readonly VariantSummary[];
  readonly indexes: readonly IndexSummary[];
  readonly failed: readonly { readonly key: string; readonly error: string }[];
  readonly statsReset?: string;
  readonly readScripts: readonly string[];
  /** Read runs that gave no figures (their write runs stand). */
  readonly failedReads: readonly { readonly key: string; readonly script: string; readonly error: string }[];
}

const med = (values: readonly (number | undefined)[]): number | undefined => {
  const v = values.filter((x): x is number => x !== undefined && Number.isFinite(x));
  return v.length ? spread(v).median : undefined;
};

function summariseRun(t: YourIndexesTrial & { readonly pgbench: PgbenchRunResult }): RunSummary {
  const c = t.counters ?? {};
  const n = t.pgbench.summary.transactions;
  const per = (x: number | undefined) => (x === undefined || !n ? undefined : x / n);
  const tables: Record<string, TableWrites> = {};
  for (const [key, value] of Object.entries(c)) {
    const m = /^table\.(.+)\.(n_tup_ins|n_tup_upd|n_tup_del|n_tup_hot_upd)$/.exec(key);
    if (!m || value === undefined) continue;
    const was = tables[m[1]] ?? { inserted: 0, updated: 0, deleted: 0, hotUpdated: 0 };
    const field = { n_tup_ins: "inserted", n_tup_upd: "updated", n_tup_del: "deleted", n_tup_hot_upd: "hotUpdated" }[
      m[2] as "n_tup_ins" | "n_tup_upd" | "n_tup_del" | "n_tup_hot_upd"
    ] as keyof TableWrites;
    tables[m[1]] = { ...was, [field]: value };
  }
  // Another database wrote during the window: its WAL figures are the server's, not this run's.
  const ownWal = !t.walShared?.length;
  const wal = ownWal ? t.walRecords : undefined;
  const walCount = (kinds: readonly string[]) =>
    wal ? kinds.reduce((a, k) => a + (wal[`Btree/${k}`]?.count ?? 0), 0) : undefined;
  const checkpoints = (c["checkpointer.timed"] ?? 0) + (c["checkpointer.requested"] ?? 0);
  const autovacuumRuns = Object.entries(c).reduce(
    (a, [k, v]) => (/^table\..+\.(autovacuum_count|autoanalyze_count)$/.test(k) ? a + (v ?? 0) : a),
    0,
  );
  return {
    key: t.key,
    variant: t.condition.variant,
    repeat: t.repeat,
    ...(t.position !== undefined ? { position: t.position } : {}),
    ...pgbenchFigures(t.pgbench),
    series: t.pgbench.series,
    walBytesPerTx: ownWal ? per(c["wal.bytes"]) : undefined,
    btreeInsertsPerTx: per(walCount(["INSERT_LEAF", "INSERT_POST", "SPLIT_L", "SPLIT_R"])),
    btreeSplitsPerTx: per(walCount(["SPLIT_L", "SPLIT_R"])),
    tables,
    checkpoints,
    autovacuumRuns,
    disturbed: checkpoints > 0 || autovacuumRuns > 0,
    outlier: false,
    ...(t.reads?.length ? { reads: readFigures(t.reads) } : {}),
  };
}

function readFigures(reads: NonNullable<YourIndexesTrial["reads"]>): Record<string, ReadFigures> {
  const out: Record<string, ReadFigures> = {};
  for (const r of reads) {
    const latencyMs = r.p50Ms ?? r.latencyAvgMs;
    if (r.error || latencyMs === undefined || !(latencyMs > 0) || !r.transactions) continue;
    out[r.script] = { latencyMs, tps: r.tps ?? 0, indexScans: r.indexScans ?? {} };
  }
  return out;
}

/** The index's (a set's: its members') scans in one read run, by `<table>.<index>`. */
function scansOf(f: ReadFigures, indexes: readonly { name: string; table: string }[]): number {
  return indexes.reduce((a, i) => a + (f.indexScans[`${i.table}.${i.name}`] ?? 0), 0);
}

/** Each read script's effect for one judged index (see ReadEffect). */
export function readEffects(
  runs: readonly RunSummary[],
  j: Pick<Judged, "withVariant" | "withoutVariant" | "name">,
  indexes: readonly { name: string; table: string }[],
  scripts: readonly string[],
): ReadEffect[] {
  return scripts.map((script) => {
    const lat = (r: RunSummary) => r.reads?.[script]?.latencyMs;
    const ratios = paired(runs, j, (a, b) => {
      const w = lat(a);
      const wo = lat(b);
      return w !== undefined && wo !== undefined && w > 0 ? wo / w : undefined;
    });
    const withRuns = runs.filter((r) => r.variant === j.withVariant && r.reads?.[script]);
    const scans = withRuns.reduce((a, r) => a + scansOf(r.reads?.[script] as ReadFigures, indexes), 0);
    const side = (variant: string) => med(runs.filter((r) => r.variant === variant).map(lat));
    return {
      script,
      ...(ratios.length
        ? {
            slowdown: medianInterval(
              ratios,
              `${script} without ${j.name}: latency without ÷ latency with, paired per round`,
            ),
          }
        : {}),
      latencyMs: { with: side(j.withVariant), without: side(j.withoutVariant) },
      scansPerRun: withRuns.length ? scans / withRuns.length : 0,
      runsWith: withRuns.length,
    };
  });
}

function hotShares(runs: readonly RunSummary[]): Record<string, number> {
  const upd: Record<string, number> = {};
  const hot: Record<string, number> = {};
  for (const r of runs)
    for (const [table, w] of Object.entries(r.tables)) {
      upd[table] = (upd[table] ?? 0) + w.updated;
      hot[table] = (hot[table] ?? 0) + w.hotUpdated;
    }
  return Object.fromEntries(Object.entries(upd).flatMap(([t, u]) => (u > 0 ? [[t, hot[t] / u]] : [])));
}

/**
 * Per run of the variant that runs once a round (the anchor: the one that is not the baseline):
 * f(with, without) against the other side's runs of the same round nearest to it in the order run,
 * averaged — in the interleaved rounds of planRounds, the two baseline runs just before and just
 * after it, so a drift of the machine's speed across them cancels to first order; with one run a
 * side per round, that one. Runs not `keep`-ed are left out on either side.
 */
function paired(
  runs: readonly RunSummary[],
  j: Pick<Judged, "withVariant" | "withoutVariant">,
  f: (withRun: RunSummary, withoutRun: RunSummary) => number | undefined,
  keep: (r: RunSummary) => boolean = () => true,
): number[] {
  const of = (variant: string) => runs.filter((r) => r.variant === variant && keep(r));
  const w = of(j.withVariant);
  const wo = of(j.withoutVariant);
  const anchorIsWith = w.length <= wo.length;
  const [anchors, others] = anchorIsWith ? [w, wo] : [wo, w];
  const out: number[] = [];
  for (const a of anchors) {
    const same = others.filter((b) => b.repeat === a.repeat);
    if (!same.length) continue;
    const distance = (b: RunSummary) => Math.abs((b.position ?? 0) - (a.position ?? 0));
    const nearest = Math.min(...same.map(distance));
    const values = same
      .filter((b) => distance(b) === nearest)
      .map((b) => (anchorIsWith ? f(a, b) : f(b, a)))
      .filter((v): v is number => v !== undefined && Number.isFinite(v));
    if (values.length) out.push(values.reduce((x, y) => x + y, 0) / values.length);
  }
  return out;
}

/** The write-throughput cost per round, 1 − TPS with ÷ TPS without, and the exact interval of its median. */
export function costInterval(
  runs: readonly RunSummary[],
  j: Pick<Judged, "withVariant" | "withoutVariant" | "name">,
  keep?: (r: RunSummary) => boolean,
): Interval | undefined {
  const costs = paired(runs, j, (a, b) => (b.tps > 0 ? 1 - a.tps / b.tps : undefined), keep);
  return costs.length
    ? medianInterval(costs, `write-throughput cost of ${j.name}: 1 − TPS with ÷ TPS without, paired per round`)
    : undefined;
}

/** A figure of the run, with − without, paired per round as the cost is, and the interval of its median. */
export function differenceInterval(
  runs: readonly RunSummary[],
  j: Pick<Judged, "withVariant" | "withoutVariant">,
  pick: (r: RunSummary) => number | undefined,
  of: string,
): Interval | undefined {
  const d = paired(runs, j, (a, b) => {
    const x = pick(a);
    const y = pick(b);
    return x !== undefined && y !== undefined ? x - y : undefined;
  });
  return d.length ? medianInterval(d, of) : undefined;
}

/** The HOT share of `table`'s updates in one run, if the run updated it. */
function runHotShare(r: RunSummary, table: string): number | undefined {
  const w = r.tables[table];
  return w && w.updated > 0 ? w.hotUpdated / w.updated : undefined;
}

/** The judged index's write amplification, paired per round. */
export function amplification(
  runs: readonly RunSummary[],
  j: Pick<Judged, "withVariant" | "withoutVariant" | "name">,
  table: string | undefined,
): WriteAmplification {
  const wal = differenceInterval(runs, j, (r) => r.walBytesPerTx, `WAL bytes per transaction added by ${j.name}`);
  const btree = differenceInterval(
    runs,
    j,
    (r) => r.btreeInsertsPerTx,
    `B-tree leaf inserts per transaction added by ${j.name}`,
  );
  // Lost = without − with: the difference with the sides swapped.
  const hot = table
    ? differenceInterval(
        runs,
        { withVariant: j.withoutVariant, withoutVariant: j.withVariant },
        (r) => runHotShare(r, table),
        `HOT share of ${table}'s updates lost with ${j.name}`,
      )
    : undefined;
  return {
    ...(wal ? { walBytesPerTx: wal } : {}),
    ...(btree ? { btreeInsertsPerTx: btree } : {}),
    ...(hot ? { hotShareLost: hot } : {}),
  };
}

/** The baseline against its baseline neighbours (see NoiseFloor); undefined without 3 baseline runs in a round. */
export function noiseFloor(runs: readonly RunSummary[], baseline = "baseline"): NoiseFloor | undefined {
  const perRound = [
    ...groupBy(
      runs.filter((r) => r.variant === baseline),
      (r) => String(r.repeat),
    ).values(),
  ].map((round) => {
    const ordered = [...round].sort((a, b) => (a.position ?? 0) - (b.position ?? 0));
    return ordered.slice(1, -1).flatMap((r, i) => {
      const mean = (ordered[i].tps + ordered[i + 2].tps) / 2;
      return mean > 0 ? [1 - r.tps / mean] : [];
    });
  });
  const all = perRound.flat();
  if (!all.length) return undefined;
  const medians = perRound.filter((v) => v.length).map((v) => spread(v).median);
  return {
    n: all.length,
    rounds: medians.length,
    q25: quantile(all, 0.25),
    q75: quantile(all, 0.75),
    p05: quantile(all, 0.05),
    p95: quantile(all, 0.95),
    ...(medians.length
      ? {
          interval: medianInterval(
            medians,
            "noise floor: a baseline run against the baseline runs two places either side, median per round",
          ),
        }
      : {}),
  };
}

export const clean = (r: RunSummary): boolean => !r.disturbed && !r.outlier;

export function summarise(
  trials: readonly YourIndexesTrial[],
  ctx: SummaryContext,
  durationSeconds: number,
  clients: number,
): YourIndexesSummary {
  const plain = trials.flatMap((t) =>
    t.status === "ok" && t.pgbench ? [summariseRun({ ...t, pgbench: t.pgbench })] : [],
  );
  // Outliers by TPS among each variant's runs: shown and kept; each claim says whether they change it.
  const runs = [...groupBy(plain, (r) => r.variant).values()].flatMap((group) => {
    const flags = outlierFlags(group.map((r) => r.tps));
    return group.map((r, i) => ({ ...r, outlier: flags[i] }));
  });
  runs.sort((a, b) => a.repeat - b.repeat || (a.position ?? 0) - (b.position ?? 0));
  const medians = ["tps", "p50Ms", "p99Ms", "walBytesPerTx", "btreeInsertsPerTx", "btreeSplitsPerTx"] as const;
  const variants: VariantSummary[] = [...groupBy(runs, (r) => r.variant).values()].map((g) => ({
    id: g[0].variant,
    runs: g.length,
    ...Object.fromEntries(medians.map((k) => [k, med(g.map((r) => r[k]))])),
    hotShare: hotShares(g),
  }));
  const variant = (id: string) => variants.find((v) => v.id === id);
  const indexes: IndexSummary[] = ctx.judged.map((j) => {
    const withIndexes = ctx.indexes.get(j.withVariant) ?? [];
    const withoutNames = new Set((ctx.indexes.get(j.withoutVariant) ?? []).map((i) => i.name));
    // The index (for all candidates: the first) as the variant that has it holds it.
    const added = withIndexes.filter((i) => !withoutNames.has(i.name));
    const withRuns = runs.filter((r) => r.variant === j.withVariant);
    // A set's HOT share is its most-updated table's (the one whose updates its indexes can make non-HOT).
    const updatedIn = (t: string) => withRuns.reduce((a, r) => a + (r.tables[t]?.updated ?? 0), 0);
    const mostUpdated = [...new Set(added.map((i) => i.table))].sort((a, b) => updatedIn(b) - updatedIn(a))[0];
    const info =
      added.find((i) => i.name === j.name) ??
      (j.kind === "set" ? added.find((i) => i.table === mostUpdated) : undefined) ??
      added[0];
    const table = info?.table;
    const columns = [...new Set(added.flatMap((i) => i.columns))];
    const vw = variant(j.withVariant);
    const vo = variant(j.withoutVariant);
    const tableWrites = table
      ? withRuns.reduce<TableWrites>(
          (a, r) => {
            const w = r.tables[table];
            return w
              ? {
                  inserted: a.inserted + w.inserted,
                  updated: a.updated + w.updated,
                  deleted: a.deleted + w.deleted,
                  hotUpdated: a.hotUpdated + w.hotUpdated,
                }
              : a;
          },
          { inserted: 0, updated: 0, deleted: 0, hotUpdated: 0 },
        )
      : undefined;
    const tablesOf = new Set(added.map((i) => i.table));
    const hotStatements = ctx.updates.flatMap((u) => {
      const hit = added
        .filter((i) => i.table === u.table)
        .flatMap((i) => i.columns.filter((c) => u.columns.includes(c)));
      return tablesOf.has(u.table) && hit.length ? [{ statement: u, columns: [...new Set(hit)] }] : [];
    });
    const ratio = (pick: (r: RunSummary) => number | undefined) =>
      med(
        paired(runs, j, (a, b) => {
          const x = pick(a);
          const y = pick(b);
          return x !== undefined && y !== undefined && y > 0 ? x / y - 1 : undefined;
        }),
      );
    const flaggedOut = costInterval(runs, j, clean);
    const cost = costInterval(runs, j);
    const reads = readEffects(runs, j, added, ctx.readScripts ?? []);
    return {
      id: j.id,
      name: j.name,
      kind: j.kind,
      ...(j.members ? { members: j.members } : {}),
      ...(table ? { table } : {}),
      columns,
      ...(info ? { definition: added.map((i) => i.definition).join("; ") } : {}),
      withVariant: j.withVariant,
      withoutVariant: j.withoutVariant,
      pairs: paired(runs, j, () => 1).length,
      cost,
      ...(flaggedOut ? { costWithoutFlagged: flaggedOut } : {}),
      p50Change: ratio((r) => r.p50Ms),
      p99Change: ratio((r) => r.p99Ms),
      walBytesPerTx: { with: vw?.walBytesPerTx, without: vo?.walBytesPerTx },
      btreeInsertsPerTx: { with: vw?.btreeInsertsPerTx, without: vo?.btreeInsertsPerTx },
      btreeSplitsPerTx: { with: vw?.btreeSplitsPerTx, without: vo?.btreeSplitsPerTx },
      hotShare: table ? { with: vw?.hotShare[table], without: vo?.hotShare[table] } : {},
      amplification: amplification(runs, j, table),
      ...(tableWrites ? { tableWrites } : {}),
      hotStatements,
      bytes: added.length ? added.reduce((a, i) => a + i.bytes, 0) : undefined,
      ...(ctx.sourceUsage
        ? { source: ctx.sourceUsage.find((u) => u.index === j.name && (!table || u.table === table)) }
        : {}),
      indexNames: added.map((i) => i.name),
      reads,
      decision: decide({ cost, reads, adds: j.withVariant !== "baseline" }, ctx.readScripts ?? []),
    };
  });
  const floor = noiseFloor(runs);
  return {
    durationSeconds,
    clients,
    equivalenceMargin: ctx.equivalenceMargin,
    ...(floor ? { noiseFloor: floor } : {}),
    runs,
    variants,
    indexes,
    failed: trials.filter((t) => t.status === "failed").map((t) => ({ key: t.key, error: t.error ?? "" })),
    ...(ctx.statsReset ? { statsReset: ctx.statsReset } : {}),
    readScripts: ctx.readScripts ?? [],
    failedReads: trials.flatMap((t) =>
      t.status === "ok"
        ? (t.reads ?? []).flatMap((r) => (r.error ? [{ key: t.key, script: r.script, error: r.error }] : []))
        : [],
    ),
  };
}

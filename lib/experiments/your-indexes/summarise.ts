/** Notebook 06's figures: per run, per variant, and per judged index its costs paired per round. */
import { mean, quantile, sum } from "simple-statistics";
import { BTREE_ENTRY_TYPES } from "../../engines/postgres/wal-records";
import type { LookPlan } from "../../stats/adaptive";
import { medianInterval, outlierFlags, type Interval } from "../../stats/intervals";
import { groupBy, medianOfFinite, spread } from "../../stats/summary";
import { sumCounters } from "../../stats/counters";
import { medianOf, quotient } from "../../stats/claim-statistics";
import { pgbenchFigures, type PgbenchRunResult } from "../../workloads/pgbench";
import type { IndexInfo } from "./workload/catalog";
import type { UpdateStatement } from "./workload/scripts";
import type { SourceIndexUsage } from "./workload/sample";
import { NO_WRITES, tableWrites, type ReadRun, type TableWrites, type YourIndexesTrial } from "./workload/run-trials";
import type { Judged } from "./workload/variants";
import { decide } from "./decision";

const addWrites = (a: TableWrites, b = NO_WRITES) =>
  Object.fromEntries(Object.entries(a).map(([k, v]) => [k, v + b[k as keyof TableWrites]])) as TableWrites;
const writesOver = (runs: readonly { readonly tables: Readonly<Record<string, TableWrites>> }[]) =>
  runs.reduce<Record<string, TableWrites>>((a, r) => {
    for (const [t, w] of Object.entries(r.tables)) a[t] = addWrites(w, a[t]);
    return a;
  }, {});

export interface SummaryContext {
  readonly judged: readonly Judged[];
  readonly variants: readonly { readonly id: string; readonly indexes: readonly IndexInfo[] }[];
  readonly updates: readonly UpdateStatement[];
  readonly source?: { readonly indexes: readonly SourceIndexUsage[]; readonly statsReset?: string };
  readonly reads?: readonly { readonly name: string }[];
  readonly params: Readonly<Record<"equivalenceMargin" | "durationSeconds" | "clients", number>>;
}

/** ownEntriesPerTx: the judged indexes' own B-tree entries, which decide; the other two are shown. */
export type WriteAmplification = Partial<Record<"walBytesPerTx" | "ownEntriesPerTx" | "hotShareLost", Interval>>;

const both = (x: number | undefined, y: number | undefined, f: (x: number, y: number) => number | undefined) =>
  x !== undefined && y !== undefined ? f(x, y) : undefined;

/** Median latency, ms (the mean where the log was lost). */
const readFigures = (reads: readonly ReadRun[]) =>
  Object.fromEntries(
    reads.flatMap((r) => {
      const latencyMs = r.p50Ms ?? r.latencyAvgMs;
      if (r.error || latencyMs === undefined || !(latencyMs > 0) || !r.transactions) return [];
      return [[r.script, { latencyMs, tps: r.tps ?? 0, indexScans: r.indexScans ?? {} }]];
    }),
  );

function runSummary(t: YourIndexesTrial & { readonly pgbench: PgbenchRunResult }) {
  const c = t.counters ?? {};
  const n = t.pgbench.summary.transactions;
  const per = (x: number | undefined) => (x === undefined || !n ? undefined : x / n);
  // Another database wrote during the window: its WAL figures are the server's, not this run's.
  const wal = t.walShared?.length ? undefined : t.walRecords;
  const walCount = (kinds: readonly string[]) => wal && kinds.reduce((a, k) => a + (wal[`Btree/${k}`]?.count ?? 0), 0);
  const checkpoints = (c["checkpointer.timed"] ?? 0) + (c["checkpointer.requested"] ?? 0);
  const autovacuumRuns = sumCounters(c, "table.", ".autovacuum_count") + sumCounters(c, "table.", ".autoanalyze_count");
  return {
    key: t.key,
    variant: t.condition.variant,
    repeat: t.repeat,
    ...(t.position !== undefined ? { position: t.position } : {}),
    ...pgbenchFigures(t.pgbench),
    series: t.pgbench.series,
    walBytesPerTx: t.walShared?.length ? undefined : per(c["wal.bytes"]),
    btreeInsertsPerTx: per(walCount(BTREE_ENTRY_TYPES)),
    btreeSplitsPerTx: per(walCount(["SPLIT_L", "SPLIT_R"])),
    // Counted in the run's own database, so they stand where another database wrote in the window.
    entriesPerTx:
      t.btreeEntries && n
        ? Object.fromEntries(Object.entries(t.btreeEntries).map(([ix, v]) => [ix, v / n]))
        : undefined,
    tables: tableWrites(c),
    checkpoints,
    autovacuumRuns,
    disturbed: checkpoints > 0 || autovacuumRuns > 0,
    outlier: false,
    ...(t.reads?.length ? { reads: readFigures(t.reads) } : {}),
  };
}
export type RunSummary = ReturnType<typeof runSummary>;

/** f(with, without) per run of the once-a-round variant, against the nearest runs of the other (a drift cancels). */
function paired(
  runs: readonly RunSummary[],
  j: Pick<Judged, "withVariant" | "withoutVariant">,
  f: (withRun: RunSummary, withoutRun: RunSummary) => number | undefined,
): number[] {
  const w = runs.filter((r) => r.variant === j.withVariant);
  const wo = runs.filter((r) => r.variant === j.withoutVariant);
  const anchorIsWith = w.length <= wo.length;
  const [anchors, others] = anchorIsWith ? [w, wo] : [wo, w];
  return anchors.flatMap((a) => {
    const same = others.filter((b) => b.repeat === a.repeat);
    const distance = (b: RunSummary) => Math.abs((b.position ?? 0) - (a.position ?? 0));
    const nearest = Math.min(...same.map(distance));
    const values = same
      .filter((b) => distance(b) === nearest)
      .map((b) => (anchorIsWith ? f(a, b) : f(b, a)))
      .filter((v): v is number => v !== undefined && Number.isFinite(v));
    return values.length ? [values.reduce((x, y) => x + y, 0) / values.length] : [];
  });
}

const pairedInterval = (of: string, ...args: Parameters<typeof paired>) => medianOf(paired(...args), (v) => v, of);
const rounds = (runs: readonly RunSummary[]) => [...groupBy(runs, (r) => String(r.repeat)).values()];

const cost = (runs: readonly RunSummary[], j: Judged) =>
  pairedInterval(`write-throughput cost of ${j.name}: 1 − TPS with ÷ TPS without, paired per round`, runs, j, (a, b) =>
    b.tps > 0 ? 1 - a.tps / b.tps : undefined,
  );

const hotShare = (w: TableWrites | undefined) => (w && w.updated > 0 ? w.hotUpdated / w.updated : undefined);

/** `indexNames`: the indexes the with-variant has and the other lacks. Their own entries are a with-run's count,
 * one a round (the without-variant has none of them, so nothing to pair against). */
export function amplification(
  runs: readonly RunSummary[],
  j: Pick<Judged, "withVariant" | "withoutVariant" | "name">,
  table: string | undefined,
  indexNames: readonly string[],
): WriteAmplification {
  const diff = (pick: (r: RunSummary) => number | undefined, of: string) =>
    pairedInterval(of, runs, j, (a, b) => both(pick(a), pick(b), (x, y) => x - y));
  // An index absent from a run's count received no entry in it.
  return {
    ownEntriesPerTx: medianOf(
      rounds(runs.filter((r) => r.variant === j.withVariant && r.entriesPerTx)),
      (round) => mean(round.map((r) => indexNames.reduce((a, i) => a + (r.entriesPerTx?.[i] ?? 0), 0))),
      `B-tree entries per transaction written into ${j.name}'s own pages, a run with it per round`,
    ),
    walBytesPerTx: diff((r) => r.walBytesPerTx, `WAL bytes per transaction added by ${j.name}`),
    // Lost = without − with.
    hotShareLost: table
      ? diff((r) => -(hotShare(r.tables[table]) ?? NaN), `HOT share of ${table}'s updates lost with ${j.name}`)
      : undefined,
  };
}

/** The noise alone: each baseline run between two others as if a variant (its neighbours are further: a bound). */
function noiseFloor(runs: readonly RunSummary[]) {
  const perRound = rounds(runs.filter((r) => r.variant === "baseline")).map((round) => {
    const o = [...round].sort((a, b) => (a.position ?? 0) - (b.position ?? 0));
    return o.slice(1, -1).flatMap((r, i) => {
      const mean = (o[i].tps + o[i + 2].tps) / 2;
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
    interval: medianInterval(
      medians,
      "noise floor: a baseline run against the baseline runs two places either side, median per round",
    ),
  };
}

export const clean = (r: RunSummary): boolean => !r.disturbed && !r.outlier;

function indexSummary(
  j: Judged,
  runs: readonly RunSummary[],
  variants: readonly VariantSummary[],
  ctx: SummaryContext,
  readScripts: readonly string[],
) {
  const indexesOf = (id: string) => ctx.variants.find((v) => v.id === id)?.indexes ?? [];
  const withNames = new Set(indexesOf(j.withoutVariant).map((i) => i.name));
  const added = indexesOf(j.withVariant).filter((i) => !withNames.has(i.name));
  const addedNames = added.map((i) => i.name);
  const withRuns = runs.filter((r) => r.variant === j.withVariant);
  // Any set (a group, all candidates, all existing) is judged on its most-updated table, the one whose
  // updates its indexes can make non-HOT; its first member's table may be one the workload never updates.
  const written = writesOver(withRuns);
  const updatedIn = (t: string) => written[t]?.updated ?? 0;
  const tables = [...new Set(added.map((i) => i.table))];
  const mostUpdated = [...tables].sort((a, b) => updatedIn(b) - updatedIn(a))[0];
  const info = added.find((i) => i.name === j.name) ?? added.find((i) => i.table === mostUpdated);
  const table = info?.table;
  const [vw, vo] = [j.withVariant, j.withoutVariant].map((id) => variants.find((v) => v.id === id));
  const sides = <K extends keyof VariantSummary>(k: K) => ({ with: vw?.[k], without: vo?.[k] });
  const hotStatements = ctx.updates.flatMap((u) => {
    const hit = added.filter((i) => i.table === u.table).flatMap((i) => i.columns.filter((c) => u.columns.includes(c)));
    return hit.length ? [{ statement: u, columns: [...new Set(hit)] }] : [];
  });
  const ratio = (pick: (r: RunSummary) => number | undefined) =>
    medianOfFinite(paired(runs, j, (a, b) => both(pick(a), pick(b), (x, y) => (y > 0 ? x / y - 1 : undefined))));
  const reads = readScripts.map((script) => {
    const lat = (r: RunSummary) => r.reads?.[script]?.latencyMs;
    const readRuns = withRuns.flatMap((r) => (r.reads?.[script] ? [r.reads[script]] : []));
    const scans = sum(readRuns.flatMap((f) => added.map((i) => f.indexScans[`${i.table}.${i.name}`] ?? 0)));
    const side = (variant: string) => medianOfFinite(runs.filter((r) => r.variant === variant).map(lat));
    const of = `${script} without ${j.name}: latency without ÷ latency with, paired per round`;
    return {
      script,
      slowdown: pairedInterval(of, runs, j, (a, b) => quotient(lat(b), lat(a))),
      latencyMs: { with: side(j.withVariant), without: side(j.withoutVariant) },
      scansPerRun: readRuns.length ? scans / readRuns.length : 0,
      runsWith: readRuns.length,
    };
  });
  const costNow = cost(runs, j);
  return {
    id: j.id,
    name: j.name,
    kind: j.kind,
    ...(j.members ? { members: j.members } : {}),
    ...(table ? { table } : {}),
    // Every table its indexes are on: with more than one, `table` is the one whose HOT share is shown.
    tables,
    columns: [...new Set(added.flatMap((i) => i.columns))],
    ...(info ? { definition: added.map((i) => i.definition).join("; ") } : {}),
    withVariant: j.withVariant,
    withoutVariant: j.withoutVariant,
    pairs: paired(runs, j, () => 1).length,
    cost: costNow,
    costWithoutFlagged: cost(runs.filter(clean), j),
    p50Change: ratio((r) => r.p50Ms),
    p99Change: ratio((r) => r.p99Ms),
    walBytesPerTx: sides("walBytesPerTx"),
    btreeInsertsPerTx: sides("btreeInsertsPerTx"),
    btreeSplitsPerTx: sides("btreeSplitsPerTx"),
    hotShare: { with: table ? vw?.hotShare[table] : undefined, without: table ? vo?.hotShare[table] : undefined },
    amplification: amplification(runs, j, table, addedNames),
    tableWrites: table ? (written[table] ?? NO_WRITES) : undefined,
    hotStatements,
    bytes: added.length ? added.reduce((a, i) => a + i.bytes, 0) : undefined,
    ...(ctx.source
      ? { source: ctx.source.indexes.find((u) => u.index === j.name && (!table || u.table === table)) }
      : {}),
    indexNames: addedNames,
    reads,
    decision: decide({ cost: costNow, reads, adds: j.withVariant !== "baseline" }, readScripts),
  };
}
export type IndexSummary = ReturnType<typeof indexSummary>;

const MEDIANS = ["tps", "p50Ms", "p99Ms", "walBytesPerTx", "btreeInsertsPerTx", "btreeSplitsPerTx"] as const;
export type VariantSummary = {
  readonly id: string;
  readonly runs: number;
  readonly hotShare: Readonly<Record<string, number>>;
} & Partial<Record<(typeof MEDIANS)[number], number>>;

export function summarise(trials: readonly YourIndexesTrial[], ctx: SummaryContext) {
  const readScripts = (ctx.reads ?? []).map((r) => r.name);
  const plain = trials.flatMap((t) =>
    t.status === "ok" && t.pgbench ? [runSummary({ ...t, pgbench: t.pgbench })] : [],
  );
  // Outliers by TPS among each variant's runs: shown and kept; each claim says whether they change it.
  const runs = [...groupBy(plain, (r) => r.variant).values()].flatMap((group) => {
    const flags = outlierFlags(group.map((r) => r.tps));
    return group.map((r, i) => ({ ...r, outlier: flags[i] }));
  });
  runs.sort((a, b) => a.repeat - b.repeat || (a.position ?? 0) - (b.position ?? 0));
  const variants: VariantSummary[] = [...groupBy(runs, (r) => r.variant).values()].map((g) => ({
    id: g[0].variant,
    runs: g.length,
    ...Object.fromEntries(MEDIANS.map((k) => [k, medianOfFinite(g.map((r) => r[k]))])),
    hotShare: Object.fromEntries(
      Object.entries(writesOver(g)).flatMap(([t, w]) => (w.updated > 0 ? [[t, w.hotUpdated / w.updated]] : [])),
    ),
  }));
  const floor = noiseFloor(runs);
  return {
    durationSeconds: ctx.params.durationSeconds,
    clients: ctx.params.clients,
    equivalenceMargin: ctx.params.equivalenceMargin,
    ...(floor ? { noiseFloor: floor } : {}),
    runs,
    variants,
    indexes: ctx.judged.map((j) => indexSummary(j, runs, variants, ctx, readScripts)),
    failed: trials.filter((t) => t.status === "failed").map((t) => ({ key: t.key, error: t.error ?? "" })),
    ...(ctx.source?.statsReset ? { statsReset: ctx.source.statsReset } : {}),
    readScripts,
    failedReads: trials.flatMap((t) =>
      t.status === "ok"
        ? (t.reads ?? []).flatMap((r) => (r.error ? [{ key: t.key, script: r.script, error: r.error }] : []))
        : [],
    ),
  };
}

/** With the adaptive design's looks: every verdict is decided at its per-look coverage. */
export type YourIndexesSummary = ReturnType<typeof summarise> & { readonly looks?: LookPlan };

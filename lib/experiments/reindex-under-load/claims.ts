/**
 * Seed 003's claims as declarations on the claims engine (stats/claim-engine): each names the seed's
 * sentence and figure, the regime factors, the statistic (per set: the runs of a set ran back to back,
 * in rotated order) and the rule. The engine places, decides and renders them.
 *
 * The seed's 20–30 % is its rebuild's seconds ÷ its 30 s run: a figure of its machine. It is judged
 * only at the seed's protocol (scale 100, 30 s runs, 2 clients); the mechanism behind it (writes stop
 * while a plain REINDEX runs) is the lab's own check, decided at any run length.
 */
import { medianOfFinite } from "../../stats/summary";
import type { ReindexUnderLoadParams } from "./params";
import { publishedFigures } from "../../results/reference";
import { declarations, declare, judge, judgeOne, plan, type ClaimSet, type Without } from "../../stats/claim-engine";
import { seedStallShares } from "./workload/stall";
import type { ClaimCheck, ClaimPlan, Rule } from "../../stats/claims";
import { intervalText, medianInterval } from "../../stats/intervals";
import { sameStatePairs, type StatePairs } from "../../stats/speed";
import { modeSummary, perSet, tpsVsBaseline, updateWithinRun, type ReindexSummary, type RunSummary } from "./summarise";
import { fixed, percent } from "../../stats/format";
import type { ReindexMode } from "./workload/run-trials";

const f1 = (x: number | undefined, d = 1) => fixed(x, d);
const pct = (x: number | undefined) => percent(x);
const shareFmt = (x: number) => `${(x * 100).toFixed(1)} %`;
const pointsFmt = (x: number) => `${x >= 0 ? "+" : "−"}${Math.abs(x * 100).toFixed(1)} points`;
const ratioFmt = (x: number) => `${x.toFixed(2)}×`;
const change = (r: number) => `${r < 1 ? "−" : "+"}${Math.abs((r - 1) * 100).toFixed(0)} %`;

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

/** The seed's UPDATE multiples per set, with ÷ without (0.687/0.125, 0.535/0.126, 0.573/0.124). */
const SEED_MULTIPLES = seedSets().flatMap((s) =>
  s.reindexUpdateMs && s.baselineUpdateMs ? [s.reindexUpdateMs / s.baselineUpdateMs] : [],
);
const SEED_DROPS = seedSets().map((s) => 1 - s.reindexTps / s.baselineTps);
const range = (xs: readonly number[], f: (x: number) => string) =>
  xs.length ? `${f(Math.min(...xs))}–${f(Math.max(...xs))}` : "n/a";

/** The seed's protocol: pgbench -i -s 100, pgbench -c 2 -T 30. */
export const SEED_REGIME = { scale: 100, durationSeconds: 30, clients: 2 } as const;

type Factor = "scale" | "runLength" | "clients";

// ---- Statistics -----------------------------------------------------------------------------------

const runsOf = (s: ReindexSummary, mode: ReindexMode) =>
  s.runs.filter((r) => r.mode === mode).sort((a, b) => a.set - b.set);

const lostShare = (mode: ReindexMode) => (s: ReindexSummary) =>
  perSet(
    s.runs,
    [mode],
    (m) => m.get(mode)?.lostShare,
    `share of the run's transactions lost in the ${mode} window, per set`,
  );

/** The REINDEX window inside the load, s: its start to its end or the run's end. */
function windowSeconds(r: RunSummary, duration: number): number | undefined {
  if (r.reindexStartS !== undefined && r.reindexEndS !== undefined)
    return Math.max(0, Math.min(r.reindexEndS, duration) - Math.max(r.reindexStartS, 0));
  return r.reindexSeconds;
}

/** The plain REINDEX's window ÷ the run length: the share of the run it could stall. */
export function stallShare(r: RunSummary, duration: number): number | undefined {
  const w = windowSeconds(r, duration);
  return w !== undefined && duration > 0 ? w / duration : undefined;
}

const lostOverStall = (s: ReindexSummary) =>
  perSet(
    s.runs,
    ["reindex"],
    (m) => {
      const r = m.get("reindex");
      const share = r ? stallShare(r, s.durationSeconds) : undefined;
      return r?.lostShare !== undefined && share ? r.lostShare / share : undefined;
    },
    "lost share ÷ the plain REINDEX's window share of the run, per set",
  );

const lostDifference = (s: ReindexSummary) =>
  perSet(
    s.runs,
    ["reindex", "concurrently"],
    (m) => {
      const c = m.get("concurrently")?.lostShare;
      const r = m.get("reindex")?.lostShare;
      return c !== undefined && r !== undefined ? c - r : undefined;
    },
    "lost share with CONCURRENTLY − with REINDEX, per set",
  );

/**
 * The sets' plain and CONCURRENTLY runs paired, with PAIR_STATE_RULE applied (stats/speed): each
 * rebuild is timed in its own run, so a pair whose two runs' probes split may measure the machine as
 * well as CONCURRENTLY; it is named, and the verdict without it said.
 */
export function rebuildPairs(
  runs: readonly RunSummary[],
): StatePairs<{ set: number; ratio: number; probes: (number | undefined)[] }> {
  const bySet = new Map<number, Map<ReindexMode, RunSummary>>();
  for (const r of runs) bySet.set(r.set, (bySet.get(r.set) ?? new Map<ReindexMode, RunSummary>()).set(r.mode, r));
  const pairs = [...bySet.entries()]
    .sort((a, b) => a[0] - b[0])
    .flatMap(([set, m]) => {
      const c = m.get("concurrently");
      const r = m.get("reindex");
      return c?.reindexSeconds === undefined || !r?.reindexSeconds
        ? []
        : [{ set, ratio: c.reindexSeconds / r.reindexSeconds, probes: [c.speed?.medianMs, r.speed?.medianMs] }];
    });
  return sameStatePairs(
    pairs,
    (p) => p.probes,
    (p) => `set ${p.set}`,
  );
}

const rebuildRatio = (s: ReindexSummary) => {
  const kept = rebuildPairs(s.runs).kept;
  return kept.length
    ? medianInterval(
        kept.map((p) => p.ratio),
        "rebuild seconds CONCURRENTLY ÷ REINDEX, per set",
      )
    : undefined;
};

/** Per REINDEX run: the stall share × (its transaction ÷ its unblocked UPDATE latency), the multiple's arithmetic. */
function multipleArithmetic(s: ReindexSummary): string {
  const re = runsOf(s, "reindex");
  const share = medianOfFinite(re.map((r) => stallShare(r, s.durationSeconds)));
  const txOverU = medianOfFinite(
    re.map((r) =>
      r.updateUnblockedMs && r.latencyAvgMs !== undefined ? r.latencyAvgMs / r.updateUnblockedMs : undefined,
    ),
  );
  const measured = updateWithinRun(s.runs, "reindex");
  return (
    `1 + stall share ${pct(share)} × transaction ÷ unblocked UPDATE latency ${f1(txOverU)} = ` +
    `×${f1(share !== undefined && txOverU !== undefined ? 1 + share * txOverU : undefined, 2)}` +
    (measured ? ` (measured ${intervalText(measured, ratioFmt)})` : "") +
    `; the seed's set 1: 1 + 25 % × 2.226 ÷ 0.125 = ×5.5`
  );
}

// ---- Declarations ---------------------------------------------------------------------------------

const SEED_SENTENCE = {
  original:
    "「「REINDEX あり」の TPS が、「REINDEX なし」の TPS と比較して 20～30% ほど劣化していることがわかります。」",
  translation: "TPS with REINDEX is about 20–30 % below TPS without",
};
const MANUAL = {
  original:
    "「REINDEX は、メンテナンス中に実施するか、負荷の低い時間帯に CONCURRENTLYオプションを付けて実施しましょう。」 and the quoted manual: " +
    "「…そのテーブルで同時実行される挿入、更新、削除を妨げるようなロックを取得せずにインデックスを再構築します。一方、標準のインデックス再構築は終了するまでテーブルの書き込みをロックします」",
  translation:
    "run REINDEX in maintenance, or with CONCURRENTLY at low load; CONCURRENTLY rebuilds without a lock that blocks " +
    "inserts, updates and deletes, while a plain rebuild locks out writes until it ends",
};
const PROTOCOL_TEXT =
  "pgbench -i -s 100, pgbench -c 2 -T 30 (TPC-B-like), REINDEX of the three primary keys mid-run, restart between runs";
const NO_PLAIN = {
  before: (p: ReindexUnderLoadParams) => !p.modes.includes("reindex"),
  after: (s: ReindexSummary) => !runsOf(s, "reindex").length,
  reason: "this run has no plain REINDEX mode",
};
const NO_CONCURRENTLY = {
  before: (p: ReindexUnderLoadParams) => !p.modes.includes("concurrently") || !p.modes.includes("reindex"),
  after: (s: ReindexSummary) => !runsOf(s, "concurrently").length || !runsOf(s, "reindex").length,
  reason: "this run has no REINDEX CONCURRENTLY mode (or no plain one to compare with)",
};

/** The seed's 20–30 %, widened by 5 points each side (its own three sets spanned 23–30 %). */
export const RULE_TPS_DROP: Rule = { kind: "inside", low: 0.15, high: 0.35 };

export const CLAIMS: ClaimSet<ReindexUnderLoadParams, ReindexSummary, Factor> = declare({
  notebook: "04-reindex-under-load",
  factors: {
    scale: { what: "pgbench scale", seed: SEED_REGIME.scale, unit: "", within: [1, 1] },
    runLength: { what: "run length", seed: SEED_REGIME.durationSeconds, unit: "s", within: [1, 1] },
    // With 2 clients on 2 CPUs both wait on the same lock, and the share a stall costs is the share
    // of clients it blocks; more clients than CPUs would also change the TPS outside it.
    clients: { what: "clients", seed: SEED_REGIME.clients, unit: "", within: [1, 1] },
  },
  before: (p) => ({ scale: p.scale, runLength: p.durationSeconds, clients: p.clients }),
  after: (s) => ({ scale: s.scale, runLength: s.durationSeconds, clients: s.clients }),
  claims: [
    {
      id: "1",
      claim: "TPS drops 20–30 % when the pgbench primary keys are reindexed during a 30 s run at scale 100",
      sentence: SEED_SENTENCE,
      figure: `1276 / 1275 / 1264 → 899 / 968 / 968 TPS (${range(SEED_DROPS, (x) => `${(x * 100).toFixed(1)}`)} % lower), three sets`,
      kind: "magnitude",
      rule: RULE_TPS_DROP,
      reading: "the seed's 20–30 % widened by 5 points each side",
      regime: ["scale", "runLength", "clients"],
      regimeText:
        `${PROTOCOL_TEXT}. The figure is the seed's rebuild seconds ÷ its 30 s run (≈ 7.6 s stalled, 25 %; sets 2, 3: ` +
        "20 %, 22 %): another machine's rebuild makes another share, so only the seed's own protocol tests it",
      howToTest: "`--profile full` runs the seed's protocol (scale 100, 30 s runs, 2 clients)",
      statistic: {
        text:
          "within each REINDEX run: transactions the REINDEX window cost (the rate outside the window × its length − " +
          "those done inside), as a share of the run; one value per set, median over sets (the between-run TPS ratio " +
          "is shown beside it: this machine changes speed between runs)",
        fmt: shareFmt,
        of: lostShare("reindex"),
        needs: "REINDEX runs whose window fell inside the load",
      },
      ours: (s) => {
        const share = medianOfFinite(runsOf(s, "reindex").map((r) => stallShare(r, s.durationSeconds)));
        const between = tpsVsBaseline(s.runs, "reindex");
        return (
          `the plain REINDEX's window was ${pct(share)} of the ${s.durationSeconds} s run (the seed's ≈ 25 % of 30 s)` +
          (between ? `; between runs TPS ${intervalText(between, change)} against the set's baseline` : "")
        );
      },
      why: (s) => {
        const re = runsOf(s, "reindex");
        const all = medianOfFinite(re.map((r) => r.allBlockedSeconds));
        const accounts = medianOfFinite(re.map((r) => r.accountsReindexSeconds));
        return (
          `all ${s.clients} clients stood blocked for ${f1(all)} s of ${s.durationSeconds} s (median over sets); ` +
          `the accounts key took ${f1(accounts)} s to rebuild: the drop is about the share of the run the rebuild lasts.`
        );
      },
      absent: NO_PLAIN,
    },
    {
      id: "1m",
      claim:
        "While a plain REINDEX runs, writes stop: the transactions lost are the share of the run the REINDEX lasts",
      sentence: {
        original:
          "「標準のインデックス再構築は終了するまでテーブルの書き込みをロックします」 (the manual, quoted by the seed)",
        translation: "a plain index rebuild locks out writes to the table until it ends",
      },
      figure:
        `the seed's between-run drops ÷ its stall shares (the accounts UPDATE's added latency × transactions ÷ ` +
        `clients ÷ 30 s): ${range(
          SEED_DROPS.flatMap((d, i) => (seedStallShares()[i] ? [d / seedStallShares()[i]] : [])),
          (x) => x.toFixed(2),
        )} over its three sets`,
      kind: "mechanism",
      rule: { kind: "inside", low: 0.8, high: 1.25 },
      reading: "writes stop: lost share ÷ stall share ≈ 1",
      regime: ["scale", "runLength", "clients"],
      regimeText: "any scale and run length: a run whose REINDEX window lies inside the load",
      mechanism:
        "plain REINDEX holds a SHARE lock on the table, which blocks every UPDATE until it ends; every TPC-B " +
        "transaction updates all three tables, so no transaction completes in the window",
      howToTest: "any profile with the plain REINDEX mode",
      statistic: {
        text:
          "per REINDEX run: the share of its transactions lost in the window ÷ the window's share of the run " +
          "(= 1 − TPS inside ÷ TPS outside, so at most 1: the band's top is never the deciding edge); median over sets",
        fmt: ratioFmt,
        of: lostOverStall,
        needs: "REINDEX runs whose window fell inside the load",
      },
      why: (s) => {
        const re = modeSummary(s, "reindex");
        const lock = runsOf(s, "reindex").find((r) => r.topLock)?.topLock;
        return (
          `during the window pgbench kept ${pct(re?.duringOutside?.median)} of the TPS it had outside it (median)` +
          (lock ? `; the lock it waited for most: "${lock}"` : "") +
          `; pg_blocking_pids named the REINDEX session for ${f1(medianOfFinite(runsOf(s, "reindex").map((r) => r.blockedByReindexSeconds)))} s.`
        );
      },
      absent: NO_PLAIN,
    },
    {
      id: "2",
      claim: "The UPDATE on pgbench_accounts gets several times slower (per-statement latency, pgbench -r)",
      sentence: {
        original: "(no prose; pgbench -r) 「0.125 … UPDATE pgbench_accounts」 → 「0.687 …」",
        translation: "the accounts UPDATE's average latency without and with REINDEX",
      },
      figure: `0.125 → 0.687, 0.126 → 0.535, 0.124 → 0.573 ms: ×${range(SEED_MULTIPLES, (x) => x.toFixed(2))} (0.535 ÷ 0.126 = ×4.25)`,
      kind: "derived",
      derivedFrom:
        "(1m)'s stall share and the transaction ÷ UPDATE latency: added = clients × stall ÷ transactions, so the " +
        "multiple is 1 + stall share × (transaction ÷ UPDATE latency), an identity",
      regime: ["scale", "runLength", "clients"],
      regimeText: PROTOCOL_TEXT,
      howToTest: "any profile with the plain REINDEX mode",
      statistic: {
        text:
          "within each REINDEX run: (its unblocked UPDATE latency + its lock waits on pgbench_accounts ÷ its UPDATEs) ÷ " +
          "its unblocked latency; median over sets",
        fmt: ratioFmt,
        of: (s) => updateWithinRun(s.runs, "reindex"),
        needs: "pgbench -r statement latencies and lock samples of a REINDEX run",
      },
      arithmetic: multipleArithmetic,
      why: () => "",
      absent: NO_PLAIN,
    },
    {
      id: "3a",
      claim: "REINDEX CONCURRENTLY (the seed's suggested remedy) costs less throughput than plain REINDEX",
      sentence: MANUAL,
      figure: "not measured by the seed; suggested as the remedy",
      kind: "direction",
      rule: { kind: "below", margin: 0 },
      regime: ["scale", "runLength", "clients"],
      regimeText: "not measured by the seed; tested at this run's scale and run length",
      mechanism:
        "plain REINDEX holds a SHARE lock on the table, which blocks every UPDATE until it ends; CONCURRENTLY takes " +
        "SHARE UPDATE EXCLUSIVE, which blocks no write, whatever the table's size",
      howToTest: '`--set modes=["baseline","reindex","concurrently"]` or `--profile full` tests it',
      statistic: {
        text:
          "per set, the within-run share of transactions lost to the CONCURRENTLY window minus that lost to the plain " +
          "REINDEX window (percentage points); median over sets",
        fmt: pointsFmt,
        of: lostDifference,
        needs: "a REINDEX and a CONCURRENTLY run in the same set",
      },
      why: (s) => {
        const re = modeSummary(s, "reindex");
        const co = modeSummary(s, "concurrently");
        const out = runsOf(s, "concurrently").filter((r) => r.reindexOutlastedLoad).length;
        return (
          `pgbench waited on locks for ${f1(co?.blockedSeconds.median)} s with CONCURRENTLY vs ${f1(re?.blockedSeconds.median)} s ` +
          `with plain REINDEX (medians); ${out} CONCURRENTLY run(s) outlasted the load (their window is cut at the run's end).`
        );
      },
      absent: NO_CONCURRENTLY,
    },
    {
      id: "3b",
      claim: "REINDEX CONCURRENTLY takes longer than plain REINDEX",
      sentence: { original: "none in the seed: the manual describes CONCURRENTLY's extra scans and waits" },
      figure: "not measured by the seed",
      kind: "direction",
      rule: { kind: "above", margin: 1 },
      regime: ["scale", "runLength", "clients"],
      regimeText: "not measured by the seed; tested at this run's scale and run length",
      mechanism:
        "CONCURRENTLY builds a new index in two scans of the table and waits for every transaction that could see " +
        "the old one, work plain REINDEX does not do, at any size",
      howToTest: '`--set modes=["baseline","reindex","concurrently"]` or `--profile full` tests it',
      statistic: {
        text:
          "per set, seconds to rebuild the three indexes with CONCURRENTLY ÷ with plain REINDEX; median over sets " +
          "(every set counts; a set whose two runs' write-path probes differ by more than ×1.25 is named in the why)",
        fmt: ratioFmt,
        of: rebuildRatio,
        needs: "a finished REINDEX and CONCURRENTLY in the same set",
      },
      why: (s) => {
        const split = rebuildPairs(s.runs).split;
        const re = modeSummary(s, "reindex");
        const co = modeSummary(s, "concurrently");
        return (
          `rebuild ${f1(re?.reindexSeconds?.median)} s vs ${f1(co?.reindexSeconds?.median)} s (medians, all three indexes)` +
          (split.length ? `; sets whose two runs' probes split (×1.25): ${split.map((e) => e.label).join(", ")}.` : ".")
        );
      },
      absent: NO_CONCURRENTLY,
    },
  ],
  notDeclared: [
    {
      sentence: {
        original: "「インデックス数が増えるほど影響は大きくなると考えられます」",
        translation: "the more indexes, the bigger the REINDEX's impact, we think",
      },
      reason:
        "this workload reindexes pgbench's three primary keys, one per table, as the seed did; testing it needs runs " +
        "with added indexes on pgbench_accounts, which no parameter sets yet",
    },
    {
      sentence: {
        original: "「（読み込みはロックしません）」 and the seed's -r SELECT 0.098 → 0.102 ms",
        translation: "reads are not locked",
      },
      reason:
        "pgbench's SELECT reads the row its own transaction has just updated, so it never meets the REINDEX's lock " +
        "by itself (the UPDATE before it waits): its latency cannot tell. A read-only client beside the load would " +
        "test it; and the manual's REINDEX page adds that a plain REINDEX's ACCESS EXCLUSIVE lock on the index blocks " +
        "reads that use that index",
    },
  ],
});

/** The flagged sets (an outlier, a checkpoint or autovacuum in a run's window) and the summary without them. */
export function withoutFlagged(s: ReindexSummary): Without<ReindexSummary> {
  const flagged = s.runs.filter((r) => r.flags.length);
  const sets = new Set(flagged.map((r) => r.set));
  return {
    summary: { ...s, runs: s.runs.filter((r) => !sets.has(r.set)) },
    flagged: {
      noun: "set",
      count: sets.size,
      detail: flagged.map((r) => `set ${r.set} ${r.mode}: ${r.flags.join(", ")}`).join("; "),
      none: "No run was flagged (outlier, checkpoint or autovacuum in its window).",
    },
  };
}

export const DECLARATIONS = declarations(CLAIMS);
export const checkClaims = (s: ReindexSummary): ClaimCheck[] => judge(CLAIMS, s, withoutFlagged(s));
/** One claim (the adaptive design reads the mechanism check's verdict). */
export const checkClaim = (s: ReindexSummary, id: string): ClaimCheck => judgeOne(CLAIMS, id, s, withoutFlagged(s));
export const plan04 = (p: ReindexUnderLoadParams): ClaimPlan[] => plan(CLAIMS, p);

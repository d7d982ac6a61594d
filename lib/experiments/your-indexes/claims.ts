/**
 * Notebook 06's claims: no seed measured the reader's indexes, so each claim is the lab's question
 * about one judged index or set (existing, unused on the source, a candidate, a group), declared on
 * the claims engine (stats/claim-engine). Three per judged item: its write-throughput cost is above 0
 * (direction); it is within ±equivalenceMargin (the reader's equivalence, declared before the run); it
 * adds write amplification, decided on one counter, not on whichever of several lands above 0: the
 * B-tree entries it adds per transaction (WAL records, pg_walinspect). Entries do not depend on how
 * many transactions a run made; WAL bytes per transaction do (the full-page images after the clone's
 * checkpoint spread over them), so WAL bytes and the HOT share lost are shown beside it, not decided
 * on. An index of another type is shown, not decided (its entries are not B-tree records).
 */
import { MIN_COVERAGE, repeatsForCoverage } from "../../stats/claims";
import type { ClaimCheck, Decision, Rule } from "../../stats/claims";
import { declare, decideClaim, type Claim, type ClaimSet, type Without } from "../../stats/claim-engine";
import { atCoverage, type Interval } from "../../stats/intervals";
import { lookLevel } from "../../stats/adaptive";
import { fixed as decimals, minusFixed, percent } from "../../stats/format";
import { amplification, clean, type IndexSummary, type YourIndexesSummary } from "./summarise";
import { YOUR_INDEXES_PROFILES, type YourIndexesParams } from "./params";
import type { Judged } from "./workload/variants";

type S = YourIndexesSummary;
type Item = Pick<Judged, "name" | "kind" | "members"> & Partial<Pick<IndexSummary, "source">>;

const fixed = minusFixed;
const pctNum = (x: number) => fixed(x * 100, 1);
const fmtCost = (x: number) => `${pctNum(x)} %`;
const walText = (i: Interval) => {
  const kb = Math.max(Math.abs(i.low), Math.abs(i.high), Math.abs(i.estimate)) >= 1024;
  const f = (x: number) => (kb ? fixed(x / 1024, 2) : fixed(x, 0));
  return `${f(i.estimate)} ${kb ? "kB" : "B"} WAL/tx [${f(i.low)}–${f(i.high)} ${kb ? "kB" : "B"}]`;
};

const ABOVE_0: Rule = { kind: "above", margin: 0 };
const PAIRED =
  "paired per round: the variant's run against the two baseline runs just before and after it (the baseline runs " +
  "between every two variants, their order a Williams design); exact order-statistic interval of the median over rounds";
const find = (s: S, name: string) => s.indexes.find((ix) => ix.name === name);
/** Every index it adds or drops is a B-tree (pg_get_indexdef's USING; CREATE INDEX's default). */
const btree = (ix: IndexSummary) =>
  [...(ix.definition ?? "").matchAll(/\bUSING\s+(\w+)/gi)].every((m) => /^btree$/i.test(m[1]));

/** The three claims of one judged index or set. */
function itemClaims(j: Item, margin: number): Claim<YourIndexesParams, S>[] {
  const m = `±${pctNum(margin)} %`;
  const who =
    j.name +
    (j.members ? ` (a set: ${j.members.join(", ")})` : "") +
    (j.source?.idxScan === 0 ? " (never scanned on the source since its statistics were reset)" : "");
  const question = (original: string) => ({
    original,
    whose: "the lab's question",
    figure: "no figure: the reader's own schema and workload, which nothing published measured",
  });
  const cost = {
    text: `write-throughput cost = 1 − TPS with ÷ TPS without, ${PAIRED}`,
    fmt: fmtCost,
    of: (s: S) => find(s, j.name)?.cost,
    needs: "a round in which both variants finished",
  };
  const common = {
    regime: [],
    regimeText: "this run: the reader's schema, data and workload on this lab server, at its clients and duration",
    howToTest: "more rounds (repeats, maxRepeats) narrow the intervals",
    why: (s: S) => {
      const ix = find(s, j.name);
      return ix ? because(ix) : "";
    },
  };
  return [
    {
      ...common,
      id: `${j.name}: throughput costs`,
      claim: `${who} costs the workload write throughput (cost above 0)`,
      sentence: question(`whether ${j.name} costs the workload's writes throughput`),
      kind: "direction",
      rule: ABOVE_0,
      mechanism:
        "every insert, and every update that cannot be HOT, adds an entry to each index of the table (WAL, " +
        "buffers, splits): measured here as B-tree leaf inserts and WAL bytes per transaction",
      statistic: cost,
    },
    {
      ...common,
      id: `${j.name}: throughput within ${m}`,
      claim: `${who} costs at most ${m} of write throughput (equivalence)`,
      sentence: question(`whether ${j.name}'s write-throughput cost is within ${m}`),
      kind: "equivalence",
      rule: { kind: "inside", low: -margin, high: margin },
      reading: "the margin is the reader's parameter equivalenceMargin, declared before the run",
      statistic: cost,
      ours: (s) => {
        const f = s.noiseFloor;
        return f ? `noise floor (a baseline run against its neighbours) ${pctNum(f.q25)}–${fmtCost(f.q75)}` : "";
      },
    },
    {
      ...common,
      id: `${j.name}: write amplification`,
      claim: `${who} adds write amplification (B-tree entries per transaction above 0)`,
      sentence: question(`whether ${j.name} adds write amplification`),
      kind: "direction",
      rule: ABOVE_0,
      reading: "one counter decides, the entries the index writes; WAL bytes and HOT share lost are shown",
      mechanism:
        "an index receives an entry for every inserted row of its table and every update that cannot stay HOT " +
        "because it sets a column the index reads; each entry is a WAL record (a B-tree leaf insert)",
      statistic: {
        text:
          "B-tree leaf entries per transaction with − without (Btree INSERT_LEAF, INSERT_POST, SPLIT_L, SPLIT_R " +
          `records in the run's WAL, pg_walinspect), ${PAIRED}`,
        fmt: (x) => fixed(x, 2),
        of: (s) => {
          const ix = find(s, j.name);
          return ix && btree(ix) ? ix.amplification.btreeInsertsPerTx : undefined;
        },
        needs:
          "B-tree indexes only (another type's entries are not B-tree records), and the run's own WAL (another " +
          "database writing in the window makes it the server's)",
      },
      howToTest: "more rounds narrow the interval; an index of another type is shown (WAL bytes), not decided",
      ours: (s) => counters(find(s, j.name)).join(", "),
    },
  ];
}

/** The claims of these judged items at this margin, declared (checked) on the engine. */
export const claimSet = (items: readonly Item[], margin: number): ClaimSet<YourIndexesParams, S> =>
  declare({
    notebook: "06-your-indexes",
    factors: {},
    before: () => ({}),
    after: () => ({}),
    claims: items.flatMap((j) => itemClaims(j, margin)),
    notDeclared: [],
  });

/** What every judged item is asked: the registry's set (at the profiles' margin) and the plan before a run. */
const EACH = [{ name: "each judged index", kind: "existing" }] as const;
export const CLAIMS = claimSet(EACH, YOUR_INDEXES_PROFILES.default.equivalenceMargin);
export const claimsFor = {
  params: (p: YourIndexesParams) => claimSet(EACH, p.equivalenceMargin),
  summary: (s: S) => claimSet(s.indexes, s.equivalenceMargin),
};

/** Each claim's sensitivity: the summary without flagged runs, and the flagged runs of its index's two variants. */
export function withoutFlagged(s: S): (claimId: string) => Without<S> {
  const runs = s.runs.filter(clean);
  const summary: S = {
    ...s,
    runs,
    indexes: s.indexes.map((x) => ({
      ...x,
      cost: x.costWithoutFlagged,
      amplification: amplification(runs, x, x.table),
    })),
  };
  const byClaim = new Map(s.indexes.flatMap((ix) => itemClaims(ix, s.equivalenceMargin).map((c) => [c.id, ix])));
  return (id) => {
    const ix = byClaim.get(id);
    const out = s.runs.filter((r) => (r.variant === ix?.withVariant || r.variant === ix?.withoutVariant) && !clean(r));
    const detail = out.map((r) => `${r.key}: ${r.outlier ? "outlier" : "checkpoint or autovacuum"}`).join(", ");
    const none = "No run of its two variants was flagged (outlier, checkpoint or autovacuum in its window).";
    return { summary, flagged: { noun: "run", count: out.length, detail, none } };
  };
}

/** The claims as the table shows them: the lab's questions on the reader's own run, with no seed line. */
export const asTheLabsQuestions = (claims: readonly ClaimCheck[]): ClaimCheck[] =>
  claims.map((c) => ({ ...c, seed: "" }));

/** The throughput verdict ("within margin" never follows an interval wholly above 0) and the amplification one. */
export type Judgement = "costs" | "within margin" | "speeds up" | "inconclusive";
export type AmplificationJudgement = "adds" | "none above 0" | "inconclusive" | "not measured";
export interface AmplificationVerdict {
  readonly judgement: AmplificationJudgement;
  readonly text: string;
  readonly decision: Decision;
}
/** One index's verdict line from its claims' decisions (the table, the chart, the adaptive rounds read it). */
export interface IndexJudgement {
  readonly judgement: Judgement;
  readonly throughput: string;
  readonly amplification: AmplificationVerdict;
  /** Both, each labelled: "throughput …; write amplification …". */
  readonly text: string;
}

/** An interval too short to decide either way: "3 paired round(s) cover the median only 75 %: needs ≥ 5". */
const tooFew = (i: Interval) =>
  i.coverage < MIN_COVERAGE
    ? `${i.n} paired round(s) cover the median only ${Math.round(i.coverage * 100)} %: needs ≥ ${repeatsForCoverage(MIN_COVERAGE)}`
    : undefined;

/**
 * A cost wholly above 0 is always stated, with where it lies against the margin: the margin says
 * whether it matters to the reader, never whether it exists. Inside the margin and not above 0:
 * "within ±m"; wholly below −m: "speeds the workload up"; else inconclusive, with the reason.
 */
function throughput(c: Interval | undefined, margin: number, costs: Decision, eq: Decision) {
  const m = `±${pctNum(margin)} %`;
  const say = (judgement: Judgement, throughput: string) => ({ judgement, throughput });
  if (!c) return say("inconclusive", "throughput inconclusive: no paired rounds");
  const shown = `${pctNum(c.estimate)} % [${pctNum(c.low)}–${pctNum(c.high)} %]`;
  if (costs.verdict === "held")
    return say(
      "costs",
      `throughput costs ${shown}, ${eq.verdict === "held" ? "inside" : c.low > margin ? "beyond" : "reaching past"} ${m}`,
    );
  if (eq.verdict === "held") return say("within margin", `throughput within ${m}: ${shown}`);
  if (costs.verdict === "did not hold" && eq.verdict === "did not hold")
    return say(
      "speeds up",
      `throughput: speeds the workload up ${fmtCost(-c.estimate)} [${pctNum(-c.high)}–${fmtCost(-c.low)}]`,
    );
  const reason = (costs.verdict === "inconclusive" ? costs : eq).decidedBy.replace(
    /^.*?(straddles|reaches across)/,
    "$1",
  );
  return say("inconclusive", `throughput inconclusive: ${shown} ${tooFew(c) ?? reason}`);
}

/** WAL bytes and the HOT share lost per transaction, as this run measured them: shown beside the decision. */
function counters(ix: IndexSummary | undefined): string[] {
  const { walBytesPerTx: w, hotShareLost: h } = ix?.amplification ?? {};
  const pts = (x: number) => fixed(x * 100, 0);
  return [
    ...(w ? [walText(w)] : []),
    ...(h
      ? [`${pts(h.estimate)} points of ${ix?.table ?? "its table"}'s HOT share lost [${pts(h.low)}–${pts(h.high)}]`]
      : []),
  ];
}

/** "adds" when the entries lie wholly above 0; too few rounds say so, whatever side; else "none measurably above 0". */
function amplificationLine(ix: IndexSummary, decision: Decision): AmplificationVerdict {
  const say = (judgement: AmplificationJudgement, text: string) => ({ judgement, text, decision });
  const b = ix.amplification.btreeInsertsPerTx;
  const of = counters(ix);
  const shown = of.length ? ` (${of.join(", ")})` : "";
  if (!btree(ix))
    return say("not measured", `write amplification not decided: not a B-tree, whose entries are counted${shown}`);
  if (!b) return say("not measured", "write amplification not measured (no paired rounds with the run's own WAL)");
  const entries = `${fixed(b.estimate, 2)} B-tree inserts/tx [${fixed(b.low, 2)}–${fixed(b.high, 2)}]`;
  if (decision.verdict === "held") return say("adds", `write amplification: adds ${entries}${shown}`);
  const few = tooFew(b);
  if (few) return say("inconclusive", `write amplification inconclusive: ${[entries, ...of].join(", ")}; ${few}`);
  return say("none above 0", `write amplification: none measurably above 0 (${[entries, ...of].join(", ")})`);
}

/** Both verdicts of one judged index, each labelled, decided by its claims' rules. */
export function judgeIndex(s: S, ix: IndexSummary): IndexJudgement {
  const set = claimSet([ix], s.equivalenceMargin);
  // An adaptive run decides at its per-look coverage (stats/adaptive lookPlan), as judgeOne does.
  const level = lookLevel(s);
  const [costs, equivalence, adds] = set.claims.map((c): Decision => {
    const stat = c.statistic.of(s);
    const statistic = stat && level && !Array.isArray(stat) ? atCoverage(stat as Interval, level) : stat;
    const o = decideClaim(c, set.factors, c.statistic.fmt, { statistic, position: {}, level });
    return { verdict: o.verdict, decidedBy: o.reason };
  });
  const t = throughput(ix.cost, s.equivalenceMargin, costs, equivalence);
  const a = amplificationLine(ix, adds);
  return { ...t, amplification: a, text: `${t.throughput}; ${a.text}` };
}

/** Why the index costs what it does, from this run's counters only. */
export function because(ix: IndexSummary): string {
  const parts: string[] = [];
  const w = ix.tableWrites;
  const t = ix.table;
  if (t && w)
    parts.push(
      w.inserted + w.updated + w.deleted === 0
        ? `The workload wrote no row of ${t} in the runs with the index (0 inserted, updated or deleted), so the index received no entry`
        : `Over the runs with the index the workload inserted ${decimals(w.inserted, 0)}, updated ` +
            `${decimals(w.updated, 0)} and deleted ${decimals(w.deleted, 0)} rows of ${t}`,
    );
  const d = (x: { with?: number; without?: number }, f: (v: number) => string) =>
    x.with !== undefined && x.without !== undefined ? `${f(x.without)} → ${f(x.with)}` : "n/a";
  if (ix.btreeInsertsPerTx.with !== undefined)
    parts.push(
      `B-tree leaf inserts per transaction (counted in the WAL) ${d(ix.btreeInsertsPerTx, (v) => v.toFixed(2))} ` +
        `without → with it, page splits ${d(ix.btreeSplitsPerTx, (v) => v.toFixed(3))}`,
    );
  if (ix.walBytesPerTx.with !== undefined)
    parts.push(`WAL per transaction ${d(ix.walBytesPerTx, (v) => `${(v / 1024).toFixed(2)} kB`)}`);
  const { with: hw, without: ho } = ix.hotShare;
  if (t && hw !== undefined && ho !== undefined) {
    const was = `the HOT share of ${t}'s updates`;
    const sets = ix.hotStatements.map(
      ({ statement: u, columns }) =>
        `${u.script}'s UPDATE of ${u.table} sets ${columns.join(", ")}, which the index reads ` +
        `(${u.statement.length > 90 ? `${u.statement.slice(0, 90)}…` : u.statement})`,
    );
    parts.push(
      ho - hw <= 0.01
        ? `${was} stayed ${percent(ho)} → ${percent(hw)}`
        : `${was} fell ${percent(ho)} → ${percent(hw)}` +
            (sets.length
              ? `: ${sets.join("; ")}, so each such update writes a new entry into every index of ${t}`
              : " (no UPDATE in the scripts sets one of its columns by name: an expression or trigger does)"),
    );
  }
  return parts.length ? `${parts.join("; ")}.` : "";
}

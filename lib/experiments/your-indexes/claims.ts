/** 06's claims, the lab's questions about each judged index or set. Write amplification is decided on the index's
 * own B-tree entries per transaction: WAL bytes per transaction carry the clone's full-page images, and all B-tree
 * records of the WAL carry every other index's, so those are only shown. */
import type { ClaimCheck, ClaimKind } from "../../stats/claims";
import { declare, judge, type ClaimSpec, type ClaimSet, type Without } from "../../stats/claim-engine";
import { minusFixed as fixed } from "../../stats/format";
import { amplification, clean, type IndexSummary, type YourIndexesSummary as S } from "./summarise";
import { YOUR_INDEXES_PROFILES, type YourIndexesParams } from "./params";
import type { Judged } from "./workload/variants";
import { pc } from "./decision";
import { amplificationLine, because, btree, counters, fmtCost, throughput } from "./verdict-text";

type Item = Pick<Judged, "name" | "kind" | "members"> & Partial<Pick<IndexSummary, "source">>;

const ABOVE_0 = { kind: "direction", rule: { kind: "above", margin: 0 } } as const;
const find = (s: S, name: string) => s.indexes.find((ix) => ix.name === name);

function itemClaims(j: Item, margin: number): ClaimSpec<YourIndexesParams, S>[] {
  const m = `±${pc(margin)} %`;
  const never = j.source?.idxScan === 0 ? " (never scanned on the source since its statistics were reset)" : "";
  const who = `${j.name}${j.members ? ` (a set: ${j.members.join(", ")})` : ""}${never}`;
  const figure = "no figure: the reader's own schema and workload, which nothing published measured";
  const ask = (question: string) => ({ original: `whether ${j.name}${question}`, whose: "the lab's question", figure });
  const common = {
    regimeText: "this run: the reader's schema, data and workload on this lab server, at its clients and duration",
    howToTest: "more rounds (repeats, maxRepeats) narrow the intervals",
    why: (s: S) => because(find(s, j.name)),
  };
  const cost = {
    statistic: `write-throughput cost = 1 − TPS with ÷ TPS without, paired per round: the variant's run against the two baseline runs just before and after it (the baseline runs between every two variants, their order a Williams design); exact order-statistic interval of the median over rounds`,
    fmt: fmtCost,
    of: (s: S) => find(s, j.name)?.cost,
    needs: "a round in which both variants finished",
  };
  return [
    {
      ...common,
      id: `${j.name}: throughput costs`,
      claim: `${who} costs the workload write throughput (cost above 0)`,
      sentence: ask(" costs the workload's writes throughput"),
      ...ABOVE_0,
      mechanism:
        "every insert, and every update that cannot be HOT, adds an entry to each index of the table (WAL, buffers, splits): measured here as B-tree leaf inserts and WAL bytes per transaction",
      ...cost,
    },
    {
      ...common,
      id: `${j.name}: throughput within ${m}`,
      claim: `${who} costs at most ${m} of write throughput (equivalence)`,
      sentence: ask(`'s write-throughput cost is within ${m}`),
      kind: "equivalence",
      rule: { kind: "inside", low: -margin, high: margin },
      reading: "the margin is the reader's parameter equivalenceMargin, declared before the run",
      ...cost,
      ours: ({ noiseFloor: f }) =>
        f ? `noise floor (a baseline run against its neighbours) ${pc(f.q25)}–${fmtCost(f.q75)}` : "",
    },
    {
      ...common,
      id: `${j.name}: write amplification`,
      claim: `${who} adds write amplification (B-tree entries per transaction above 0)`,
      sentence: ask(" adds write amplification"),
      ...ABOVE_0,
      reading: "one counter decides, the entries the index writes; WAL bytes and HOT share lost are shown",
      mechanism:
        "an index receives an entry for every inserted row of its table and every update that cannot stay HOT because it sets a column the index reads; each entry is a WAL record (a B-tree leaf insert)",
      statistic:
        "the index's own B-tree entries per transaction (its Btree INSERT_LEAF, INSERT_POST, SPLIT_L, SPLIT_R records in the WAL, found by the page they change: pg_walinspect's pg_get_wal_block_info), in one run with it a round (the variant without it has none); exact order-statistic interval of the median over rounds",
      fmt: (x) => fixed(x, 2),
      of: (s) => [find(s, j.name)].map((ix) => (ix && btree(ix) ? ix.amplification.ownEntriesPerTx : undefined))[0],
      needs:
        "B-tree indexes only (another type's entries are not B-tree records), and WAL counted per index (pg_get_wal_block_info: PostgreSQL ≥ 16)",
      howToTest: "more rounds narrow the interval; an index of another type is shown (WAL bytes), not decided",
      ours: (s) => counters(find(s, j.name)).join(", "),
    },
  ];
}

const claimSet = (items: readonly Item[], margin: number): ClaimSet<YourIndexesParams, S> =>
  declare({ notebook: "06-your-indexes", claims: items.flatMap((j) => itemClaims(j, margin)) });

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
  const indexes = s.indexes.map((x) => ({
    ...x,
    cost: x.costWithoutFlagged,
    amplification: amplification(runs, x, x.table, x.indexNames),
  }));
  const byClaim = new Map(s.indexes.flatMap((ix) => itemClaims(ix, s.equivalenceMargin).map((c) => [c.id, ix])));
  return (id) => {
    const ix = byClaim.get(id);
    const out = s.runs.filter((r) => (r.variant === ix?.withVariant || r.variant === ix?.withoutVariant) && !clean(r));
    const detail = out.map((r) => `${r.key}: ${r.outlier ? "outlier" : "checkpoint or autovacuum"}`).join(", ");
    const none = "No run of its two variants was flagged (outlier, checkpoint or autovacuum in its window).";
    return { summary: { ...s, runs, indexes }, flagged: { noun: "run", count: out.length, detail, none } };
  };
}

/** The table's kind column in 06's words (the declarations keep the engine's kinds), with no seed line. */
const KIND_WORDS: Partial<Record<ClaimKind, string>> = {
  direction: "direction, on this run's own workload",
  equivalence: "within the reader's declared margin",
};
export const asTheLabsQuestions = (claims: readonly ClaimCheck[]): ClaimCheck[] =>
  claims.map((c) => ({ ...c, seed: "", kind: (KIND_WORDS[c.kind] ?? c.kind) as ClaimKind }));

export function judgeIndex(s: S, ix: IndexSummary) {
  const [costs, equivalence, adds] = judge(claimSet([ix], s.equivalenceMargin), s);
  const [judgement, t] = throughput(ix.cost, s.equivalenceMargin, costs, equivalence);
  const [a, text] = amplificationLine(ix, adds);
  const amplification = { judgement: a, text, decision: { verdict: adds.verdict, decidedBy: adds.decidedBy } };
  return { judgement, throughput: t, amplification, text: `${t}; ${text}` };
}

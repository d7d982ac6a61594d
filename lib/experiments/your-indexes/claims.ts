/**
 * 06's claims, the lab's questions about each judged index or set. Write amplification is decided on B-tree
 * entries per transaction: WAL bytes per transaction carry the clone's full-page images, so they are only shown.
 */
import { MIN_COVERAGE, repeatsForCoverage, type ClaimCheck, type ClaimKind } from "../../stats/claims";
import { declare, judge, type ClaimSpec, type ClaimSet, type Without } from "../../stats/claim-engine";
import type { Interval } from "../../stats/intervals";
import { minusFixed as fixed, percent } from "../../stats/format";
import { amplification, clean, type IndexSummary, type YourIndexesSummary as S } from "./summarise";
import { YOUR_INDEXES_PROFILES, type YourIndexesParams } from "./params";
import type { Judged } from "./workload/variants";

type Item = Pick<Judged, "name" | "kind" | "members"> & Partial<Pick<IndexSummary, "source">>;

const pctNum = (x: number) => fixed(x * 100, 1);
const fmtCost = (x: number) => `${pctNum(x)} %`;
const range = (i: Interval, f: (x: number) => string) => `${f(i.low)}–${f(i.high)}`;
/** Claims 1 and 3: a direction, the difference above 0. */
const ABOVE_0 = { kind: "direction", rule: { kind: "above", margin: 0 } } as const;
const PAIRED =
  "paired per round: the variant's run against the two baseline runs just before and after it (the baseline runs between every two variants, their order a Williams design); exact order-statistic interval of the median over rounds";
const find = (s: S, name: string) => s.indexes.find((ix) => ix.name === name);
/** Every index it adds or drops is a B-tree (pg_get_indexdef's USING; CREATE INDEX's default). */
const btree = (ix: IndexSummary) =>
  [...(ix.definition ?? "").matchAll(/\bUSING\s+(\w+)/gi)].every((m) => /^btree$/i.test(m[1]));

function itemClaims(j: Item, margin: number): ClaimSpec<YourIndexesParams, S>[] {
  const m = `±${pctNum(margin)} %`;
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
    text: `write-throughput cost = 1 − TPS with ÷ TPS without, ${PAIRED}`,
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
      statistic: cost,
    },
    {
      ...common,
      id: `${j.name}: throughput within ${m}`,
      claim: `${who} costs at most ${m} of write throughput (equivalence)`,
      sentence: ask(`'s write-throughput cost is within ${m}`),
      kind: "equivalence",
      rule: { kind: "inside", low: -margin, high: margin },
      reading: "the margin is the reader's parameter equivalenceMargin, declared before the run",
      statistic: cost,
      ours: ({ noiseFloor: f }) =>
        f ? `noise floor (a baseline run against its neighbours) ${pctNum(f.q25)}–${fmtCost(f.q75)}` : "",
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
      statistic: {
        text: `B-tree leaf entries per transaction with − without (Btree INSERT_LEAF, INSERT_POST, SPLIT_L, SPLIT_R records in the run's WAL, pg_walinspect), ${PAIRED}`,
        fmt: (x) => fixed(x, 2),
        of: (s) => [find(s, j.name)].map((ix) => (ix && btree(ix) ? ix.amplification.btreeInsertsPerTx : undefined))[0],
        needs:
          "B-tree indexes only (another type's entries are not B-tree records), and the run's own WAL (another database writing in the window makes it the server's)",
      },
      howToTest: "more rounds narrow the interval; an index of another type is shown (WAL bytes), not decided",
      ours: (s) => counters(find(s, j.name)).join(", "),
    },
  ];
}

const claimSet = (items: readonly Item[], margin: number): ClaimSet<YourIndexesParams, S> =>
  declare({
    notebook: "06-your-indexes",
    factors: {},
    before: () => ({}),
    after: () => ({}),
    claims: items.flatMap((j) => itemClaims(j, margin)),
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
  const indexes = s.indexes.map((x) => ({
    ...x,
    cost: x.costWithoutFlagged,
    amplification: amplification(runs, x, x.table),
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

/** The throughput verdict ("within margin" never follows an interval wholly above 0) and the amplification one. */
export type Judgement = "costs" | "within margin" | "speeds up" | "inconclusive";
type Amplification = "adds" | "none above 0" | "inconclusive" | "not measured";

/** "3 paired round(s) cover the median only 75 %: needs ≥ 5", for an interval too short to decide. */
const tooFew = (i: Interval) =>
  i.coverage < MIN_COVERAGE
    ? `${i.n} paired round(s) cover the median only ${Math.round(i.coverage * 100)} %: needs ≥ ${repeatsForCoverage(MIN_COVERAGE)}`
    : undefined;

/** WAL bytes per transaction and the HOT share lost: shown beside the B-tree entries, which alone decide. */
function counters(ix: IndexSummary | undefined): string[] {
  const { walBytesPerTx: w, hotShareLost: h } = ix?.amplification ?? {};
  const kb = w && Math.max(...[w.low, w.high, w.estimate].map(Math.abs)) >= 1024 ? "kB" : "B";
  const f = (x: number) => (kb === "kB" ? fixed(x / 1024, 2) : fixed(x, 0));
  const pts = (x: number) => fixed(x * 100, 0);
  const hot = h && `${pts(h.estimate)} points of ${ix?.table ?? "its table"}'s HOT share lost [${range(h, pts)}]`;
  return [w && `${f(w.estimate)} ${kb} WAL/tx [${range(w, f)} ${kb}]`, hot].filter((x): x is string => !!x);
}

/** A cost above 0 is always stated with where it lies against the margin: the margin says whether it matters. */
function throughput(c: Interval | undefined, margin: number, costs: ClaimCheck, eq: ClaimCheck): [Judgement, string] {
  const m = `±${pctNum(margin)} %`;
  if (!c) return ["inconclusive", "throughput inconclusive: no paired rounds"];
  const at = `${pctNum(c.estimate)} % [${range(c, pctNum)} %]`;
  const where = eq.verdict === "held" ? "inside" : c.low > margin ? "beyond" : "reaching past";
  if (costs.verdict === "held") return ["costs", `throughput costs ${at}, ${where} ${m}`];
  if (eq.verdict === "held") return ["within margin", `throughput within ${m}: ${at}`];
  const faster = `${fmtCost(-c.estimate)} [${pctNum(-c.high)}–${fmtCost(-c.low)}]`;
  if (costs.verdict === "did not hold" && eq.verdict === "did not hold")
    return ["speeds up", `throughput: speeds the workload up ${faster}`];
  const undecided = costs.verdict === "inconclusive" ? costs : eq;
  const reason = undecided.decidedBy.replace(/^.*?(?=straddles|reaches across)/, "");
  return ["inconclusive", `throughput inconclusive: ${at} ${tooFew(c) ?? reason}`];
}

/** "adds" when the entries lie wholly above 0; too few rounds say so, whatever side; else "none measurably above 0". */
function amplificationLine(ix: IndexSummary, adds: ClaimCheck): [Amplification, string] {
  const b = ix.amplification.btreeInsertsPerTx;
  const of = counters(ix);
  const shown = of.length ? ` (${of.join(", ")})` : "";
  if (!btree(ix))
    return ["not measured", `write amplification not decided: not a B-tree, whose entries are counted${shown}`];
  if (!b) return ["not measured", "write amplification not measured (no paired rounds with the run's own WAL)"];
  const entries = `${fixed(b.estimate, 2)} B-tree inserts/tx [${range(b, (x) => fixed(x, 2))}]`;
  if (adds.verdict === "held") return ["adds", `write amplification: adds ${entries}${shown}`];
  const few = tooFew(b);
  if (few) return ["inconclusive", `write amplification inconclusive: ${[entries, ...of].join(", ")}; ${few}`];
  return ["none above 0", `write amplification: none measurably above 0 (${[entries, ...of].join(", ")})`];
}

export function judgeIndex(s: S, ix: IndexSummary) {
  const [costs, equivalence, adds] = judge(claimSet([ix], s.equivalenceMargin), s);
  const [judgement, t] = throughput(ix.cost, s.equivalenceMargin, costs, equivalence);
  const [a, text] = amplificationLine(ix, adds);
  const amplification = { judgement: a, text, decision: { verdict: adds.verdict, decidedBy: adds.decidedBy } };
  return { judgement, throughput: t, amplification, text: `${t}; ${text}` };
}

/** Why the index costs what it does, from this run's counters only. */
export function because(ix: IndexSummary | undefined): string {
  if (!ix) return "";
  const { tableWrites: w, table: t, hotShare: hot } = ix;
  const d = (x: { with?: number; without?: number }, f: (v: number) => string) =>
    x.with !== undefined && x.without !== undefined ? `${f(x.without)} → ${f(x.with)}` : undefined;
  const sets = ix.hotStatements.map(
    ({ statement: u, columns }) =>
      `${u.script}'s UPDATE of ${u.table} sets ${columns.join(", ")}, which the index reads (${u.statement.length > 90 ? `${u.statement.slice(0, 90)}…` : u.statement})`,
  );
  const lost = sets.length
    ? `: ${sets.join("; ")}, so each such update writes a new entry into every index of ${t}`
    : " (no UPDATE in the scripts sets one of its columns by name: an expression or trigger does)";
  const fell = (hot.without ?? 0) - (hot.with ?? 0) > 0.01;
  const parts = [
    t &&
      w &&
      (w.inserted + w.updated + w.deleted === 0
        ? `The workload wrote no row of ${t} in the runs with the index (0 inserted, updated or deleted), so the index received no entry`
        : `Over the runs with the index the workload inserted ${w.inserted.toFixed(0)}, updated ${w.updated.toFixed(0)} and deleted ${w.deleted.toFixed(0)} rows of ${t}`),
    ix.btreeInsertsPerTx.with !== undefined &&
      `B-tree leaf inserts per transaction (counted in the WAL) ${d(ix.btreeInsertsPerTx, (v) => v.toFixed(2)) ?? "n/a"} without → with it, page splits ${d(ix.btreeSplitsPerTx, (v) => v.toFixed(3)) ?? "n/a"}`,
    ix.walBytesPerTx.with !== undefined &&
      `WAL per transaction ${d(ix.walBytesPerTx, (v) => `${(v / 1024).toFixed(2)} kB`) ?? "n/a"}`,
    t &&
      d(hot, percent) &&
      `the HOT share of ${t}'s updates ${fell ? "fell" : "stayed"} ${d(hot, percent)}${fell ? lost : ""}`,
  ].filter(Boolean);
  return parts.length ? `${parts.join("; ")}.` : "";
}

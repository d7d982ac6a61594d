/**
 * Notebook 06 has no seed: its claims are the reader's questions about each judged index, declared
 * before the run's numbers are read and decided by `decide` on intervals over the paired rounds.
 * Three per index, two about write throughput and one about write amplification: "its throughput
 * cost is above 0" (the cost's interval wholly above 0), "its throughput cost is within ±margin"
 * (wholly inside the equivalence band: the reader's declared question), and "it adds write
 * amplification" (WAL bytes, B-tree inserts per transaction or the HOT share its table loses, any
 * of them wholly above 0). Throughput on a shared machine is the noisiest and least transferable
 * figure; the write amplification counters are nearly deterministic and carry over to other
 * servers, so the verdict line states both, each labelled. A measured cost is always stated, with
 * the margin beside it, and no wording calls an index free of cost. Every "why" sentence is built
 * from this run's counters.
 */
import {
  decide,
  describeRule,
  missing,
  withSensitivity,
  claimRows,
  type ClaimCheck,
  type Declaration,
  type Decision,
  type Rule,
  type Verdict,
} from "../../stats/claims";
import { atCoverage, intervalLabel, type Interval } from "../../stats/intervals";
import { lookLevel } from "../../stats/adaptive";
import {
  amplification,
  clean,
  costInterval,
  type IndexSummary,
  type WriteAmplification,
  type YourIndexesSummary,
} from "./summarise";
import { fixed as decimals, percent } from "../../stats/format";

const pct = (x: number | undefined, d = 1) => percent(x, d);
const minus = (s: string) => s.replace(/^-/, "−");
const pctNum = (x: number) => minus((x * 100).toFixed(1));
const fmtCost = (x: number) => `${pctNum(x)} %`;
const f2 = (x: number | undefined) => decimals(x, 2);
const f0 = (x: number | undefined) => decimals(x, 0);

/** "Its throughput cost is above 0": the paired cost lies wholly above 0. */
export const COSTS_RULE: Rule = { kind: "above", margin: 0 };
export const equivalenceRule = (margin: number): Rule => ({ kind: "inside", low: -margin, high: margin });
/** "It adds write amplification": a paired with − without difference lies wholly above 0. */
export const ADDS_RULE: Rule = { kind: "above", margin: 0 };

const REGIME = "this run: the reader's schema, data and workload on this lab server, at the run's clients and duration";
const STATISTIC =
  "write-throughput cost = 1 − TPS with the index ÷ TPS without it, one value per round: the variant's run against " +
  "the two baseline runs just before and after it (every round runs the baseline between every two variants, the " +
  "variants' order a Williams design), exact order-statistic interval of the median over rounds";
const AMPLIFICATION_STATISTIC =
  "write amplification = with − without per transaction, paired per round like the cost (the variant's run against " +
  "the mean of the baseline runs around it): WAL bytes (pg_stat_wal), B-tree leaf inserts and splits (counted in " +
  "the WAL, pg_walinspect), and the HOT share of its table's updates lost (pg_stat_user_tables); exact " +
  "order-statistic interval of each median over rounds";
const QUESTION = "none: the reader's own question";

export function costsDeclaration(name: string): Declaration {
  return {
    id: `${name}: throughput costs`,
    claim: `${name} costs the workload write throughput (cost above 0)`,
    seed: QUESTION,
    regime: REGIME,
    statistic: STATISTIC,
    rule: describeRule(COSTS_RULE, fmtCost),
    // Decided on this run's own schema, data and workload: the regime is the reader's, so no distance.
    kind: "direction",
    mechanism:
      "every insert, and every update that cannot be HOT, adds an entry to each index of the table (WAL, " +
      "buffers, splits): measured here as B-tree leaf inserts and WAL bytes per transaction",
  };
}

export function equivalenceDeclaration(name: string, margin: number): Declaration {
  return {
    id: `${name}: throughput within ±${pctNum(margin)} %`,
    claim: `${name} costs at most ±${pctNum(margin)} % of write throughput (equivalence)`,
    seed: QUESTION,
    regime: REGIME,
    statistic: STATISTIC,
    rule: `${describeRule(equivalenceRule(margin), fmtCost)} (the margin is the parameter equivalenceMargin, declared before the run)`,
    // A figure on the reader's own workload at the run's clients and duration: that is its regime.
    kind: "magnitude",
  };
}

export function amplificationDeclaration(name: string): Declaration {
  return {
    id: `${name}: write amplification`,
    claim: `${name} adds write amplification (WAL bytes or B-tree inserts per transaction, or HOT updates lost)`,
    seed: QUESTION,
    regime: REGIME,
    statistic: AMPLIFICATION_STATISTIC,
    rule:
      "held if any of the three intervals is wholly above 0; did not hold if every one measured is wholly at or " +
      "below 0; otherwise inconclusive",
    kind: "direction",
    mechanism:
      "an index receives an entry for every inserted row of its table and every update that cannot stay HOT " +
      "because it sets a column the index reads; the entry is WAL and a B-tree leaf insert on any server",
  };
}

/** How a report names a 06 claim's kind: about the reader's own run, never a seed's regime. */
export function kindText06(d: Pick<Declaration, "kind" | "mechanism">): string {
  return d.kind === "direction"
    ? `direction on this run's own workload: ${d.mechanism ?? ""}`
    : "the reader's declared margin, decided on this run's own workload";
}

/** The claims table's rows for 06: the shared columns, with the kind in 06's words and no seed column. */
export function claimRows06(claims: readonly ClaimCheck[]): Record<string, string>[] {
  return claimRows(claims).map((row, i) => {
    const { seed: _seed, ...rest } = row;
    return { ...rest, kind: kindText06(claims[i]) };
  });
}

/** The throughput verdict. "within margin" never follows an interval wholly above 0. */
export const JUDGEMENTS = ["costs", "within margin", "speeds up", "inconclusive"] as const;
export type Judgement = (typeof JUDGEMENTS)[number];

/** The write-amplification verdict: some counter measurably above 0, none, or too few rounds to say. */
export const AMPLIFICATIONS = ["adds", "none above 0", "inconclusive", "not measured"] as const;
export type AmplificationJudgement = (typeof AMPLIFICATIONS)[number];

export interface AmplificationVerdict {
  readonly judgement: AmplificationJudgement;
  /** "adds 4.14 kB WAL/tx [3.90–4.31 kB], 1.97 B-tree inserts/tx [1.95–1.99]; …" */
  readonly text: string;
  readonly decision: Decision & { readonly verdict: Verdict };
}

export interface IndexJudgement {
  /** The throughput verdict. */
  readonly judgement: Judgement;
  /** "throughput costs 8.1 % [2.5–10.6 %], inside ±15.0 %" and the like. */
  readonly throughput: string;
  readonly amplification: AmplificationVerdict;
  /** Both, each labelled: "throughput …; write amplification …". */
  readonly text: string;
  readonly costs: Decision;
  readonly equivalence: Decision;
}

const span = (i: Interval) => `${pctNum(i.low)}–${pctNum(i.high)} %`;
/** `decide`'s reason without the interval it starts with (the verdict line shows that already). */
const reason = (decidedBy: string) =>
  decidedBy.replace(/^.*?(straddles|reaches across)/, "$1").replace(/^.*?, but it covers/, "covers");
const shown = (i: Interval) => `${pctNum(i.estimate)} % [${span(i)}]`;

/**
 * The throughput verdict from the two declared rules. An interval wholly above 0 always states the
 * cost, with where it lies against the margin (inside it, beyond it, or reaching past it): the
 * margin says whether the cost matters to the reader, never whether it exists. Inside the margin
 * and not above 0 → "within ±m"; wholly below −m → "speeds the workload up" (a query of the
 * workload reads through it); otherwise inconclusive, saying what would decide it.
 */
export function judgeCost(
  interval: Interval | undefined,
  margin: number,
  /** An adaptive run's per-look coverage (stats/adaptive `lookLevel`). */
  level?: number,
): Omit<IndexJudgement, "amplification" | "text"> {
  const cost = interval && level ? atCoverage(interval, level) : interval;
  const costs = decide(COSTS_RULE, cost, { fmt: fmtCost, minCoverage: level });
  const equivalence = decide(equivalenceRule(margin), cost, { fmt: fmtCost, minCoverage: level });
  const m = `±${pctNum(margin)} %`;
  const out = (judgement: Judgement, throughput: string) => ({ judgement, throughput, costs, equivalence });
  if (!cost) return out("inconclusive", "throughput inconclusive: no paired rounds");
  if (costs.verdict === "held") {
    const where =
      equivalence.verdict === "held" ? `inside ${m}` : cost.low > margin ? `beyond ${m}` : `reaching past ${m}`;
    return out("costs", `throughput costs ${shown(cost)}, ${where}`);
  }
  if (equivalence.verdict === "held") return out("within margin", `throughput within ${m}: ${shown(cost)}`);
  if (costs.verdict === "did not hold" && equivalence.verdict === "did not hold")
    return out(
      "speeds up",
      `throughput: speeds the workload up ${pctNum(-cost.estimate)} % [${pctNum(-cost.high)}–${pctNum(-cost.low)} %]`,
    );
  const decidedBy = costs.verdict === "inconclusive" ? costs.decidedBy : equivalence.decidedBy;
  return out("inconclusive", `throughput inconclusive: ${shown(cost)} ${reason(decidedBy)}`);
}

/** A rounded figure without a negative zero, with the minus sign. */
const fixed = (x: number, digits: number) => minus(x.toFixed(digits).replace(/^-(0\.?0*)$/, "$1"));
const bytes = (x: number) => (Math.abs(x) >= 1024 ? `${fixed(x / 1024, 2)} kB` : `${fixed(x, 0)} B`);
/** An interval's bytes in one unit, its estimate's too: kB when any of them reaches 1 kB. */
const inKB = (i: Interval) => Math.max(Math.abs(i.low), Math.abs(i.high), Math.abs(i.estimate)) >= 1024;
const bytesIn = (x: number, kb: boolean) => (kb ? fixed(x / 1024, 2) : fixed(x, 0));
const bytesShown = (i: Interval) => `${bytesIn(i.estimate, inKB(i))} ${inKB(i) ? "kB" : "B"}`;
const bytesSpan = (i: Interval) => `[${bytesIn(i.low, inKB(i))}–${bytesIn(i.high, inKB(i))} ${inKB(i) ? "kB" : "B"}]`;
const count = (x: number) => fixed(x, 2);
const points = (x: number) => fixed(x * 100, 0);

interface Part {
  readonly interval: Interval;
  readonly decision: Decision;
  /** "adds 4.14 kB WAL/tx [3.90–4.31 kB]" */
  readonly adds: string;
  /** "WAL +0.01 kB/tx [−0.02–0.03 kB]" */
  readonly neutral: string;
}

function parts(a: WriteAmplification, table: string | undefined, level?: number): Part[] {
  const out: Part[] = [];
  // An adaptive run's looks: each interval at the per-look coverage (stats/adaptive lookPlan).
  const lv = (i: Interval) => (level ? atCoverage(i, level) : i);
  const at = (rule: Rule, i: Interval, fmt: (x: number) => string) => decide(rule, i, { fmt, minCoverage: level });
  const sign = (x: number) => (x > 0 ? "+" : "");
  if (a.walBytesPerTx) {
    const i = lv(a.walBytesPerTx);
    out.push({
      interval: i,
      decision: at(ADDS_RULE, i, bytes),
      adds: `adds ${bytesShown(i)} WAL/tx ${bytesSpan(i)}`,
      neutral: `WAL ${sign(i.estimate)}${bytesShown(i)}/tx ${bytesSpan(i)}`,
    });
  }
  if (a.btreeInsertsPerTx) {
    const i = lv(a.btreeInsertsPerTx);
    out.push({
      interval: i,
      decision: at(ADDS_RULE, i, count),
      adds: `adds ${count(i.estimate)} B-tree inserts/tx [${count(i.low)}–${count(i.high)}]`,
      neutral: `B-tree inserts ${sign(i.estimate)}${count(i.estimate)}/tx [${count(i.low)}–${count(i.high)}]`,
    });
  }
  if (a.hotShareLost) {
    const i = lv(a.hotShareLost);
    const of = table ? `${table}'s HOT share` : "HOT share";
    out.push({
      interval: i,
      decision: at(ADDS_RULE, i, (x) => `${points(x)} points`),
      adds: `takes ${points(i.estimate)} points of ${of} [${points(i.low)}–${points(i.high)}]`,
      neutral: `${of} lost ${points(i.estimate)} points [${points(i.low)}–${points(i.high)}]`,
    });
  }
  return out;
}

/**
 * The write-amplification verdict: "adds" as soon as one of WAL bytes, B-tree inserts per
 * transaction or the HOT share lost has its interval wholly above 0 (each such one is named with
 * its interval); "none above 0" when every measured one is wholly at or below 0 or straddles it
 * with enough rounds; "inconclusive" when no interval has the coverage a verdict needs.
 */
export function judgeAmplification(a: WriteAmplification, table?: string, level?: number): AmplificationVerdict {
  const ps = parts(a, table, level);
  if (!ps.length)
    return {
      judgement: "not measured",
      text: "write amplification not measured (no paired rounds)",
      decision: { verdict: "inconclusive", decidedBy: "no paired rounds with WAL counters" },
    };
  const held = ps.filter((p) => p.decision.verdict === "held");
  if (held.length) {
    const rest = ps.filter((p) => p.decision.verdict !== "held");
    return {
      judgement: "adds",
      text:
        `write amplification: ${held.map((p) => p.adds).join(", ")}` +
        (rest.length ? ` (not above 0: ${rest.map((p) => p.neutral).join(", ")})` : ""),
      decision: { verdict: "held", decidedBy: held.map((p) => p.decision.decidedBy).join("; ") },
    };
  }
  const all = ps.map((p) => p.neutral).join(", ");
  // Too few rounds for any interval to decide: say so rather than "none".
  const covered = ps.filter((p) => !/covers the median with only/.test(p.decision.decidedBy));
  if (!covered.length)
    return {
      judgement: "inconclusive",
      text: `write amplification inconclusive: ${all}; ${ps[0].decision.decidedBy}`,
      decision: { verdict: "inconclusive", decidedBy: ps[0].decision.decidedBy },
    };
  const verdict: Verdict = ps.every((p) => p.decision.verdict === "did not hold") ? "did not hold" : "inconclusive";
  return {
    judgement: "none above 0",
    text: `write amplification: none measurably above 0 (${all})`,
    decision: { verdict, decidedBy: ps.map((p) => p.decision.decidedBy).join("; ") },
  };
}

/** Both verdicts of one index, each labelled. */
export function judge(
  cost: Interval | undefined,
  margin: number,
  a: WriteAmplification,
  table?: string,
  level?: number,
): IndexJudgement {
  const t = judgeCost(cost, margin, level);
  const amplification = judgeAmplification(a, table, level);
  return { ...t, amplification, text: `${t.throughput}; ${amplification.text}` };
}

/** Why the index costs what it does, from this run's counters only. */
export function because(ix: IndexSummary): string {
  const parts: string[] = [];
  const w = ix.tableWrites;
  if (ix.table && w && w.inserted + w.updated + w.deleted === 0) {
    parts.push(
      `The workload wrote no row of ${ix.table} in the runs with the index (0 inserted, updated or deleted), so the ` +
        `index received no entry`,
    );
  } else if (ix.table && w) {
    parts.push(
      `Over the runs with the index the workload inserted ${f0(w.inserted)}, updated ${f0(w.updated)} and deleted ` +
        `${f0(w.deleted)} rows of ${ix.table}`,
    );
  }
  const d = (x: { with?: number; without?: number }, digits: (v: number | undefined) => string) =>
    x.with !== undefined && x.without !== undefined ? `${digits(x.without)} → ${digits(x.with)}` : "n/a";
  if (ix.btreeInsertsPerTx.with !== undefined) {
    parts.push(
      `B-tree leaf inserts per transaction (counted in the WAL) ${d(ix.btreeInsertsPerTx, f2)} without → with it, ` +
        `page splits ${d(ix.btreeSplitsPerTx, (v) => (v === undefined ? "n/a" : v.toFixed(3)))}`,
    );
  }
  if (ix.walBytesPerTx.with !== undefined)
    parts.push(
      `WAL per transaction ${d(ix.walBytesPerTx, (v) => (v === undefined ? "n/a" : `${(v / 1024).toFixed(2)} kB`))}`,
    );
  const hw = ix.hotShare.with;
  const ho = ix.hotShare.without;
  if (ix.table && hw !== undefined && ho !== undefined) {
    if (ho - hw > 0.01) {
      const statements = ix.hotStatements.map(
        (h) =>
          `${h.statement.script}'s UPDATE of ${h.statement.table} sets ${h.columns.join(", ")}, which the index reads ` +
          `(${h.statement.statement.length > 90 ? `${h.statement.statement.slice(0, 90)}…` : h.statement.statement})`,
      );
      parts.push(
        `the HOT share of ${ix.table}'s updates fell ${pct(ho, 0)} → ${pct(hw, 0)}` +
          (statements.length
            ? `: ${statements.join("; ")}, so each such update writes a new entry into every index of ${ix.table}`
            : " (no UPDATE in the scripts sets one of its columns by name: an expression or trigger does)"),
      );
    } else {
      parts.push(`the HOT share of ${ix.table}'s updates stayed ${pct(ho, 0)} → ${pct(hw, 0)}`);
    }
  }
  return parts.length ? `${parts.join("; ")}.` : "";
}

function ours(ix: IndexSummary): string {
  if (!ix.cost) return "no paired rounds";
  return `cost ${pctNum(ix.cost.estimate)} % [${span(ix.cost)}, ${intervalLabel(ix.cost)}]`;
}

function flaggedCount(s: YourIndexesSummary, ix: IndexSummary): number {
  return s.runs.filter((r) => (r.variant === ix.withVariant || r.variant === ix.withoutVariant) && !clean(r)).length;
}

export function judgeIndex(s: YourIndexesSummary, ix: IndexSummary): IndexJudgement {
  return judge(ix.cost, s.equivalenceMargin, ix.amplification, ix.table, lookLevel(s));
}

/** The three claims of every judged index, each with whether it changes without the flagged runs. */
export function checkClaims(s: YourIndexesSummary): ClaimCheck[] {
  return s.indexes.flatMap((ix) => {
    const declarations = [
      costsDeclaration(ix.name),
      equivalenceDeclaration(ix.name, s.equivalenceMargin),
      amplificationDeclaration(ix.name),
    ];
    if (!ix.cost) return declarations.map((d) => missing(d, "needs a round in which both variants finished"));
    const j = judgeIndex(s, ix);
    const why = because(ix);
    const wa = j.amplification;
    const claims: ClaimCheck[] = [
      {
        ...declarations[0],
        ours: ours(ix),
        interval: ix.cost,
        verdict: j.costs.verdict,
        decidedBy: j.costs.decidedBy,
        why,
      },
      {
        ...declarations[1],
        ours: ours(ix),
        interval: ix.cost,
        verdict: j.equivalence.verdict,
        decidedBy: j.equivalence.decidedBy,
        why,
      },
      {
        ...declarations[2],
        ours: wa.text,
        ...(ix.amplification.walBytesPerTx ? { interval: ix.amplification.walBytesPerTx } : {}),
        verdict: wa.decision.verdict,
        decidedBy: wa.decision.decidedBy,
        why,
      },
    ];
    const again = costInterval(s.runs, ix, clean);
    const without: ClaimCheck[] = again
      ? [
          { ...claims[0], ...judgeCost(again, s.equivalenceMargin, lookLevel(s)).costs },
          { ...claims[1], ...judgeCost(again, s.equivalenceMargin, lookLevel(s)).equivalence },
          {
            ...claims[2],
            ...judgeAmplification(amplification(s.runs.filter(clean), ix, ix.table), ix.table, lookLevel(s)).decision,
          },
        ]
      : [];
    return withSensitivity(claims, without, flaggedCount(s, ix));
  });
}

/**
 * Notebook 06 has no seed: its claims are the reader's questions about each judged index, declared
 * before the run's numbers are read and decided by `decide` on the interval of the paired
 * per-round cost. Two per index: "it costs writes" (the cost's interval wholly above 0) and "no
 * cost beyond ±margin" (wholly inside the equivalence band). The per-index judgement combines them
 * into one verdict. Every "why" sentence is built from this run's counters.
 */
import {
  decide,
  describeRule,
  missing,
  withSensitivity,
  type ClaimCheck,
  type Declaration,
  type Decision,
  type Rule,
} from "../../stats/claims";
import { intervalLabel, type Interval } from "../../stats/intervals";
import { clean, costInterval, type IndexSummary, type YourIndexesSummary } from "./summarise";

const pct = (x: number | undefined, d = 1) => (x === undefined ? "n/a" : `${(x * 100).toFixed(d)} %`);
const pctNum = (x: number) => (x * 100).toFixed(1);
const fmtCost = (x: number) => `${pctNum(x)} %`;
const f2 = (x: number | undefined) => (x === undefined ? "n/a" : x.toFixed(2));
const f0 = (x: number | undefined) => (x === undefined ? "n/a" : x.toFixed(0));

/** "It costs writes": the paired cost lies wholly above 0. */
export const COSTS_RULE: Rule = { kind: "above", margin: 0 };
export const equivalenceRule = (margin: number): Rule => ({ kind: "inside", low: -margin, high: margin });

const REGIME = "this run: the reader's schema, data and workload on this lab server, at the run's clients and duration";
const STATISTIC =
  "write-throughput cost = 1 − TPS with the index ÷ TPS without it, one value per round: the variant's run against " +
  "the two baseline runs just before and after it (every round runs the baseline between every two variants, the " +
  "variants' order rotated), exact order-statistic interval of the median over rounds";

export function costsDeclaration(name: string): Declaration {
  return {
    id: `${name}: costs`,
    claim: `${name} costs the workload write throughput`,
    seed: "none (the reader's question)",
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
    id: `${name}: ±${pctNum(margin)} %`,
    claim: `${name} costs no more than ±${pctNum(margin)} % of write throughput (equivalence)`,
    seed: "none (the reader's question)",
    regime: REGIME,
    statistic: STATISTIC,
    rule: `${describeRule(equivalenceRule(margin), fmtCost)} (the margin is the parameter equivalenceMargin)`,
    // A figure on the reader's own workload at the run's clients and duration: that is its regime.
    kind: "magnitude",
  };
}

export const JUDGEMENTS = ["costs", "no cost beyond margin", "speeds up", "inconclusive"] as const;
export type Judgement = (typeof JUDGEMENTS)[number];

export interface IndexJudgement {
  readonly judgement: Judgement;
  /** "costs 6.1 % [4.8–7.0 %]", "no cost beyond ±2 %", … */
  readonly text: string;
  readonly costs: Decision;
  readonly equivalence: Decision;
}

const span = (i: Interval) => `${pctNum(i.low)}–${pctNum(i.high)} %`;

/**
 * One verdict per index from the two declared rules: equivalence held → "no cost beyond ±m" (even
 * when the interval also excludes 0: a cost too small to matter by the reader's margin); else
 * costs held → "costs x %"; else the whole interval below −m → "speeds up" (the workload reads
 * through it); else inconclusive, saying what would decide it.
 */
export function judgeCost(cost: Interval | undefined, margin: number): IndexJudgement {
  const costs = decide(COSTS_RULE, cost, { fmt: fmtCost });
  const equivalence = decide(equivalenceRule(margin), cost, { fmt: fmtCost });
  const m = `±${pctNum(margin)} %`;
  if (!cost) return { judgement: "inconclusive", text: "inconclusive: no paired rounds", costs, equivalence };
  if (equivalence.verdict === "held") {
    const above = costs.verdict === "held" ? ` (measurably above 0, ${span(cost)}, yet inside the margin)` : "";
    return { judgement: "no cost beyond margin", text: `no cost beyond ${m}${above}`, costs, equivalence };
  }
  if (costs.verdict === "held")
    return { judgement: "costs", text: `costs ${pctNum(cost.estimate)} % [${span(cost)}]`, costs, equivalence };
  if (costs.verdict === "did not hold" && equivalence.verdict === "did not hold")
    return {
      judgement: "speeds up",
      text: `speeds the workload up ${pctNum(-cost.estimate)} % [${pctNum(-cost.high)}–${pctNum(-cost.low)} %]`,
      costs,
      equivalence,
    };
  const decidedBy = costs.verdict === "inconclusive" ? costs.decidedBy : equivalence.decidedBy;
  return {
    judgement: "inconclusive",
    text: `inconclusive: ${pctNum(cost.estimate)} % [${span(cost)}]; ${decidedBy}`,
    costs,
    equivalence,
  };
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
  return judgeCost(ix.cost, s.equivalenceMargin);
}

/** The two claims of every judged index, each with whether it changes without the flagged runs. */
export function checkClaims(s: YourIndexesSummary): ClaimCheck[] {
  return s.indexes.flatMap((ix) => {
    const declarations = [costsDeclaration(ix.name), equivalenceDeclaration(ix.name, s.equivalenceMargin)];
    if (!ix.cost) return declarations.map((d) => missing(d, "needs a round in which both variants finished"));
    const j = judgeIndex(s, ix);
    const why = because(ix);
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
    ];
    const again = costInterval(s.runs, ix, clean);
    const without: ClaimCheck[] = again
      ? [
          { ...claims[0], ...decide(COSTS_RULE, again, { fmt: fmtCost }) },
          { ...claims[1], ...decide(equivalenceRule(s.equivalenceMargin), again, { fmt: fmtCost }) },
        ]
      : [];
    return withSensitivity(claims, without, flaggedCount(s, ix));
  });
}

/** 06's verdicts in words (throughput, write amplification) and why, from this run's counters only. */
import { MIN_COVERAGE, repeatsForCoverage, type ClaimCheck } from "../../stats/claims";
import type { Interval } from "../../stats/intervals";
import { minusFixed as fixed, percent } from "../../stats/format";
import type { IndexSummary } from "./summarise";
import { pc } from "./decision";

export const fmtCost = (x: number) => `${pc(x)} %`;
const range = (i: Interval, f: (x: number) => string) => `${f(i.low)}–${f(i.high)}`;
/** Every index it adds or drops is a B-tree (pg_get_indexdef's USING; CREATE INDEX's default). */
export const btree = (ix: IndexSummary) =>
  [...(ix.definition ?? "").matchAll(/\bUSING\s+(\w+)/gi)].every((m) => /^btree$/i.test(m[1]));

/** The throughput verdict ("within margin" never follows an interval wholly above 0) and the amplification one. */
export type Judgement = "costs" | "within margin" | "speeds up" | "inconclusive";
export type Amplification = "adds" | "none above 0" | "inconclusive" | "not measured";

/** "3 paired round(s) cover the median only 75 %: needs ≥ 5", for an interval too short to decide. */
const tooFew = (i: Interval, rounds = "paired round(s)") =>
  i.coverage < MIN_COVERAGE
    ? `${i.n} ${rounds} cover the median only ${Math.round(i.coverage * 100)} %: needs ≥ ${repeatsForCoverage(MIN_COVERAGE)}`
    : undefined;

/** WAL bytes per transaction and the HOT share lost: shown beside the B-tree entries, which alone decide. */
export function counters(ix: IndexSummary | undefined): string[] {
  const { walBytesPerTx: w, hotShareLost: h } = ix?.amplification ?? {};
  const kb = w && Math.max(...[w.low, w.high, w.estimate].map(Math.abs)) >= 1024 ? "kB" : "B";
  const f = (x: number) => (kb === "kB" ? fixed(x / 1024, 2) : fixed(x, 0));
  const pts = (x: number) => fixed(x * 100, 0);
  const hot = h && `${pts(h.estimate)} points of ${ix?.table ?? "its table"}'s HOT share lost [${range(h, pts)}]`;
  return [w && `${f(w.estimate)} ${kb} WAL/tx [${range(w, f)} ${kb}]`, hot].filter((x): x is string => !!x);
}

/** A cost above 0 is always stated with where it lies against the margin: the margin says whether it matters. */
export function throughput(
  c: Interval | undefined,
  margin: number,
  costs: ClaimCheck,
  eq: ClaimCheck,
): [Judgement, string] {
  const m = `±${pc(margin)} %`;
  if (!c) return ["inconclusive", "throughput inconclusive: no paired rounds"];
  const at = `${pc(c.estimate)} % [${range(c, pc)} %]`;
  const where = eq.verdict === "held" ? "inside" : c.low > margin ? "beyond" : "reaching past";
  if (costs.verdict === "held") return ["costs", `throughput costs ${at}, ${where} ${m}`];
  if (eq.verdict === "held") return ["within margin", `throughput within ${m}: ${at}`];
  const faster = `${fmtCost(-c.estimate)} [${pc(-c.high)}–${fmtCost(-c.low)}]`;
  if (costs.verdict === "did not hold" && eq.verdict === "did not hold")
    return ["speeds up", `throughput: speeds the workload up ${faster}`];
  const undecided = costs.verdict === "inconclusive" ? costs : eq;
  const reason = undecided.decidedBy.replace(/^.*?(?=straddles|reaches across)/, "");
  return ["inconclusive", `throughput inconclusive: ${at} ${tooFew(c) ?? reason}`];
}

/** "adds" when the entries lie wholly above 0; too few rounds say so, whatever side; else "none measurably above 0". */
export function amplificationLine(ix: IndexSummary, adds: ClaimCheck): [Amplification, string] {
  const b = ix.amplification.ownEntriesPerTx;
  const of = counters(ix);
  const shown = of.length ? ` (${of.join(", ")})` : "";
  if (!btree(ix))
    return ["not measured", `write amplification not decided: not a B-tree, whose entries are counted${shown}`];
  if (!b)
    return [
      "not measured",
      "write amplification not measured (no round with WAL counted per index: pg_get_wal_block_info, PostgreSQL ≥ 16)",
    ];
  const entries = `${fixed(b.estimate, 2)} own B-tree entries/tx [${range(b, (x) => fixed(x, 2))}]`;
  if (adds.verdict === "held") return ["adds", `write amplification: adds ${entries}${shown}`];
  const few = tooFew(b, "round(s)");
  if (few) return ["inconclusive", `write amplification inconclusive: ${[entries, ...of].join(", ")}; ${few}`];
  return ["none above 0", `write amplification: none measurably above 0 (${[entries, ...of].join(", ")})`];
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
  const own = ix.amplification.ownEntriesPerTx;
  const parts = [
    t &&
      w &&
      (w.inserted + w.updated + w.deleted === 0
        ? `The workload wrote no row of ${t} in the runs with the index (0 inserted, updated or deleted), so the index received no entry`
        : `Over the runs with the index the workload inserted ${w.inserted.toFixed(0)}, updated ${w.updated.toFixed(0)} and deleted ${w.deleted.toFixed(0)} rows of ${t}`),
    own &&
      `its own B-tree entries per transaction (its records in the WAL) ${fixed(own.estimate, 2)} [${range(own, (x) => fixed(x, 2))}]`,
    ix.btreeInsertsPerTx.with !== undefined &&
      `all B-tree leaf inserts per transaction ${d(ix.btreeInsertsPerTx, (v) => v.toFixed(2)) ?? "n/a"} without → with it, page splits ${d(ix.btreeSplitsPerTx, (v) => v.toFixed(3)) ?? "n/a"}`,
    ix.walBytesPerTx.with !== undefined &&
      `WAL per transaction ${d(ix.walBytesPerTx, (v) => `${(v / 1024).toFixed(2)} kB`) ?? "n/a"}`,
    t &&
      d(hot, percent) &&
      `the HOT share of ${t}'s updates ${fell ? "fell" : "stayed"} ${d(hot, percent)}${fell ? lost : ""}`,
  ].filter(Boolean);
  return parts.length ? `${parts.join("; ")}.` : "";
}

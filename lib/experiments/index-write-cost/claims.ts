/** Seed 000's claims (EXPERIMENTS.md §1); a magnitude states this run's client path (docs/claims-and-regimes.md). */
import { absentUnless, declare, exactly, factor, readQuotes, type ClaimSpec } from "../../stats/claim-engine";
import { f0, f1, f2, percent } from "../../stats/format";
import { ENGINES, type Engine } from "../../targets/engines";
import type { IndexWriteCostParams } from "./params";
import { OPERATION_LABELS as LABEL, OPERATIONS, type Operation } from "./workload/operations";
import { compared, conditionAt, G, LARGE, matrixSizes, median, paired, RR, sizesOf } from "./summarise";
import type { ConditionSummary } from "./summarise";
import { GROWTH_OPERATIONS as TWO } from "./workload/run-trials";

type S = readonly ConditionSummary[];
type Factor = "anyRows" | "rows" | "rows1M" | "largest" | "compared" | "smallest";
type C = ClaimSpec<IndexWriteCostParams, S, Factor>;
const Q = readQuotes(__dirname);
const top = (s: S) => matrixSizes(s).at(-1);
const low = (s: S) => matrixSizes(s)[0];
const position = (n: number | undefined, sizes: readonly number[], smallest: number | undefined) => ({
  ...{ anyRows: n, rows: n, rows1M: n, smallest, compared: compared(sizes) },
  largest: sizes.length ? Math.max(...sizes) : undefined,
});
const each = (s: S, e: Engine, k: number, f: (x: ConditionSummary | undefined) => number | undefined) =>
  OPERATIONS.map((op) => `${LABEL[op]} ${f2(f(conditionAt(s, e, [top(s), op, k])))}`).join(", ");
/** This run's ratios and client path: client ÷ server time per row at 0 extra indexes. */
const clientPath = (s: S, e: Engine) =>
  `5 ÷ 0 idx at ${top(s)?.toLocaleString("en-US")} rows: ${each(s, e, 5, (x) => x?.ratio)}; client ÷ server time per ` +
  `row at 0 idx: ${e === "postgresql" ? each(s, e, 0, (x) => x?.clientPerServer) : "not measured (no server time)"}`;
/** What the server did in these conditions (every size × operation × indexes), from this run's counters. */
function counters(s: S, e: Engine, sizes: readonly (number | undefined)[], ops: readonly Operation[], ks: number[]) {
  const xs = sizes.flatMap((n) => ops.flatMap((op) => ks.flatMap((k) => conditionAt(s, e, [n, op, k]) ?? [])));
  if (!xs.some((x) => x.btreeInsertsPerRow !== undefined)) return "";
  const one = (x: ConditionSummary) =>
    `${LABEL[x.operation]}, ${x.extraIndexes} idx, ${x.rows.toLocaleString("en-US")} rows: ${f2(x.btreeInsertsPerRow)} index entries ` +
    (e === "postgresql"
      ? `per row (WAL), HOT ${percent(x.hotShare)}, WAL ${f0(x.walBytesPerRow)} B per row, ` +
        `${f1(x.btreeSplitsPer1000)} splits per 1k rows, server-time ratio ${f2(x.serverRatioInterval?.estimate)}×`
      : "per row (WiredTiger insert calls)") +
    `, indexes ${f1((x.indexBytes ?? NaN) / 2 ** 20)} MiB`;
  return `${xs.map(one).join("; ")}.`;
}

/** Which client produced the seed's figures and ours; the seed gives no server time. */
export const CLIENT_PATH =
  "The seed timed Go driver calls, one round trip per batch of 1,000 (pgx.SendBatch " +
  "of one statement per row; ordered InsertMany/BulkWrite) and gives no server time; ours times node-postgres pipelined " +
  "prepared statements with one Sync per batch, and the Node driver's ordered insertMany/bulkWrite";
const stated = (regime: string) => `${regime}. Client path (stated, not a gate): ${CLIENT_PATH}`;
export const NO_RUN: Record<Engine, string> = { postgresql: "PostgreSQL did not run", mongodb: "MongoDB did not run" };
const unless = absentUnless({ planned: (p: IndexWriteCostParams) => p.engines, ran: (s: S) => s.map((x) => x.engine) });
const QUOTIENT = "paired within a repeat, at the largest size run";
const FROM_100K = "`--set rowCounts=[100000]` or more tests it";
const GROWTH = "`--set growthRows=[1000000]` (its four conditions at 1M rows) or `--profile full` tests it";

type Spec = Omit<C, "id" | "sentence" | "absent" | "ours"> & Partial<C>;
/** Claim `id (engine)` quoting `<quote>Pg`/`<quote>Mongo` (the seed's engines: a new one has no sentence to test). */
const on = (engine: Engine, id: string, quote: string, c: Spec): C => ({
  id: `${id} (${engine})`,
  sentence: Q.quote(`${quote}${engine === "postgresql" ? "Pg" : "Mongo"}`),
  absent: unless([engine], NO_RUN[engine]),
  ours: (s) => clientPath(s, engine),
  ...c,
});
const MECHANISM: Record<Engine, string> = {
  postgresql:
    "an UPDATE of an indexed column is never HOT and inserts an entry into every index, while the non-indexed counter UPDATE is HOT when its page has room and inserts none, at any table size",
  mongodb:
    "WiredTiger rewrites only the index entries whose keys change: the counter update changes none, the 5-field update removes and inserts one entry in each of 5 indexes per row, at any collection size",
};
/** (a): the seed's own contrast of one operation with the non-indexed counter update. */
const contrast = (engine: Engine, op: Operation) =>
  on(engine, "a", "operation", {
    claim: `One "cost of 5 indexes" figure does not exist: the ${LABEL[op]} costs far more of it than the counter update`,
    kind: "direction",
    rule: { kind: "above", margin: 1.2 },
    regime: ["anyRows"],
    regimeText: "10k, 100k and 1M rows (the seed's sizes), batches of 1,000, one client",
    mechanism: MECHANISM[engine],
    howToTest: "any run with both UPDATEs and 0 and 5 extra indexes tests it",
    statistic: `R(${LABEL[op]}) ÷ R(UPDATE counter) per repeat, R = t(5 extra idx) ÷ t(0 extra idx) ${QUOTIENT}`,
    needs: `${LABEL[op]} and UPDATE counter with 0 and 5 extra indexes in the same repeats`,
    of: (s) => median(RR(s, engine, [top(s), op, 5], [top(s), "update_nonindexed", 5]), "R ÷ R(counter)"),
    why: (s) => counters(s, engine, [top(s)], ["update_nonindexed", op], [5]),
  });
/** (b): INSERT's and the 5-field update's ratios from the compared size to 1M; PostgreSQL's G ÷ MongoDB's. */
const growth = (engine: Engine, c: Pick<C, "claim" | "rule" | "reading" | "howToTest"> & Partial<C>) =>
  on(engine, "b", "growth", {
    ...c,
    kind: "magnitude",
    regime: ["largest", "compared"],
    regimeText: stated("growth between 100k and 1M rows (the seed's jump), shared_buffers and WiredTiger cache 1 GB"),
    statistic: `G(op) = R(op at 1M) ÷ R(op at the compared size), R = t(5 idx) ÷ t(0 idx) paired within a repeat; G paired by repeat number (sizes run in blocks), for INSERT and the 5-field UPDATE${engine === "postgresql" ? "; PostgreSQL's G ÷ MongoDB's G" : ""}`,
    of: (s) => {
      const g = (op: Operation) =>
        engine === "mongodb" ? G(s, engine, op) : paired(G(s, engine, op), G(s, "mongodb", op));
      const parts = TWO.map((op) => ({ label: `G(${LABEL[op]})`, interval: median(g(op), `G(${op}) by repeat`) }));
      return parts.some((x) => x.interval) ? parts : undefined;
    },
    needs: `INSERT and the 5-field UPDATE with 0 and 5 extra indexes at 1M rows and a smaller size`,
    ours: (s) =>
      `${TWO.map((op) => `G(${LABEL[op]}) ${ENGINES.map((e) => `${e} ${f2(median(G(s, e, op), "")?.estimate)}×`).join(", ")}`).join("; ")}; ${clientPath(s, engine)}`,
    why: (s) => counters(s, engine, [compared(sizesOf(s)), LARGE], TWO, [5]),
  });
/** (c): field1's update with 5 extra indexes against 1, the seed's band for the engine. */
const unindexed = (engine: Engine, c: Pick<C, "claim" | "kind" | "rule" | "reading">) =>
  on(engine, "c", "unindexed", {
    ...c,
    regime: ["rows"],
    regimeText: stated("100k and 1M rows (the seed's figures for this claim)"),
    howToTest: FROM_100K,
    statistic: `t(UPDATE field1, 5 extra idx) ÷ t(UPDATE field1, 1 extra idx), ${QUOTIENT}`,
    needs: "UPDATE field1 with 0, 1 and 5 extra indexes",
    of: (s) => median(RR(s, engine, [top(s), "update_one_field", 5], [top(s), "update_one_field", 1]), "5 ÷ 1"),
    why: (s) => counters(s, engine, [top(s)], ["update_one_field"], [1, 5]),
  });

export const CLAIMS = declare<IndexWriteCostParams, S, Factor>({
  notebook: "01-index-write-cost",
  quotes: Q,
  factors: {
    anyRows: factor("rows", LARGE, [0.01, Infinity], "rows"),
    rows: factor("rows", LARGE, [0.1, Infinity], "rows"),
    rows1M: exactly("rows", LARGE, "rows"),
    largest: exactly("largest size", LARGE, "rows"),
    compared: factor("compared size", 100_000, [0.1, 1], "rows"),
    smallest: exactly("smallest size", 10_000, "rows"),
  },
  before: (p) =>
    position(Math.max(...p.rowCounts), [...new Set([...p.rowCounts, ...p.growthRows])], Math.min(...p.rowCounts)),
  after: (s) => position(top(s), sizesOf(s), low(s)),
  claims: [
    contrast("postgresql", "update_one_field"),
    growth("postgresql", {
      claim: "PostgreSQL: the ratios grow from 100k to 1M rows less than MongoDB's INSERT and 5-field update do",
      rule: { kind: "below", margin: 1 },
      reading: "\"no change as large as MongoDB's\" read as PostgreSQL's G below this run's MongoDB's, both operations",
      howToTest: `${GROWTH}, with MongoDB`,
      absent: unless(ENGINES, `its yardstick is this run's MongoDB growth, and ${NO_RUN.mongodb}`),
    }),
    on("postgresql", "b-field1", "growthField1", {
      claim: "PostgreSQL: the field1 update's ratio grows with the table, from 10k to 1M rows",
      kind: "magnitude",
      rule: { kind: "above", margin: 1.1 },
      reading: '"rose" read as a growth above 1.1× (the growth threshold of b (mongodb))',
      regime: ["rows1M", "smallest"],
      regimeText: stated("the seed's 10k and 1M rows, the whole matrix at both"),
      howToTest: "`--set rowCounts=[10000,1000000]` or `--profile full` tests it",
      statistic:
        "G(field1) = R(UPDATE field1 at 1M) ÷ R(at 10k), R = t(5 idx) ÷ t(0 idx) paired within a repeat; G paired by repeat number",
      needs: "UPDATE field1 with 0 and 5 extra indexes at two sizes",
      of: (s) =>
        low(s) === top(s)
          ? undefined
          : median(RR(s, "postgresql", [top(s), "update_one_field", 5], [low(s), "update_one_field", 5]), "G"),
      why: (s) => counters(s, "postgresql", [...new Set([low(s), top(s)])], ["update_one_field"], [5]),
    }),
    unindexed("postgresql", {
      claim: "PostgreSQL: updating only field1 costs about 2× more with 5 extra indexes than with 1",
      kind: "magnitude",
      rule: { kind: "inside", low: 1.5, high: 2.5 },
      reading: '"about 2×" read as 1.5–2.5×',
    }),
    contrast("mongodb", "update_five_fields"),
    on("mongodb", "a-counter", "counter", {
      claim: "MongoDB: 5 indexes on columns the counter update does not touch leave its time unchanged (about 1.02×)",
      kind: "equivalence",
      rule: { kind: "inside", low: 0.9, high: 1.1 },
      reading: '"about 1.02×" read as no cost, ±10 % (the seed reads its own 0.91× at 10k as no speed-up, not a gain)',
      regime: ["rows"],
      regimeText: stated("100k and 1M rows (its sentence's sizes). A heavier client path pulls this ratio towards 1"),
      howToTest: FROM_100K,
      statistic: `R(UPDATE counter) = t(5 extra idx) ÷ t(0 extra idx), ${QUOTIENT}`,
      of: (s) => conditionAt(s, "mongodb", [top(s), "update_nonindexed", 5])?.ratioInterval,
      needs: "UPDATE counter with 0 and 5 extra indexes",
      why: (s) => counters(s, "mongodb", [top(s)], ["update_nonindexed"], [0, 5]),
    }),
    growth("mongodb", {
      claim: "MongoDB: ratios measured at 10k/100k rows underestimate the ratio at 1M rows",
      rule: { kind: "above", margin: 1.1 },
      reading: "a growth above 1.1×, for both operations",
      howToTest: GROWTH,
    }),
    unindexed("mongodb", {
      claim: "MongoDB: updating only field1 costs the same with 5 extra indexes as with 1",
      kind: "equivalence",
      rule: { kind: "inside", low: 0.9, high: 1.1 },
      reading: '"almost the same" read as ±10 %',
    }),
  ],
});

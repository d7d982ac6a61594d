/** Notebook 08's claims: PostgreSQL's documented BRIN, GIN fast update and partial-index behaviour (quotes.json). */
import { atLeast, declare, from, readQuotes, versus } from "../../stats/claim-engine";
import { bytesIn, f0, f2, f3, ms, ratio, times } from "../../stats/format";
import type { IndexKind, IndexTypesParams } from "./params";
import { find, findAll, flushOverMedian, outsidePredicate, overNone, paired } from "./summarise";
import type { ConditionSummary as C, RoundValues } from "./summarise";
import { KEY_BYTES, KEYS_PER_ROW, PENDING_LIMIT, plannedSize, ROW_BYTES } from "./workload";

type S = readonly C[];
const Q = readQuotes(__dirname);
const kib = (x: number | undefined) => bytesIn(x, "KiB", 0);
const whyOf = (kinds: readonly IndexKind[], text: (xs: C[], s: S) => string) => from((s: S) => findAll(s, kinds), text);

const BRIN_ROWS = `\`--set rows=${Math.ceil((1000 * 8192) / ROW_BYTES / 10_000) * 10_000}\` or more runs it`;
/** Claims a1 and a2: BRIN's magnitudes, judged on a table of at least 8 of its ranges. */
const BRIN = { kind: "magnitude", regime: ["pages"], howToTest: BRIN_ROWS } as const;
/** Claims b2 and b3: the batch that flushes the pending list, in a stream that fills it at least once. */
const FLUSH = { sentence: Q.quote("ginSlowUpdate"), regime: ["flushes"] } as const;
const GIN = ["gin-fastupdate", "gin-nofastupdate"] as const;
const ROUNDS = "paired within a round, median over rounds";
const VERY_LARGE = `the lab's reading of "very large tables" (8 MB: at least 8 of BRIN's 128-page ranges):`;
const FULL = "the documented condition (the list becomes too large):";

const ginOnOff = (text: string, pick: (r: RoundValues) => number | undefined, what: string) => ({
  statistic: `${text} of the INSERT stream, fastupdate on ÷ off, ${ROUNDS}`,
  of: paired(...GIN, pick, what),
  needs: "both GIN insert streams",
});

export const CLAIMS = declare<IndexTypesParams, S, "pages" | "flushes">({
  notebook: "08-index-types",
  quotes: Q,
  factors: {
    pages: atLeast("heap pages of the table", 1000, "pages", { source: VERY_LARGE }),
    flushes: atLeast("pending-list flushes per GIN insert stream", 1, "", { source: FULL }),
  },
  before: (p) => plannedSize(p.rows),
  after: (s) => ({ pages: find(s, "none")?.heapPages, flushes: find(s, "gin-fastupdate")?.flushes }),
  claims: [
    {
      id: "a1",
      claim: "A BRIN index is very small: after the same INSERT stream it is a small fraction of a B-tree's size",
      sentence: Q.quote("brinSmall"),
      ...BRIN,
      rule: { kind: "below", margin: 0.1 },
      reading: '"very small" read as under a tenth of a B-tree over the same rows',
      regimeText:
        "a table large enough that a B-tree on it has hundreds of pages; BRIN on a column in insertion order (created)",
      statistic: `pg_relation_size of the BRIN index (summarised after the stream) ÷ the B-tree's, ${ROUNDS}`,
      fmt: (x) => times(x, 3),
      of: paired("brin", "btree", (r) => r.indexBytes, "index bytes"),
      needs: "the brin and btree insert streams",
      why: whyOf(
        ["brin", "btree"],
        ([b, t]) =>
          `BRIN ${kib(b.indexBytes)} (${kib(b.unsummarizedBytes)} before brin_summarize_new_values, which took ` +
          `${f3(b.summarizeSeconds)} s) vs B-tree ${kib(t.indexBytes)} over ${b.rows} rows.`,
      ),
    },
    {
      id: "a2",
      claim:
        "A BRIN index is cheap to maintain: what it adds to an INSERT stream is a small part of what a B-tree adds",
      sentence: Q.quote("brinMaintenance"),
      ...BRIN,
      rule: { kind: "below", margin: 0.5 },
      reading:
        '"cheap" read as under half of the B-tree\'s cost over no index, in time and in WAL; held only when both hold',
      regimeText:
        "the INSERT stream into an empty table: the index's build summarises the first range, whose rows then update " +
        "its summary; every page after it is a new page outside the summarised ranges, left to a later summarisation",
      statistic: `(BRIN − none) ÷ (B-tree − none) of the stream's seconds and of its WAL bytes per row, ${ROUNDS}`,
      fmt: ratio,
      of: overNone("brin"),
      needs: "the none, brin and btree insert streams, with the B-tree slower than none",
      why: whyOf(
        ["brin", "btree", "none"],
        ([b, t, n]) =>
          `stream ${f3(n.medianSeconds)} s with no index, ${f3(b.medianSeconds)} s with BRIN, ` +
          `${f3(t.medianSeconds)} s with the B-tree; WAL ${f0(n.walBytesPerRow)}, ${f0(b.walBytesPerRow)}, ` +
          `${f0(t.walBytesPerRow)} B per row.`,
      ),
    },
    {
      id: "b1",
      claim: "GIN's fast update makes most INSERT batches faster than without it",
      sentence: { original: Q.original("ginFastUpdate", "ginSlowUpdate") },
      figure: "no figure",
      kind: "direction",
      rule: { kind: "below", margin: 1 },
      reading: '"most updates are fast" read on the median batch, not the mean (the flushes are in the mean)',
      regimeText:
        "a GIN index on an int[] column of 4 keys per row, autovacuum off for the table (no background flush)",
      mechanism:
        "with fastupdate an insert appends its keys to the unsorted pending list instead of inserting each into the entry tree",
      howToTest: '`--set kinds=["gin-fastupdate","gin-nofastupdate"]` runs it',
      ...ginOnOff("median batch latency", (r) => r.medianMs, "median batch ms"),
      why: whyOf(
        GIN,
        ([on, off]) =>
          `median batch ${ms(on.medianMs, 1)} with fastupdate vs ${ms(off.medianMs, 1)} without; whole stream ` +
          `${f2(on.medianSeconds)} s vs ${f2(off.medianSeconds)} s.`,
      ),
    },
    {
      ...FLUSH,
      id: "b2",
      claim: "A batch that makes the pending list too large flushes it and is much slower",
      kind: "magnitude",
      rule: { kind: "above", margin: 1.5 },
      reading: '"much slower" read as the slowest batch over 1.5× the slowest batch without the pending list',
      regimeText: `an INSERT stream that fills the pending list past gin_pending_list_limit (${PENDING_LIMIT / 1048576} MB) at least once`,
      howToTest: `\`--set rows=${Math.ceil(PENDING_LIMIT / (KEYS_PER_ROW * KEY_BYTES) / 10_000) * 10_000}\` or more fills it once`,
      ...ginOnOff("slowest batch", (r) => r.maxMs, "slowest batch ms"),
      why: whyOf(GIN, ([on, off]) => {
        const flush =
          on.flushes === undefined
            ? "flushes not counted (no pageinspect)"
            : `${f0(on.flushes)} flush(es) per stream, the flushing batches ${ms(on.flushMs, 1)}`;
        const latencies = (x: C) => `p99 ${ms(x.p99Ms, 1)}, slowest ${ms(x.maxMs, 1)}, median ${ms(x.medianMs, 1)}`;
        return `with fastupdate: ${flush}; ${latencies(on)}. Without: ${latencies(off)}.`;
      }),
    },
    {
      ...FLUSH,
      id: "b3",
      claim: "The batch that flushes the pending list is much slower than the other batches of its own stream",
      kind: "mechanism",
      rule: { kind: "above", margin: 3 },
      reading: '"much slower than other updates" read as over 3× the median batch of the same stream',
      regimeText:
        "the GIN insert stream with fastupdate, its flushes found by the pending list shrinking (pageinspect)",
      mechanism: "a flush moves the whole pending list into the entry tree inside the statement that overfilled it",
      howToTest: "a stream that fills the pending list at least once, on a server with pageinspect",
      statistic: "latency of the flushing batch ÷ the median batch of the same stream, median over rounds",
      of: flushOverMedian,
      needs: "a flush in the GIN insert stream with fastupdate, seen by pageinspect",
      why: whyOf(["gin-fastupdate"], ([on]) =>
        on.flushMs === undefined
          ? ""
          : `the flushing batch ${ms(on.flushMs, 1)}, the stream's median batch ${ms(on.medianMs, 1)} and p99 ${ms(on.p99Ms, 1)}.`,
      ),
    },
    {
      id: "c",
      claim: "A partial index costs nothing measurable for rows outside its predicate, inserted or updated",
      sentence: { original: Q.original("partialEntries", "partialUpdates") },
      figure: "no figure",
      kind: "equivalence",
      rule: { kind: "inside", low: 0.9, high: 1.1 },
      reading: `"nothing" read as within ±10 % of no index in time and ±2 % in WAL; held only when every part holds`,
      regimeText:
        "a B-tree on k WHERE flagged; the batches outside the predicate (all but every matchEvery-th) of the INSERT stream and the UPDATE pass",
      howToTest: '`--set kinds=["none","partial"]` runs it',
      statistic: `partial ÷ none over the batches outside the predicate: median batch ms (insert, update) and WAL bytes per row (insert), ${ROUNDS}`,
      fmt: (x) => times(x, 3),
      of: outsidePredicate,
      needs: "the none and partial runs",
      why: whyOf(
        ["partial", "none"],
        ([p, n], s) =>
          `outside the predicate: ${versus(p, n)((x) => ms(x.outsideMedianMs, 1))} per batch, ` +
          `${versus(p, n)((x) => f0(x.outsideWalBytesPerRow))} WAL B per row; the partial index ` +
          `is ${kib(p.indexBytes)}${find(s, "btree") ? `, the full B-tree ${kib(find(s, "btree")?.indexBytes)}` : ""}.`,
      ),
    },
  ],
});

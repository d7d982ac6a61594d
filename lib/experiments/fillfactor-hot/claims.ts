/** Notebook 07's claims: PostgreSQL's documented fillfactor and HOT (quotes.json), in the regime of the page's room. */
import { allParts, atLeast, declare, factor, from, readQuotes, someParts, stat } from "../../stats/claim-engine";
import { medianOf, pairedQuotient } from "../../stats/claim-statistics";
import { f0, f1, f2, f3, percent as pct } from "../../stats/format";
import type { FillfactorHotParams } from "./params";
import { fillfactorForOneVersion, plannedRoom } from "./workload/page-model";
import { INDEXES } from "./workload/table";
import { fullPass, hotPass, passesOf, withPasses, type ConditionSummary as C } from "./summarise";

type S = readonly C[];
const Q = readQuotes(__dirname);
const FILLFACTOR = `CREATE TABLE, storage parameter fillfactor (default 100): "${Q.original("fillfactor")}"`;
const HOT =
  `Heap-Only Tuples (HOT), storage-hot.html: HOT is possible when: "${Q.original("hotPossibleWhen")}"; ` +
  `then: "${Q.original("hotNoNewIndexEntries")}"`;

const pctFmt = (x: number) => pct(x, x < 0.1 ? 1 : 0);
const ROOM_TEXT =
  "room ratio = free bytes per loaded heap page ÷ (rows per page × bytes of one new row version with its line pointer), " +
  "measured on each trial's table (pgstattuple)";
/** The regime's value is not a seed's figure but the documented condition: room for the updated row. */
const THRESHOLD = "the documented threshold:";
const TWO_PASSES = "`--set fillfactors=[100,50]` runs both passes";
/** Claims 4–6: the HOT pass against fillfactor 100's. */
const PASSES = { kind: "magnitude", regime: ["room"], howToTest: TWO_PASSES } as const;

/** A why from both passes: each figure `v(f)` reads "HOT pass's vs fillfactor 100's". */
const bothPasses = (text: (v: (f: (x: C) => string) => string) => string) =>
  withPasses((h, b) => text((f) => `${f(h)} vs ${f(b)}`), "");
const entriesText = (x: C) => f2(x.indexEntriesPerRow);
/** Index entries per row over the rounds: of all indexes for the HOT pass, per index for the non-HOT pass. */
const entries = (x: C, per: number, of: string) => medianOf(x.rounds, (r) => (r.indexEntriesPerRow ?? NaN) / per, of);
const hotShare = (text: string, pass: (s: S) => C | undefined, needs: string) =>
  stat(text, (s: S) => pass(s)?.hotShareInterval, needs, pctFmt);
/** Claims 5 and 6: the HOT pass below the fillfactor-100 pass in a value paired within a round. */
const hotBelowFull = (text: string, what: string, p: (r: C["rounds"][number]) => number | undefined) =>
  ({
    ...PASSES,
    figure: "no figure",
    rule: { kind: "below", margin: 1 },
    regimeText: `the HOT pass (counter, ${ROOM_TEXT} ≥ 1) vs counter at fillfactor 100, same round`,
    statistic: `${text}, HOT pass ÷ fillfactor-100 pass, paired within a round`,
    of: withPasses((h, b) =>
      pairedQuotient(h.rounds, b.rounds, (r) => r.repeat, p, `${what}, ff ${h.fillfactor} ÷ ff 100, one per round`),
    ),
    needs: `${what} of both passes in the same rounds`,
  }) as const;

/** The pages' room of one pass, and (`growth`) where its new versions went. */
const roomText = (x: C, growth = true) =>
  `at fillfactor ${x.fillfactor} the loaded pages held ${f1(x.rowsPerPage)} rows of ${f0(x.versionBytes)} B ` +
  `with ${f0(x.freeBytesPerPage)} B free (room ratio ${f2(x.roomRatio)})` +
  (growth
    ? `: ${pct(x.newPageShare)} of the new versions went to another page, the heap grew ` +
      `${f0(x.heapBytesPerRow)} B and the indexes ${f1(x.indexBytesPerRow)} B per updated row.`
    : "");

export const CLAIMS = declare<FillfactorHotParams, S, "noRoom" | "room">({
  notebook: "07-fillfactor-hot",
  quotes: Q,
  factors: {
    // noRoom: the reserved space cannot hold a new version of every row on the page; room: it can.
    noRoom: factor("room ratio", 1, [0, 0.99], "", { source: THRESHOLD }),
    room: atLeast("room ratio of the HOT pass", 1, "", { source: THRESHOLD }),
  },
  before: (p) => {
    const rooms = [...p.fillfactors].sort((a, b) => b - a).map((ff) => plannedRoom(ff, p.padBytes).ratio);
    const noRoom = p.fillfactors.includes(100) ? rooms[0] : undefined;
    return { noRoom, room: rooms.find((r) => r >= 1) ?? rooms.at(-1) };
  },
  after: (s) => ({ noRoom: fullPass(s)?.roomRatio, room: hotPass(s)?.roomRatio }),
  claims: [
    {
      id: "1",
      claim:
        "At fillfactor 100, a pass that updates a non-indexed column of every row of a freshly loaded table in " +
        "statements over whole id ranges is mostly not HOT: the page has no free space for the new versions, and its " +
        "old versions are not yet dead, so pruning cannot make room during the pass",
      sentence: { original: `${FILLFACTOR}; ${HOT}` },
      figure: "no figure: the documentation's condition (sufficient free space on the page) fails at fillfactor 100",
      kind: "magnitude",
      rule: { kind: "below", margin: 0.5 },
      reading: '"mostly not" read as under half',
      regime: ["noRoom"],
      regimeText:
        `fillfactor 100, ${ROOM_TEXT} below 1 (the page has no room for the pass's new versions). Not measured: ` +
        "single-row transactions, between which pruning can reclaim earlier versions; the claim says nothing of them",
      howToTest: "fillfactor 100 is in it for any row narrower than half a page; `--set fillfactors=[100,50]` runs it",
      ...hotShare(
        "HOT share of the pass = Δn_tup_hot_upd ÷ Δn_tup_upd (pg_stat_user_tables around the timed pass), median over rounds",
        fullPass,
        "the counter pass at fillfactor 100",
      ),
      why: from(fullPass, (x) => roomText(x)),
    },
    {
      id: "2",
      claim:
        "At a fillfactor whose reserved space holds one new version of every row on the page, the same pass is mostly HOT",
      sentence: { original: FILLFACTOR },
      figure: "no figure: the documentation's condition holds",
      kind: "magnitude",
      rule: { kind: "above", margin: 0.5 },
      reading: '"mostly" read as over half',
      regime: ["room"],
      regimeText: `the highest fillfactor run whose ${ROOM_TEXT} is at least 1 (51 or lower for 07's 116-byte row versions; the profiles run 50)`,
      howToTest: `\`--set fillfactors=[100,${fillfactorForOneVersion(60)}]\` (07's row) tests it`,
      ...hotShare("HOT share of the pass at that fillfactor, median over rounds", hotPass, "the counter pass"),
      ours: from(hotPass, (x) => `fillfactor ${x.fillfactor}`),
      why: from(hotPass, (h, s) => {
        const others = passesOf(s, "counter").filter((y) => y !== h);
        const text = others.map((y) => `ff ${y.fillfactor}: ${pct(y.hotShare)} at room ratio ${f2(y.roomRatio)}`);
        return roomText(h) + (others.length ? ` The other fillfactors: ${text.join(", ")}.` : "");
      }),
    },
    {
      id: "3",
      claim: "An UPDATE that changes an indexed column is not HOT at any fillfactor",
      sentence: { original: HOT },
      figure: "no figure: HOT needs the indexed columns unchanged",
      kind: "direction",
      rule: { kind: "below", margin: 0.01 },
      reading: "HOT share ≈ 0 at every fillfactor (held only when every fillfactor holds)",
      regimeText: "every fillfactor run, the pass changing k (which has a B-tree of its own)",
      mechanism: "a HOT update needs the indexed columns unchanged, whatever the room on the page",
      howToTest: '`--set columns=["counter","k"]` runs it',
      statistic: "HOT share of the k pass at each fillfactor, median over rounds",
      of: (s) =>
        someParts(passesOf(s, "k").map((x) => ({ label: `ff ${x.fillfactor}`, interval: x.hotShareInterval }))),
      needs: "the k pass",
      fmt: pctFmt,
      why: from(
        (s) => s.filter((y) => y.column === "k").sort((a, b) => (b.roomRatio ?? 0) - (a.roomRatio ?? 0))[0],
        (x) =>
          `${roomText(x, false)}; the k pass was HOT for ${pct(x.hotShare)} of its rows, ` +
          `${pct(1 - (x.newPageShare ?? NaN))} of its new versions stayed on their page, ` +
          `and it inserted ${entriesText(x)} index entries per row (${INDEXES.length} indexes).`,
      ),
    },
    {
      id: "4",
      claim:
        "HOT updates add no index entries; a non-HOT update adds one entry to every index for every row, changed or not",
      sentence: { original: HOT },
      figure: "no figure: no new index entries for a HOT update",
      ...PASSES,
      rule: { kind: "below", margin: 0.1 },
      reading:
        "HOT pass below 0.1 entries per row, and the non-HOT pass 0.9–1.1 per index per row; held only when both hold",
      regimeText: `the HOT pass (counter, ${ROOM_TEXT} ≥ 1) and the non-HOT pass (counter at fillfactor 100), 2 B-trees`,
      statistic:
        "B-tree leaf entries inserted per updated row, counted in the pass's WAL (pg_walinspect: Btree INSERT_LEAF, " +
        "INSERT_POST, SPLIT_L, SPLIT_R), median over rounds: of all indexes for the HOT pass, per index for the non-HOT pass",
      of: withPasses((h, b) => {
        const hot = entries(h, 1, "index entries per row, HOT pass, one per round");
        const base = entries(b, INDEXES.length, "index entries per row per index, fillfactor 100, one per round");
        return allParts([
          { label: `HOT pass (ff ${h.fillfactor})`, interval: hot },
          { label: "ff 100, per index", interval: base, rule: { kind: "inside", low: 0.9, high: 1.1 } },
        ]);
      }),
      needs: "both passes and pg_walinspect (the WAL's B-tree records) on the server",
      fmt: f3,
      why: bothPasses(
        (v) =>
          `HOT share ${v((x) => pct(x.hotShare))}; the indexes grew ${v((x) => f1(x.indexBytesPerRow))} ` +
          `B per updated row (pg_relation_size of ${INDEXES.join(", ")}).`,
      ),
    },
    {
      id: "5",
      claim: "A HOT pass writes less WAL per updated row than the non-HOT pass over the same rows",
      sentence: { original: `${HOT} (no index entries: no index WAL records)` },
      ...hotBelowFull("WAL bytes per updated row (pg_stat_wal)", "WAL bytes per row", (r) => r.walBytesPerRow),
      why: bothPasses(
        (v) =>
          `WAL ${v((x) => f0(x.walBytesPerRow))} B per updated row, of which full-page images ` +
          `${v((x) => f1(x.fpiPer1000Rows))} per 1,000 rows (the first change of each page after the ` +
          `checkpoint); index entries per row ${v(entriesText)}.`,
      ),
    },
    {
      id: "6",
      claim: "Placing the updated copy on the same page is more efficient: the HOT pass takes less time",
      sentence: { original: FILLFACTOR },
      ...hotBelowFull("seconds of the pass", "seconds", (r) => r.seconds),
      why: bothPasses(
        (v) =>
          `median ${v((x) => `${f3(x.medianSeconds)} s`)}; HOT share ${v((x) => pct(x.hotShare))}, ` +
          `index entries per row ${v(entriesText)}, new-page share ${v((x) => pct(x.newPageShare))}.`,
      ),
    },
  ],
});

/**
 * Notebook 07's claims: PostgreSQL's documented behaviour of fillfactor and HOT updates, as
 * declarations on the claims engine (stats/claim-engine), which places, decides and renders them.
 *
 * The regime is the page's room: free bytes per loaded page ÷ the bytes a new version of every row
 * on it needs (`room ratio`, measured with pgstattuple on each trial's table). The pass updates
 * every row in statements of whole id ranges, so the old versions on a page are not yet dead when
 * its other rows are updated and pruning cannot make room inside the pass: a row's update is HOT
 * only while the page's reserved space lasts (default run here: HOT share 0.1 % at fillfactor 100,
 * 43 % at 70 against a room ratio of 0.44, 100 % at 50). Not measured here: a pass of single-row
 * transactions lets pruning reclaim the earlier updates' versions, so it should need less room; claim
 * (1) says only what is measured (whole-range statements).
 */
import type { ClaimCheck, ClaimPlan, Rule } from "../../stats/claims";
import { declarations, declare, judge, plan, type ClaimSet, type Without } from "../../stats/claim-engine";
import { medianInterval, type Interval } from "../../stats/intervals";
import type { FillfactorHotParams } from "./params";
import { fillfactorForOneVersion, plannedRoom } from "./workload/page-model";
import { INDEXES } from "./workload/table";
import { findSummary, type ConditionSummary, type RoundValues } from "./summarise";
import { fixed, percent } from "../../stats/format";

const fmt = (x: number | undefined, d = 2) => fixed(x, d);
const pct = (x: number | undefined) => percent(x);
const pctFmt = (x: number) => `${(x * 100).toFixed(x < 0.1 ? 1 : 0)} %`;
const times = (x: number) => `${x.toFixed(2)}×`;

const DOC_FILLFACTOR =
  'CREATE TABLE, storage parameter fillfactor: "When a smaller fillfactor is specified, INSERT operations pack table ' +
  "pages only to the indicated percentage; the remaining space on each page is reserved for updating rows on that " +
  "page. This gives UPDATE a chance to place the updated copy of a row on the same page as the original, which is " +
  'more efficient than placing it on a different page, and makes heap-only tuple updates more likely." (default 100)';
const DOC_HOT =
  'Heap-Only Tuples (HOT), storage-hot.html: HOT is possible when "the update does not modify any columns referenced ' +
  'by the table\'s indexes, not including summarizing indexes" and "there is sufficient free space on the page ' +
  'containing the old row for the updated row"; then "new index entries are not needed to represent updated rows"';

type Factor = "noRoom" | "room";

const ROOM_TEXT =
  "room ratio = free bytes per loaded heap page ÷ (rows per page × bytes of one new row version with its line pointer), " +
  "measured on each trial's table (pgstattuple)";
/** The regime's value is not a seed's figure but the documented condition: room for the updated row. */
const THRESHOLD = "the documented threshold:";
const DOCS = { original: `${DOC_FILLFACTOR}; ${DOC_HOT}` };

export const RULE_1 = { kind: "below", margin: 0.5 } as const satisfies Rule;
export const RULE_2 = { kind: "above", margin: 0.5 } as const satisfies Rule;
export const RULE_3 = { kind: "below", margin: 0.01 } as const satisfies Rule;
export const RULE_4_HOT = { kind: "below", margin: 0.1 } as const satisfies Rule;
export const RULE_4_NOT_HOT = { kind: "inside", low: 0.9, high: 1.1 } as const satisfies Rule;
export const RULE_5 = { kind: "below", margin: 1 } as const satisfies Rule;
export const RULE_6 = { kind: "below", margin: 1 } as const satisfies Rule;

/** The HOT pass: the highest fillfactor whose counter pass had room (ratio ≥ 1), else the lowest run. */
export function hotPass(s: readonly ConditionSummary[]): ConditionSummary | undefined {
  const counter = s.filter((x) => x.column === "counter").sort((a, b) => b.fillfactor - a.fillfactor);
  return counter.find((x) => (x.roomRatio ?? 0) >= 1) ?? counter[counter.length - 1];
}
const full = (s: readonly ConditionSummary[]) => findSummary(s, { fillfactor: 100, column: "counter" });
/** The HOT pass and the fillfactor-100 pass, when both ran and differ. */
function passes(s: readonly ConditionSummary[]) {
  const hot = hotPass(s);
  const base = full(s);
  return hot && base && hot !== base ? { hot, base } : undefined;
}

/** Per-round quotient of one value of two conditions (same round), and its interval. */
function pairedQuotient(
  top: readonly RoundValues[],
  bottom: readonly RoundValues[],
  pick: (r: RoundValues) => number | undefined,
  of: string,
): Interval | undefined {
  const b = new Map(bottom.map((r) => [r.repeat, pick(r)]));
  const q = top.flatMap((r) => {
    const t = pick(r);
    const d = b.get(r.repeat);
    return t !== undefined && d !== undefined && Number.isFinite(t) && Number.isFinite(d) && d > 0 ? [t / d] : [];
  });
  return q.length ? medianInterval(q, of) : undefined;
}

function roundsInterval(
  x: ConditionSummary | undefined,
  pick: (r: RoundValues) => number | undefined,
  of: string,
): Interval | undefined {
  const v = (x?.rounds ?? []).flatMap((r) => {
    const y = pick(r);
    return y === undefined || !Number.isFinite(y) ? [] : [y];
  });
  return v.length ? medianInterval(v, of) : undefined;
}

const paired = (pick: (r: RoundValues) => number | undefined, what: string) => (s: readonly ConditionSummary[]) => {
  const p = passes(s);
  return p
    ? pairedQuotient(p.hot.rounds, p.base.rounds, pick, `${what}, ff ${p.hot.fillfactor} ÷ ff 100, one per round`)
    : undefined;
};

const roomText = (x: ConditionSummary) =>
  `at fillfactor ${x.fillfactor} the loaded pages held ${fmt(x.rowsPerPage, 1)} rows of ${fmt(x.versionBytes, 0)} B ` +
  `with ${fmt(x.freeBytesPerPage, 0)} B free (room ratio ${fmt(x.roomRatio)})`;

const growthText = (x: ConditionSummary) =>
  `${pct(x.newPageShare)} of the new versions went to another page, the heap grew ${fmt(x.heapBytesPerRow, 0)} B ` +
  `and the indexes ${fmt(x.indexBytesPerRow, 1)} B per updated row`;

const TWO_PASSES = "`--set fillfactors=[100,50]` runs both passes";
const HOT_PASS_REGIME = `the HOT pass (counter, ${ROOM_TEXT} ≥ 1) vs counter at fillfactor 100, same round`;

export const CLAIMS: ClaimSet<FillfactorHotParams, readonly ConditionSummary[], Factor> = declare({
  notebook: "07-fillfactor-hot",
  factors: {
    // Below 1: the reserved space cannot hold a new version of every row on the page.
    noRoom: { what: "room ratio", seed: 1, unit: "", within: [0, 0.99], source: THRESHOLD },
    // At least 1: it can.
    room: { what: "room ratio of the HOT pass", seed: 1, unit: "", within: [1, Infinity], source: THRESHOLD },
  },
  before: (p) => {
    const rooms = [...p.fillfactors].sort((a, b) => b - a).map((ff) => plannedRoom(ff, p.padBytes).ratio);
    return {
      noRoom: p.fillfactors.includes(100) ? plannedRoom(100, p.padBytes).ratio : undefined,
      room: rooms.find((r) => r >= 1) ?? rooms[rooms.length - 1],
    };
  },
  after: (s) => ({ noRoom: full(s)?.roomRatio, room: hotPass(s)?.roomRatio }),
  claims: [
    {
      id: "1",
      claim:
        "At fillfactor 100, a pass that updates a non-indexed column of every row of a freshly loaded table in " +
        "statements over whole id ranges is mostly not HOT: the page has no free space for the new versions, and its " +
        "old versions are not yet dead, so pruning cannot make room during the pass",
      sentence: DOCS,
      figure: "no figure: the documentation's condition (sufficient free space on the page) fails at fillfactor 100",
      kind: "magnitude",
      rule: RULE_1,
      reading: '"mostly not" read as under half',
      regime: ["noRoom"],
      regimeText:
        `fillfactor 100, ${ROOM_TEXT} below 1 (the page has no room for the pass's new versions). Not measured: ` +
        "single-row transactions, between which pruning can reclaim earlier versions; the claim says nothing of them",
      howToTest: "fillfactor 100 is in it for any row narrower than half a page; `--set fillfactors=[100,50]` runs it",
      statistic: {
        text: "HOT share of the pass = Δn_tup_hot_upd ÷ Δn_tup_upd (pg_stat_user_tables around the timed pass), median over rounds",
        fmt: pctFmt,
        of: (s) => full(s)?.hotShareInterval,
        needs: "the counter pass at fillfactor 100",
      },
      why: (s) => {
        const x = full(s);
        return x ? `${roomText(x)}: ${growthText(x)}.` : "";
      },
    },
    {
      id: "2",
      claim:
        "At a fillfactor whose reserved space holds one new version of every row on the page, the same pass is mostly HOT",
      sentence: { original: DOC_FILLFACTOR },
      figure: "no figure: the documentation's condition holds",
      kind: "magnitude",
      rule: RULE_2,
      reading: '"mostly" read as over half',
      regime: ["room"],
      regimeText: `the highest fillfactor run whose ${ROOM_TEXT} is at least 1 (51 or lower for 07's 116-byte row versions; the profiles run 50)`,
      howToTest: `\`--set fillfactors=[100,${fillfactorForOneVersion(60)}]\` (07's row) tests it`,
      statistic: {
        text: "HOT share of the pass at that fillfactor, median over rounds",
        fmt: pctFmt,
        of: (s) => hotPass(s)?.hotShareInterval,
        needs: "the counter pass",
      },
      ours: (s) => (hotPass(s) ? `fillfactor ${hotPass(s)?.fillfactor}` : ""),
      why: (s) => {
        const x = hotPass(s);
        if (!x) return "";
        const others = s
          .filter((y) => y.column === "counter" && y !== x)
          .sort((a, b) => b.fillfactor - a.fillfactor)
          .map((y) => `ff ${y.fillfactor}: ${pct(y.hotShare)} at room ratio ${fmt(y.roomRatio)}`)
          .join(", ");
        return `${roomText(x)}: ${growthText(x)}.${others ? ` The other fillfactors: ${others}.` : ""}`;
      },
    },
    {
      id: "3",
      claim: "An UPDATE that changes an indexed column is not HOT at any fillfactor",
      sentence: { original: DOC_HOT },
      figure: "no figure: HOT needs the indexed columns unchanged",
      kind: "direction",
      rule: RULE_3,
      reading: "HOT share ≈ 0 at every fillfactor (held only when every fillfactor holds)",
      regime: [],
      regimeText: "every fillfactor run, the pass changing k (which has a B-tree of its own)",
      mechanism: "a HOT update needs the indexed columns unchanged, whatever the room on the page",
      howToTest: '`--set columns=["counter","k"]` runs it',
      statistic: {
        text: "HOT share of the k pass at each fillfactor, median over rounds",
        fmt: pctFmt,
        of: (s) => {
          const k = s.filter((x) => x.column === "k").sort((a, b) => b.fillfactor - a.fillfactor);
          return k.length ? k.map((x) => ({ label: `ff ${x.fillfactor}`, interval: x.hotShareInterval })) : undefined;
        },
        needs: "the k pass",
      },
      why: (s) => {
        const k = s.filter((x) => x.column === "k");
        const roomiest = [...k].sort((a, b) => (b.roomRatio ?? 0) - (a.roomRatio ?? 0))[0];
        if (!roomiest) return "";
        return (
          `${roomText(roomiest)}; the k pass was HOT for ${pct(roomiest.hotShare)} of its rows, ` +
          `${pct(roomiest.newPageShare === undefined ? undefined : 1 - roomiest.newPageShare)} of its new versions ` +
          `stayed on their page, and it inserted ${fmt(roomiest.indexEntriesPerRow)} index entries per row (${INDEXES.length} indexes).`
        );
      },
    },
    {
      id: "4",
      claim:
        "HOT updates add no index entries; a non-HOT update adds one entry to every index for every row, changed or not",
      sentence: { original: DOC_HOT },
      figure: "no figure: no new index entries for a HOT update",
      kind: "magnitude",
      rule: RULE_4_HOT,
      reading: `HOT pass below ${RULE_4_HOT.margin} entries per row, and the non-HOT pass 0.9–1.1 per index per row; held only when both hold`,
      regime: ["room"],
      regimeText: `the HOT pass (counter, ${ROOM_TEXT} ≥ 1) and the non-HOT pass (counter at fillfactor 100), 2 B-trees`,
      howToTest: TWO_PASSES,
      statistic: {
        text:
          "B-tree leaf entries inserted per updated row, counted in the pass's WAL (pg_walinspect: Btree INSERT_LEAF, " +
          "INSERT_POST, SPLIT_L, SPLIT_R), median over rounds: of all indexes for the HOT pass, per index for the non-HOT pass",
        fmt: (x) => x.toFixed(3),
        of: (s) => {
          const p = passes(s);
          if (!p) return undefined;
          const hot = roundsInterval(
            p.hot,
            (r) => r.indexEntriesPerRow,
            "index entries per row, HOT pass, one per round",
          );
          const base = roundsInterval(
            p.base,
            (r) => (r.indexEntriesPerRow === undefined ? undefined : r.indexEntriesPerRow / INDEXES.length),
            "index entries per row per index, fillfactor 100, one per round",
          );
          return hot && base
            ? [
                { label: `HOT pass (ff ${p.hot.fillfactor})`, interval: hot },
                { label: "ff 100, per index", interval: base, rule: RULE_4_NOT_HOT },
              ]
            : undefined;
        },
        needs: "both passes and pg_walinspect (the WAL's B-tree records) on the server",
      },
      why: (s) => {
        const p = passes(s);
        return p
          ? `HOT share ${pct(p.hot.hotShare)} vs ${pct(p.base.hotShare)}; the indexes grew ${fmt(p.hot.indexBytesPerRow, 1)} vs ` +
              `${fmt(p.base.indexBytesPerRow, 1)} B per updated row (pg_relation_size of ${INDEXES.join(", ")}).`
          : "";
      },
    },
    {
      id: "5",
      claim: "A HOT pass writes less WAL per updated row than the non-HOT pass over the same rows",
      sentence: { original: `${DOC_HOT} (no index entries: no index WAL records)` },
      figure: "no figure",
      kind: "magnitude",
      rule: RULE_5,
      regime: ["room"],
      regimeText: HOT_PASS_REGIME,
      howToTest: TWO_PASSES,
      statistic: {
        text: "WAL bytes per updated row (pg_stat_wal), HOT pass ÷ fillfactor-100 pass, paired within a round",
        fmt: times,
        of: paired((r) => r.walBytesPerRow, "WAL bytes per row"),
        needs: "WAL bytes per row of both passes in the same rounds",
      },
      why: (s) => {
        const p = passes(s);
        return p
          ? `WAL ${fmt(p.hot.walBytesPerRow, 0)} vs ${fmt(p.base.walBytesPerRow, 0)} B per updated row, of which full-page ` +
              `images ${fmt(p.hot.fpiPer1000Rows, 1)} vs ${fmt(p.base.fpiPer1000Rows, 1)} per 1,000 rows (the first change of ` +
              `each page after the checkpoint); index entries per row ${fmt(p.hot.indexEntriesPerRow)} vs ${fmt(p.base.indexEntriesPerRow)}.`
          : "";
      },
    },
    {
      id: "6",
      claim: "Placing the updated copy on the same page is more efficient: the HOT pass takes less time",
      sentence: { original: DOC_FILLFACTOR },
      figure: "no figure",
      kind: "magnitude",
      rule: RULE_6,
      regime: ["room"],
      regimeText: HOT_PASS_REGIME,
      howToTest: TWO_PASSES,
      statistic: {
        text: "seconds of the pass, HOT pass ÷ fillfactor-100 pass, paired within a round",
        fmt: times,
        of: paired((r) => r.seconds, "seconds"),
        needs: "seconds of both passes in the same rounds",
      },
      why: (s) => {
        const p = passes(s);
        return p
          ? `median ${fmt(p.hot.medianSeconds, 3)} s vs ${fmt(p.base.medianSeconds, 3)} s; HOT share ${pct(p.hot.hotShare)} vs ` +
              `${pct(p.base.hotShare)}, index entries per row ${fmt(p.hot.indexEntriesPerRow)} vs ${fmt(p.base.indexEntriesPerRow)}, ` +
              `new-page share ${pct(p.hot.newPageShare)} vs ${pct(p.base.newPageShare)}.`
          : "";
      },
    },
  ],
  notDeclared: [],
});

export const DECLARATIONS = declarations(CLAIMS);

/**
 * The claims, each with its sensitivity: `without` is the summary of the same trials with the
 * flagged rounds (outliers, a checkpoint or autovacuum in the window) left out, and `flagged` their count.
 */
export function checkClaims(
  s: readonly ConditionSummary[],
  without?: readonly ConditionSummary[],
  flagged = 0,
): ClaimCheck[] {
  const w: Without<readonly ConditionSummary[]> | undefined = without
    ? {
        summary: without,
        flagged: {
          noun: "trial",
          count: flagged,
          detail: "outliers, or a checkpoint/autovacuum in the timed window",
          none: "No trial was flagged (outlier, checkpoint or autovacuum in its window).",
        },
      }
    : undefined;
  return judge(CLAIMS, s, w);
}

export const plan07 = (p: FillfactorHotParams): ClaimPlan[] => plan(CLAIMS, p);

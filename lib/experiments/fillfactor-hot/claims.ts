/**
 * Notebook 07's claims: PostgreSQL's documented behaviour of fillfactor and HOT updates, declared
 * as hypotheses before the run (statement, the documentation's sentence, regime, statistic, rule),
 * judged on this run's intervals. Only `ours`, the verdict and `why` come from the run, and `why`
 * only from its counters.
 *
 * The regime is the page's room: free bytes per loaded page ÷ the bytes a new version of every row
 * on it needs (`room ratio`, measured with pgstattuple on each trial's table). The pass updates
 * every row in statements of whole id ranges, so the old versions on a page are not yet dead when
 * its other rows are updated and pruning cannot make room inside the pass: a row's update is HOT
 * only while the page's reserved space lasts (default run here: HOT share 0.1 % at fillfactor 100,
 * 43 % at 70 against a room ratio of 0.44, 100 % at 50). Not measured here: a pass of single-row
 * transactions lets pruning reclaim the earlier updates' versions, so it should need less room.
 */
import {
  allOf,
  atScale,
  decide,
  describeRule,
  missing,
  planClaims,
  type ClaimCheck,
  type ClaimPlan,
  type Declaration,
  type Decision,
  type RegimeFactor,
  type Rule,
} from "../../stats/claims";
import { intervalText, medianInterval, type Interval } from "../../stats/intervals";
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

/** The room ratio: the documented condition "sufficient free space on the page" for every row of the pass. */
const ROOM_WHAT = "room ratio";
const ROOM_HOT_WHAT = "room ratio of the HOT pass";
/** The regime's value is not a seed's figure but the documented condition: room for the updated row. */
const THRESHOLD = "the documented threshold:";
/** `atScale`'s words for the regime, said of the documentation rather than a seed. */
const DOC = "the documentation";
const DOC_ROOM =
  "needs sufficient free space on the page for the updated row: a room ratio ≥ 1 for every row of the pass";
const DOC_NO_ROOM = "describes a page without room for the updated rows: a room ratio below 1";
/** Below 1: the reserved space cannot hold a new version of every row on the page. */
const NO_ROOM: RegimeFactor = { what: ROOM_WHAT, seed: 1, unit: "", within: [0, 0.99], source: THRESHOLD };
/** At least 1: it can. */
const ROOM: RegimeFactor = { what: ROOM_HOT_WHAT, seed: 1, unit: "", within: [1, Infinity], source: THRESHOLD };
const ROOM_TEXT =
  "room ratio = free bytes per loaded heap page ÷ (rows per page × bytes of one new row version with its line pointer), " +
  "measured on each trial's table (pgstattuple)";

export const RULE_1 = { kind: "below", margin: 0.5 } as const satisfies Rule;
export const DECLARATION_1: Declaration = {
  id: "1",
  claim: "At fillfactor 100 an UPDATE pass of a non-indexed column on a freshly loaded table is mostly not HOT",
  seed: `${DOC_FILLFACTOR}; ${DOC_HOT}`,
  regime: `fillfactor 100, ${ROOM_TEXT} below 1 (the page has no room for the pass's new versions)`,
  statistic:
    "HOT share of the pass = Δn_tup_hot_upd ÷ Δn_tup_upd (pg_stat_user_tables around the timed pass), median over rounds",
  rule: `"mostly not" read as under half: ${describeRule(RULE_1, pctFmt)}`,
  kind: "magnitude",
  distance: [NO_ROOM],
};

export const RULE_2 = { kind: "above", margin: 0.5 } as const satisfies Rule;
export const DECLARATION_2: Declaration = {
  id: "2",
  claim:
    "At a fillfactor whose reserved space holds one new version of every row on the page, the same pass is mostly HOT",
  seed: DOC_FILLFACTOR,
  regime: `the highest fillfactor run whose ${ROOM_TEXT} is at least 1 (51 or lower for 07's 116-byte row versions; the profiles run 50)`,
  statistic: "HOT share of the pass at that fillfactor, median over rounds",
  rule: `"mostly" read as over half: ${describeRule(RULE_2, pctFmt)}`,
  kind: "magnitude",
  distance: [ROOM],
};

export const RULE_3 = { kind: "below", margin: 0.01 } as const satisfies Rule;
export const DECLARATION_3: Declaration = {
  id: "3",
  claim: "An UPDATE that changes an indexed column is not HOT at any fillfactor",
  seed: DOC_HOT,
  regime: "every fillfactor run, the pass changing k (which has a B-tree of its own)",
  statistic: "HOT share of the k pass at each fillfactor, median over rounds",
  rule: `HOT share ≈ 0, at every fillfactor: ${describeRule(RULE_3, pctFmt)}; held only when every fillfactor holds`,
  kind: "direction",
  mechanism: "a HOT update needs the indexed columns unchanged, whatever the room on the page",
};

export const RULE_4_HOT = { kind: "below", margin: 0.1 } as const satisfies Rule;
export const RULE_4_NOT_HOT = { kind: "inside", low: 0.9, high: 1.1 } as const satisfies Rule;
export const DECLARATION_4: Declaration = {
  id: "4",
  claim:
    "HOT updates add no index entries; a non-HOT update adds one entry to every index for every row, changed or not",
  seed: DOC_HOT,
  regime: `the HOT pass (counter, ${ROOM_TEXT} ≥ 1) and the non-HOT pass (counter at fillfactor 100), 2 B-trees`,
  statistic:
    "B-tree leaf entries inserted per updated row, counted in the pass's WAL (pg_walinspect: Btree INSERT_LEAF, " +
    "INSERT_POST, SPLIT_L, SPLIT_R), median over rounds: of all indexes for the HOT pass, per index for the non-HOT pass",
  rule: `HOT pass: ${describeRule(RULE_4_HOT)}; non-HOT pass, per index: ${describeRule(RULE_4_NOT_HOT)}; held only when both hold`,
  kind: "magnitude",
  distance: [ROOM],
};

export const RULE_5 = { kind: "below", margin: 1 } as const satisfies Rule;
export const DECLARATION_5: Declaration = {
  id: "5",
  claim: "A HOT pass writes less WAL per updated row than the non-HOT pass over the same rows",
  seed: `${DOC_HOT} (no index entries: no index WAL records)`,
  regime: `the HOT pass (counter, ${ROOM_TEXT} ≥ 1) vs counter at fillfactor 100, same round`,
  statistic: "WAL bytes per updated row (pg_stat_wal), HOT pass ÷ fillfactor-100 pass, paired within a round",
  rule: describeRule(RULE_5, times),
  kind: "magnitude",
  distance: [ROOM],
};

export const RULE_6 = { kind: "below", margin: 1 } as const satisfies Rule;
export const DECLARATION_6: Declaration = {
  id: "6",
  claim: "Placing the updated copy on the same page is more efficient: the HOT pass takes less time",
  seed: DOC_FILLFACTOR,
  regime: `the HOT pass (counter, ${ROOM_TEXT} ≥ 1) vs counter at fillfactor 100, same round`,
  statistic: "seconds of the pass, HOT pass ÷ fillfactor-100 pass, paired within a round",
  rule: describeRule(RULE_6, times),
  kind: "magnitude",
  distance: [ROOM],
};

export const DECLARATIONS: readonly Declaration[] = [
  DECLARATION_1,
  DECLARATION_2,
  DECLARATION_3,
  DECLARATION_4,
  DECLARATION_5,
  DECLARATION_6,
];

/** The HOT pass: the highest fillfactor whose counter pass had room (ratio ≥ 1), else the lowest run. */
export function hotPass(s: readonly ConditionSummary[]): ConditionSummary | undefined {
  const counter = s.filter((x) => x.column === "counter").sort((a, b) => b.fillfactor - a.fillfactor);
  return counter.find((x) => (x.roomRatio ?? 0) >= 1) ?? counter[counter.length - 1];
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

function shareInterval(
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

const roomText = (x: ConditionSummary) =>
  `at fillfactor ${x.fillfactor} the loaded pages held ${fmt(x.rowsPerPage, 1)} rows of ${fmt(x.versionBytes, 0)} B ` +
  `with ${fmt(x.freeBytesPerPage, 0)} B free (room ratio ${fmt(x.roomRatio)})`;

const growthText = (x: ConditionSummary) =>
  `${pct(x.newPageShare)} of the new versions went to another page, the heap grew ${fmt(x.heapBytesPerRow, 0)} B ` +
  `and the indexes ${fmt(x.indexBytesPerRow, 1)} B per updated row`;

const notRun = (d: Declaration, needs: string, how: string): ClaimCheck => ({
  ...missing(d, needs),
  decidedBy: `${needs}; ${how}`,
});

function claim1(s: readonly ConditionSummary[]): ClaimCheck {
  const x = findSummary(s, { fillfactor: 100, column: "counter" });
  if (!x?.hotShareInterval)
    return notRun(DECLARATION_1, "needs the counter pass at fillfactor 100", "`--set fillfactors=[100,50]` runs it");
  const decision = decide(RULE_1, x.hotShareInterval, { fmt: pctFmt });
  return atScale(
    {
      ...DECLARATION_1,
      ours: `HOT share ${intervalText(x.hotShareInterval, pctFmt)}`,
      interval: x.hotShareInterval,
      ...decision,
      why: `${roomText(x)}: ${growthText(x)}.`,
    },
    { [ROOM_WHAT]: x.roomRatio },
    {
      here: `HOT share ${pct(x.hotShare)}`,
      seed: DOC_NO_ROOM,
      source: DOC,
      howToTest: "fillfactor 100 is in it for any row narrower than half a page",
    },
  );
}

function claim2(s: readonly ConditionSummary[]): ClaimCheck {
  const x = hotPass(s);
  if (!x?.hotShareInterval)
    return notRun(DECLARATION_2, "needs the counter pass", '`--set columns=["counter","k"]` runs it');
  const decision = decide(RULE_2, x.hotShareInterval, { fmt: pctFmt });
  const others = s
    .filter((y) => y.column === "counter" && y !== x)
    .sort((a, b) => b.fillfactor - a.fillfactor)
    .map((y) => `ff ${y.fillfactor}: ${pct(y.hotShare)} at room ratio ${fmt(y.roomRatio)}`)
    .join(", ");
  return atScale(
    {
      ...DECLARATION_2,
      ours: `fillfactor ${x.fillfactor}: HOT share ${intervalText(x.hotShareInterval, pctFmt)}`,
      interval: x.hotShareInterval,
      ...decision,
      why: `${roomText(x)}: ${growthText(x)}.${others ? ` The other fillfactors: ${others}.` : ""}`,
    },
    { [ROOM_HOT_WHAT]: x.roomRatio },
    {
      here: `HOT share ${pct(x.hotShare)} at fillfactor ${x.fillfactor}`,
      seed: DOC_ROOM,
      source: DOC,
      howToTest: `\`--set fillfactors=[100,${fillfactorForOneVersion(60)}]\` (07's row) tests it`,
    },
  );
}

function claim3(s: readonly ConditionSummary[]): ClaimCheck {
  const k = s.filter((x) => x.column === "k").sort((a, b) => b.fillfactor - a.fillfactor);
  if (!k.length) return notRun(DECLARATION_3, "needs the k pass", '`--set columns=["counter","k"]` runs it');
  const parts = k.map((x) => ({ x, decision: decide(RULE_3, x.hotShareInterval, { fmt: pctFmt }) }));
  const decisions: Decision[] = parts.map((p) => p.decision);
  const roomiest = [...k].sort((a, b) => (b.roomRatio ?? 0) - (a.roomRatio ?? 0))[0];
  return {
    ...DECLARATION_3,
    ours: parts
      .map((p) => `ff ${p.x.fillfactor}: ${p.x.hotShareInterval ? intervalText(p.x.hotShareInterval, pctFmt) : "n/a"}`)
      .join("; "),
    interval: parts[0].x.hotShareInterval,
    verdict: allOf(decisions),
    decidedBy: parts.map((p) => `ff ${p.x.fillfactor}: ${p.decision.verdict} — ${p.decision.decidedBy}`).join("; "),
    why:
      `${roomText(roomiest)}, and yet the k pass was HOT for ${pct(roomiest.hotShare)} of its rows: ` +
      `${pct(roomiest.newPageShare === undefined ? undefined : 1 - roomiest.newPageShare)} of its new versions ` +
      "stayed on their page and still were not HOT; " +
      `it inserted ${fmt(roomiest.indexEntriesPerRow)} index entries per row (${INDEXES.length} indexes).`,
  };
}

function claim4(s: readonly ConditionSummary[]): ClaimCheck {
  const hot = hotPass(s);
  const base = findSummary(s, { fillfactor: 100, column: "counter" });
  if (!hot || !base || hot === base)
    return notRun(
      DECLARATION_4,
      "needs the counter pass at fillfactor 100 and at a lower one",
      "`--set fillfactors=[100,50]`",
    );
  const hotI = shareInterval(hot, (r) => r.indexEntriesPerRow, "index entries per row, HOT pass, one per round");
  const baseI = shareInterval(
    base,
    (r) => (r.indexEntriesPerRow === undefined ? undefined : r.indexEntriesPerRow / INDEXES.length),
    "index entries per row per index, fillfactor 100, one per round",
  );
  if (!hotI || !baseI) return missing(DECLARATION_4, "needs pg_walinspect (the WAL's B-tree records) on the server");
  const parts = [decide(RULE_4_HOT, hotI), decide(RULE_4_NOT_HOT, baseI)];
  return atScale(
    {
      ...DECLARATION_4,
      ours:
        `HOT pass (ff ${hot.fillfactor}): ${intervalText(hotI, (x) => x.toFixed(3))} entries per row; ` +
        `ff 100: ${intervalText(baseI, (x) => x.toFixed(3))} per row per index`,
      interval: hotI,
      verdict: allOf(parts),
      decidedBy: `HOT pass: ${parts[0].verdict} — ${parts[0].decidedBy}; ff 100: ${parts[1].verdict} — ${parts[1].decidedBy}`,
      why:
        `HOT share ${pct(hot.hotShare)} vs ${pct(base.hotShare)}; the indexes grew ${fmt(hot.indexBytesPerRow, 1)} vs ` +
        `${fmt(base.indexBytesPerRow, 1)} B per updated row (pg_relation_size of ${INDEXES.join(", ")}).`,
    },
    { [ROOM_HOT_WHAT]: hot.roomRatio },
    {
      here: `${fmt(hot.indexEntriesPerRow, 3)} entries per row`,
      seed: DOC_ROOM,
      source: DOC,
      howToTest: "`--set fillfactors=[100,50]`",
    },
  );
}

function pairedClaim(
  s: readonly ConditionSummary[],
  declaration: Declaration,
  rule: Rule,
  pick: (r: RoundValues) => number | undefined,
  what: string,
  why: (hot: ConditionSummary, base: ConditionSummary) => string,
): ClaimCheck {
  const hot = hotPass(s);
  const base = findSummary(s, { fillfactor: 100, column: "counter" });
  if (!hot || !base || hot === base)
    return notRun(
      declaration,
      "needs the counter pass at fillfactor 100 and at a lower one",
      "`--set fillfactors=[100,50]`",
    );
  const interval = pairedQuotient(
    hot.rounds,
    base.rounds,
    pick,
    `${what}, ff ${hot.fillfactor} ÷ ff 100, one per round`,
  );
  if (!interval) return missing(declaration, `needs ${what} of both passes in the same rounds`);
  const decision = decide(rule, interval, { fmt: times });
  return atScale(
    {
      ...declaration,
      ours: `ff ${hot.fillfactor} ÷ ff 100: ${intervalText(interval, times)}`,
      interval,
      ...decision,
      why: why(hot, base),
    },
    { [ROOM_HOT_WHAT]: hot.roomRatio },
    { here: times(interval.estimate), seed: DOC_ROOM, source: DOC, howToTest: "`--set fillfactors=[100,50]`" },
  );
}

export function checkClaims(s: readonly ConditionSummary[]): ClaimCheck[] {
  return [
    claim1(s),
    claim2(s),
    claim3(s),
    claim4(s),
    pairedClaim(
      s,
      DECLARATION_5,
      RULE_5,
      (r) => r.walBytesPerRow,
      "WAL bytes per row",
      (hot, base) =>
        `WAL ${fmt(hot.walBytesPerRow, 0)} vs ${fmt(base.walBytesPerRow, 0)} B per updated row, of which full-page ` +
        `images ${fmt(hot.fpiPer1000Rows, 1)} vs ${fmt(base.fpiPer1000Rows, 1)} per 1,000 rows (the first change of ` +
        `each page after the checkpoint); index entries per row ${fmt(hot.indexEntriesPerRow)} vs ${fmt(base.indexEntriesPerRow)}.`,
    ),
    pairedClaim(
      s,
      DECLARATION_6,
      RULE_6,
      (r) => r.seconds,
      "seconds",
      (hot, base) =>
        `median ${fmt(hot.medianSeconds, 3)} s vs ${fmt(base.medianSeconds, 3)} s; HOT share ${pct(hot.hotShare)} vs ` +
        `${pct(base.hotShare)}, index entries per row ${fmt(hot.indexEntriesPerRow)} vs ${fmt(base.indexEntriesPerRow)}, ` +
        `new-page share ${pct(hot.newPageShare)} vs ${pct(base.newPageShare)}.`,
    ),
  ];
}

/** The planned position on the claims' regime factors (the keys of their `atScale`), by the page arithmetic. */
export function planned07(
  p: Pick<FillfactorHotParams, "fillfactors" | "padBytes">,
): Record<string, number | undefined> {
  const rooms = [...p.fillfactors].sort((a, b) => b - a).map((ff) => plannedRoom(ff, p.padBytes).ratio);
  return {
    [ROOM_WHAT]: p.fillfactors.includes(100) ? plannedRoom(100, p.padBytes).ratio : undefined,
    [ROOM_HOT_WHAT]: rooms.find((r) => r >= 1) ?? rooms[rooms.length - 1],
  };
}

export function plan07(p: FillfactorHotParams): ClaimPlan[] {
  return planClaims(DECLARATIONS, planned07(p));
}

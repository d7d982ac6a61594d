/** Notebook 07's figures per condition (fillfactor × updated column), from the raw trials. */
import { median } from "simple-statistics";
import { medianInterval } from "../../stats/intervals";
import { medianOfFinite, secondsSpread } from "../../stats/summary";
import { sumPresentCounters, type Counters } from "../../stats/counters";
import { BTREE_ENTRY_TYPES, walRecordCount } from "../../engines/postgres/wal-records";
import { checkpointOrAutovacuumRepeats, conditionGroups } from "../condition-groups";
import type { FillfactorHotCounterKey } from "./workload/table";
import { conditionKey, type FillfactorHotCondition, type FillfactorHotTrial } from "./workload/run-trials";

export type ConditionSummary = ReturnType<typeof summarise>[number];
export type RoundValues = ConditionSummary["rounds"][number];

type C = Counters<FillfactorHotCounterKey>;

const perRow = (c: C, n: number | undefined) =>
  n === undefined || !c["table.n_tup_upd"] ? undefined : n / c["table.n_tup_upd"];
/** Every B-tree leaf entry the pass's WAL records carry; undefined without pg_walinspect. */
const indexEntriesOf = (c: C) =>
  walRecordCount(
    c,
    BTREE_ENTRY_TYPES.map((t) => `Btree/${t}`),
  );

/** An outlier is one in time only: without the flagged, its counters stay (why: docs/statistics.md). */
export function summarise(trials: readonly FillfactorHotTrial[], options: { readonly withoutFlagged?: boolean } = {}) {
  return conditionGroups(trials, conditionKey).flatMap(({ all, failed, outlierRepeats }) => {
    const disturbedRepeats = checkpointOrAutovacuumRepeats(all);
    const group = options.withoutFlagged ? all.filter((t) => !disturbedRepeats.includes(t.repeat)) : all;
    if (!group.length) return [];
    const timed = options.withoutFlagged ? group.filter((t) => !outlierRepeats.includes(t.repeat)) : group;
    const c = group[0].condition;
    const of = (pick: (k: C) => number | undefined) =>
      medianOfFinite(group.map((t) => (t.counters ? pick(t.counters) : undefined)));
    const rounds = group.map((t) => {
      const k: C = t.counters ?? {};
      return {
        repeat: t.repeat,
        // NaN for an outlier's in the sensitivity summary (`withoutFlagged`).
        seconds: timed.includes(t) ? t.seconds : NaN,
        hotShare: perRow(k, k["table.n_tup_hot_upd"] ?? 0),
        walBytesPerRow: perRow(k, k["wal.bytes"]),
        indexEntriesPerRow: perRow(k, indexEntriesOf(k)),
      };
    });
    const shares = rounds.flatMap((r) => (r.hotShare === undefined ? [] : [r.hotShare]));
    const seconds = (timed.length ? timed : group).map((t) => t.seconds);
    return [
      {
        ...c,
        trials: group.length,
        failed,
        ...secondsSpread(seconds),
        seconds,
        hotShare: shares.length ? median(shares) : undefined,
        hotShareInterval: shares.length
          ? medianInterval(shares, `HOT share of the pass, ff ${c.fillfactor}, ${c.column}, one per round`)
          : undefined,
        // n_tup_newpage_upd, PostgreSQL 16+.
        newPageShare: of((k) => perRow(k, k["table.n_tup_newpage_upd"])),
        roomRatio: of((k) => k["room.ratio"]),
        rowsPerPage: of((k) => k["room.rows_per_page"]),
        freeBytesPerPage: of((k) => k["room.free_bytes_per_page"]),
        versionBytes: of((k) => k["room.version_bytes"]),
        indexEntriesPerRow: of((k) => perRow(k, indexEntriesOf(k))),
        indexBytesPerRow: of((k) => perRow(k, sumPresentCounters(k, "bytes.index."))),
        heapBytesPerRow: of((k) => perRow(k, k["bytes.heap"])),
        walBytesPerRow: of((k) => perRow(k, k["wal.bytes"])),
        fpiPer1000Rows: of((k) => 1000 * (perRow(k, k["wal.fpi"]) ?? NaN)),
        rounds,
        outlierRepeats,
        disturbedRepeats,
      },
    ];
  });
}

export const findSummary = (s: readonly ConditionSummary[], where: FillfactorHotCondition) =>
  s.find((x) => x.fillfactor === where.fillfactor && x.column === where.column);

/** The passes that updated `column`, highest fillfactor first. */
export const passesOf = (s: readonly ConditionSummary[], column: FillfactorHotCondition["column"]) =>
  s.filter((x) => x.column === column).sort((a, b) => b.fillfactor - a.fillfactor);

/** The HOT pass: the highest fillfactor whose counter pass had room (ratio ≥ 1), else the lowest run. */
export function hotPass(s: readonly ConditionSummary[]): ConditionSummary | undefined {
  const counter = passesOf(s, "counter");
  return counter.find((x) => (x.roomRatio ?? 0) >= 1) ?? counter[counter.length - 1];
}

export const fullPass = (s: readonly ConditionSummary[]) => findSummary(s, { fillfactor: 100, column: "counter" });

/** What both passes give (the HOT one and fillfactor 100's, claims 4–6), `none` unless both ran and differ. */
export const withPasses =
  <T, N = undefined>(f: (hot: ConditionSummary, base: ConditionSummary) => T, none?: N) =>
  (s: readonly ConditionSummary[]): T | N => {
    const [hot, base] = [hotPass(s), fullPass(s)];
    return hot && base && hot !== base ? f(hot, base) : (none as N);
  };

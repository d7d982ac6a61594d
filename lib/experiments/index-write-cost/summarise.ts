/** Per condition: median, ratio to 0 extra indexes paired within a repeat (wall and server time), counters. */
import type { OkOf } from "../../results/run-store";
import { pairedRatios } from "../../stats/intervals";
import { medianOf as intervalOf } from "../../stats/claim-statistics";
import { secondsSpread, medianOfFinite } from "../../stats/summary";
import { checkpointOrAutovacuumRepeats, conditionGroups } from "../condition-groups";
import { sumPresentCounters, type Counters as CountersOf } from "../../stats/counters";
import type { IndexWriteCounterKey } from "./workload/engine";
import type { Operation } from "./workload/operations";
import type { Engine } from "../../targets/engines";
import { BTREE_ENTRY_TYPES, walRecordCount } from "../../engines/postgres/wal-records";
import type { IndexWriteTrial } from "./workload/run-trials";
import { conditionKey, GROWTH_INDEXES, GROWTH_OPERATIONS } from "./workload/run-trials";

/** One condition's figures; the ratios are medians of per-repeat ratios to the 0-index condition in the same repeat. */
export type ConditionSummary = ReturnType<typeof summarise>[number];

type Counters = CountersOf<IndexWriteCounterKey>;
type Trial = OkOf<IndexWriteTrial>;

const medianOf = (trials: readonly Trial[], pick: (c: Counters) => number | undefined) =>
  medianOfFinite(trials.map((t) => (t.counters ? pick(t.counters) : undefined)));
const HEAP_RECORDS = ["INSERT", "INSERT+INIT", "UPDATE", "HOT_UPDATE", "UPDATE+INIT", "HOT_UPDATE+INIT"].map(
  (h) => `Heap/${h}`,
);
const SPLITS = ["Btree/SPLIT_L", "Btree/SPLIT_R"];
const ENTRIES = BTREE_ENTRY_TYPES.map((t) => `Btree/${t}`);

/** Index entries a trial inserted, by each engine's own counters. */
const INDEX_INSERTS: Readonly<Record<Engine, (c: Counters) => number | undefined>> = {
  postgresql: (c) => walRecordCount(c, ENTRIES),
  mongodb: (c) => sumPresentCounters(c, "mongo.index.", ".inserts"),
};

const valuesByRepeat = (group: readonly Trial[], pick: (t: Trial) => number | undefined) =>
  new Map(group.flatMap((t) => (Number.isFinite(pick(t)) ? [[t.repeat, pick(t) as number] as const] : [])));
const serverMs = (t: Trial) => t.counters?.["server.statement_ms"];
const perRow = (n: number | undefined, rows: number, scale = 1) => (n === undefined ? undefined : (scale * n) / rows);

/** `withoutFlagged`: leave out outliers and disturbed trials (the sensitivity check of the verdicts). */
export function summarise(trials: readonly IndexWriteTrial[], options: { readonly withoutFlagged?: boolean } = {}) {
  // Flags first, on every finished trial, so the sensitivity run leaves out exactly what is flagged.
  const groups = conditionGroups(trials, conditionKey).map((g) => {
    const disturbedRepeats = checkpointOrAutovacuumRepeats(g.all);
    const out = (t: Trial) => g.outlierRepeats.includes(t.repeat) || disturbedRepeats.includes(t.repeat);
    return { ...g, disturbedRepeats, kept: options.withoutFlagged ? g.all.filter((t) => !out(t)) : g.all };
  });
  const byCondition = new Map(groups.filter((g) => g.kept.length).map((g) => [conditionKey(g.kept[0].condition), g]));
  return [...byCondition.values()].map(({ kept: group, failed, outlierRepeats, disturbedRepeats }) => {
    const c = group[0].condition;
    const seconds = group.map((t) => t.seconds);
    const baseline = c.extraIndexes === 0 ? undefined : byCondition.get(conditionKey({ ...c, extraIndexes: 0 }))?.kept;
    const label = `paired ratios ${c.extraIndexes} / 0 extra indexes, one per repeat`;
    const paired = (pick: (t: Trial) => number | undefined) =>
      baseline ? pairedRatios(valuesByRepeat(group, pick), valuesByRepeat(baseline, pick)) : [];
    const repeatRatios = paired((t) => t.seconds);
    const ratioInterval = median(repeatRatios, label);
    const rows = c.rows;
    return {
      ...c,
      trials: group.length,
      failed,
      ...secondsSpread(seconds),
      seconds,
      ratio: c.extraIndexes === 0 ? 1 : ratioInterval?.estimate,
      ratioInterval,
      repeatRatios: baseline ? repeatRatios : undefined,
      serverRatioInterval: median(paired(serverMs), `${label}, server time`),
      serverMs: medianOf(group, (k) => k["server.statement_ms"]),
      // Time outside the server ÷ server time, k: it pulls a wall ratio towards 1, (k + server ratio) ÷ (k + 1).
      clientPerServer: medianOfFinite(
        group.map((t) => {
          const ms = serverMs(t);
          return ms ? (t.seconds * 1000 - ms) / ms : undefined;
        }),
      ),
      hotShare:
        c.operation === "insert"
          ? undefined
          : medianOf(group, (k) =>
              k["table.n_tup_upd"] ? (k["table.n_tup_hot_upd"] ?? 0) / k["table.n_tup_upd"] : undefined,
            ),
      walRecordsPerRow: medianOf(group, (k) => perRow(k["wal.records"], rows)),
      walBytesPerRow: medianOf(group, (k) => perRow(k["wal.bytes"], rows)),
      btreeInsertsPerRow: medianOf(group, (k) => perRow(INDEX_INSERTS[c.engine](k), rows)),
      btreeSplitsPer1000: medianOf(group, (k) => perRow(walRecordCount(k, SPLITS), rows, 1000)),
      heapRecordsPerRow: medianOf(group, (k) => perRow(walRecordCount(k, HEAP_RECORDS), rows)),
      indexBytes: medianOf(group, (k) => sumPresentCounters(k, "size.index.")),
      outlierRepeats,
      disturbedRepeats,
    };
  });
}

/** A condition by its size, operation and extra indexes; rows undefined: a size the run does not have. */
export type Cell = readonly [rows: number | undefined, operation: Operation, extraIndexes: number];

/** An engine's condition at the seed's heap: PostgreSQL's fillfactor 100 where it ran, else its first. */
export function conditionAt(
  summaries: readonly ConditionSummary[],
  engine: Engine,
  [rows, operation, extraIndexes]: Cell,
): ConditionSummary | undefined {
  const mine = summaries.filter((s) => s.engine === engine);
  const fillfactor = mine.some((s) => s.fillfactor === 100) ? 100 : (mine[0]?.fillfactor ?? null);
  return mine.find(
    (s) =>
      s.rows === rows && s.operation === operation && s.extraIndexes === extraIndexes && s.fillfactor === fillfactor,
  );
}

type PerRepeat = readonly { readonly repeat: number; readonly ratio: number }[];
const byRepeat = (ratios: PerRepeat | undefined) => new Map((ratios ?? []).map((r) => [r.repeat, r.ratio]));
/** Two lists of per-repeat ratios, paired by repeat number; their median with its interval (`of`). */
export const paired = (a?: PerRepeat, b?: PerRepeat) => pairedRatios(byRepeat(a), byRepeat(b));
export const median = (xs: PerRepeat, of: string) => intervalOf(xs, (x) => x.ratio, of);
/** R = t(k idx) ÷ t(0 idx) of condition a ÷ that of b, paired by repeat. */
export const RR = (s: readonly ConditionSummary[], e: Engine, a: Cell, b: Cell) =>
  paired(conditionAt(s, e, a)?.repeatRatios, conditionAt(s, e, b)?.repeatRatios);

/** The seed's largest size, where claim (b)'s growth ends. */
export const LARGE = 1_000_000;
export const sizesOf = (s: readonly ConditionSummary[]) => [...new Set(s.map((x) => x.rows))];
/** The compared size of a growth: the seed's 100k when run, else the largest size below 1M. */
export const compared = (sizes: readonly number[]) =>
  sizes.includes(100_000) ? 100_000 : sizes.filter((n) => n < LARGE).sort((a, b) => b - a)[0];
/** G(op): R at 1M ÷ R at the compared size (sizes ran in blocks: paired by repeat number). */
export const G = (s: readonly ConditionSummary[], e: Engine, op: Operation) =>
  RR(s, e, [LARGE, op, 5], [compared(sizesOf(s)), op, 5]);

/** The sizes at which the whole matrix ran (a growth size runs only (b)'s conditions); all if none tells them apart. */
export function matrixSizes(summaries: readonly ConditionSummary[]): number[] {
  const full = summaries.filter(
    (s) => !GROWTH_OPERATIONS.includes(s.operation) || !GROWTH_INDEXES.includes(s.extraIndexes),
  );
  return [...new Set((full.length ? full : summaries).map((s) => s.rows))].sort((a, b) => a - b);
}

/**
 * Notebook 07's claims on synthetic trials through the real summarise (no servers): each claim
 * reaches every verdict it can give, at and around its declared margins; swapping the updated
 * columns' labels flips held claims; the plan says what a profile can decide.
 */
import { test } from "node:test";
import assert from "node:assert/strict";
import { CLAIMS } from "./claims";
import { experiment } from ".";
import { judge } from "../../stats/claim-engine";
import { summarise } from "./summarise";
import { plannedRoom } from "./workload/page-model";
import type { FillfactorHotTrial } from "./workload/run-trials";
import type { UpdatedColumn } from "./params";
import { planText, type ClaimCheck } from "../../stats/claims";
import { assertEachDecidable } from "../../../test/support/verdicts";

const ROWS = 10_000;

/** What one pass did, per condition and round; by default the mechanism the documentation describes. */
interface Pass {
  readonly hotShare: number;
  readonly room: number;
  readonly entriesPerRow: number;
  readonly walPerRow: number;
  readonly seconds: number;
}

/** HOT when the page has room and no indexed column changes; a non-HOT row adds one entry to each of 2 indexes. */
function physical(ff: number, column: UpdatedColumn): Pass {
  const room = plannedRoom(ff, 60).ratio;
  const hotShare = column === "k" ? 0 : Math.min(1, room);
  return {
    hotShare,
    room,
    entriesPerRow: 2 * (1 - hotShare),
    walPerRow: 120 + 160 * (1 - hotShare),
    seconds: 0.5 + 0.4 * (1 - hotShare),
  };
}

function trials(o: {
  fillfactors?: readonly number[];
  repeats?: number;
  pass?: (ff: number, column: UpdatedColumn, repeat: number) => Partial<Pass>;
  relabel?: (column: UpdatedColumn) => UpdatedColumn;
}): FillfactorHotTrial[] {
  const out: FillfactorHotTrial[] = [];
  for (let repeat = 1; repeat <= (o.repeats ?? 5); repeat++)
    for (const ff of o.fillfactors ?? [100, 70, 50])
      for (const column of ["counter", "k"] as const) {
        const p = { ...physical(ff, column), ...o.pass?.(ff, column, repeat) };
        // A small wobble per round, different per condition, so that intervals have width.
        const w = 1 + 0.02 * Math.sin(repeat * 2.1 + ff * 0.3 + column.length);
        const label = o.relabel ? o.relabel(column) : column;
        out.push({
          key: `ff${ff}/${label}/r${repeat}`,
          condition: { fillfactor: ff, column: label },
          repeat,
          position: out.length,
          status: "ok",
          seconds: p.seconds * w,
          counters: {
            "table.n_tup_upd": ROWS,
            "table.n_tup_hot_upd": Math.round(p.hotShare * ROWS),
            "table.n_tup_newpage_upd": Math.round((1 - Math.min(1, p.room)) * ROWS),
            "room.ratio": p.room,
            "wal.bytes": p.walPerRow * w * ROWS,
            "walrec.Btree/INSERT_LEAF": Math.round(p.entriesPerRow * ROWS),
            checkpoints: 0,
            "table.autovacuum_count": 0,
          },
          startedAt: "",
          finishedAt: "",
        });
      }
  return out;
}

/** A claim's declared margin (an above/below rule). */
const margin = (id: string) => {
  const r = CLAIMS.claims.find((c) => c.id === id)?.rule;
  assert.ok(r && r.kind !== "inside", `claim ${id} has a margin`);
  return r.margin;
};
const checkClaims = (s: ReturnType<typeof summarise>) => judge(CLAIMS, s);
const claimsOf = (t: readonly FillfactorHotTrial[]) => checkClaims(summarise(t));
const byId = (claims: readonly ClaimCheck[], id: string) => {
  const c = claims.find((x) => x.id === id);
  assert.ok(c, `claim ${id} present`);
  return c;
};
const verdict = (t: readonly FillfactorHotTrial[], id: string) => byId(claimsOf(t), id);
/** Per-round values spread evenly from `low` to `high` (5 rounds: the interval is their range). */
const spreadOver = (low: number, high: number, repeat: number, n = 5) => low + ((high - low) * (repeat - 1)) / (n - 1);

test("07: the documented mechanism holds every claim; a run with the opposite outcome refutes each", () => {
  const held = claimsOf(trials({}));
  for (const c of held) assert.equal(c.verdict, "held", `${c.id}: ${c.decidedBy}`);
  const not = claimsOf(
    trials({
      pass: (ff, column) =>
        column === "k"
          ? { hotShare: 0.6 }
          : {
              hotShare: ff === 100 ? 0.9 : 0.1,
              entriesPerRow: 1.2,
              walPerRow: ff === 100 ? 100 : 300,
              seconds: ff === 100 ? 0.5 : 1,
            },
    }),
  );
  assertEachDecidable([held, not]);
  assert.match(byId(held, "2").ours, /; fillfactor 50$/, "the HOT pass is the highest fillfactor with room ≥ 1");
  assert.match(byId(held, "1").why, /room ratio 0\.01/, "why: the measured room of the pages");
});

test("07 (1): the HOT share at fillfactor 100 against its 50 % margin", () => {
  const at = (low: number, high: number) =>
    verdict(
      trials({ pass: (ff, c, r) => (ff === 100 && c === "counter" ? { hotShare: spreadOver(low, high, r) } : {}) }),
      "1",
    );
  assert.equal(at(0.4, margin("1") - 0.01).verdict, "held");
  assert.equal(at(margin("1"), 0.6).verdict, "did not hold", "at the margin: not below it");
  assert.equal(at(0.45, 0.55).verdict, "inconclusive");
  // Outside its regime (a page with room for every version) the claim is not tested.
  const roomy = verdict(trials({ pass: (ff, c) => (ff === 100 && c === "counter" ? { room: 1.2 } : {}) }), "1");
  assert.equal(roomy.verdict, "not tested at this scale", roomy.decidedBy);
});

test("07 (2): the HOT share where the page has room, against its 50 % margin; not tested without such a fillfactor", () => {
  const at = (low: number, high: number) =>
    verdict(
      trials({ pass: (ff, c, r) => (ff === 50 && c === "counter" ? { hotShare: spreadOver(low, high, r) } : {}) }),
      "2",
    );
  assert.equal(at(margin("2") + 0.01, 0.9).verdict, "held");
  assert.equal(at(0.3, margin("2")).verdict, "did not hold", "at the margin: not above it");
  assert.equal(at(0.4, 0.6).verdict, "inconclusive");
  const noRoom = verdict(trials({ fillfactors: [100, 70] }), "2");
  assert.equal(noRoom.verdict, "not tested at this scale", noRoom.decidedBy);
  assert.match(noRoom.decidedBy, /fillfactors=\[100,5\d\]/, "says what would test it");
  assert.match(
    noRoom.decidedBy,
    /room ratio of the HOT pass 0\.44 \(needs ≥ 1\)/,
    "the distance from the documented threshold",
  );
  const three = verdict(trials({ repeats: 3 }), "2");
  assert.equal(three.verdict, "inconclusive", "3 rounds cover the median with 75 % only");
});

test("07 (3): an indexed-column UPDATE is HOT at no fillfactor; one fillfactor with HOT updates refutes it", () => {
  assert.equal(verdict(trials({}), "3").verdict, "held");
  const some = verdict(
    trials({ pass: (ff, c, r) => (ff === 70 && c === "k" ? { hotShare: spreadOver(0.02, 0.04, r) } : {}) }),
    "3",
  );
  assert.equal(some.verdict, "did not hold", some.decidedBy);
  assert.match(some.decidedBy, /ff 70: .*wholly at or above 1\.0 %/);
  const edge = verdict(
    trials({ pass: (ff, c, r) => (ff === 50 && c === "k" ? { hotShare: spreadOver(0, 2 * margin("3"), r) } : {}) }),
    "3",
  );
  assert.equal(edge.verdict, "inconclusive", edge.decidedBy);
});

test("07 (4): index entries per row of the HOT and the non-HOT pass", () => {
  const hotAt = (e: number) =>
    verdict(trials({ pass: (ff, c) => (ff === 50 && c === "counter" ? { entriesPerRow: e } : {}) }), "4").verdict;
  assert.equal(hotAt(margin("4") - 0.01), "held");
  assert.equal(hotAt(margin("4")), "did not hold");
  const baseAt = (e: number) =>
    verdict(trials({ pass: (ff, c) => (ff === 100 && c === "counter" ? { entriesPerRow: e } : {}) }), "4").verdict;
  assert.equal(baseAt(1.8), "held", "0.9 per index: inside 0.9–1.1");
  assert.equal(baseAt(1), "did not hold", "one entry for two indexes is not one per index");
  const noWal = trials({}).map((t) => ({
    ...t,
    counters: Object.fromEntries(Object.entries(t.counters ?? {}).filter(([k]) => !k.startsWith("walrec."))),
  }));
  const missing = verdict(noWal, "4");
  assert.equal(missing.verdict, "inconclusive");
  assert.match(missing.decidedBy, /pg_walinspect/);
});

test("07 (5) and (6): paired ratios of WAL and seconds, HOT pass ÷ fillfactor 100, against 1", () => {
  const walAt = (hot: number, base: number) =>
    verdict(
      trials({
        pass: (ff, c) =>
          c === "counter" && ff === 50 ? { walPerRow: hot } : c === "counter" && ff === 100 ? { walPerRow: base } : {},
      }),
      "5",
    ).verdict;
  assert.equal(walAt(100, 200), "held");
  assert.equal(walAt(210, 200), "did not hold");
  assert.equal(walAt(200 * margin("5"), 200), "inconclusive", "on the margin, the wobble straddles it");
  const timeAt = (hot: number) =>
    verdict(
      trials({
        pass: (ff, c) =>
          c === "counter" && ff === 50 ? { seconds: hot } : c === "counter" && ff === 100 ? { seconds: 1 } : {},
      }),
      "6",
    ).verdict;
  assert.equal(timeAt(0.7), "held");
  assert.equal(timeAt(1.3), "did not hold");
});

test("07: swapping the updated columns' labels flips the held claims 2 and 3", () => {
  const swapped = claimsOf(trials({ relabel: (c) => (c === "k" ? "counter" : "k") }));
  assert.equal(byId(swapped, "2").verdict, "did not hold");
  assert.equal(byId(swapped, "3").verdict, "did not hold");
});

test("07's plan: default decides all six claims; without a roomy fillfactor, (2), (4), (5), (6) are out of regime", () => {
  assert.match(planText(experiment.prospect(experiment.params("default"))), /can decide 6 of 6 claims/);
  assert.match(planText(experiment.prospect(experiment.params("smoke"))), /can decide 6 of 6 claims/);
  const plans = experiment.prospect(experiment.params("default", { fillfactors: [100, 80] }));
  assert.deepEqual(
    plans.filter((p) => p.prospect === "out of regime").map((p) => p.id),
    ["2", "4", "5", "6"],
  );
});

test("07's parameters: refused before anything starts", () => {
  assert.throws(() => experiment.params("default", { batchRows: 200_000 }), /batchRows/);
  assert.throws(() => experiment.params("default", { fillfactors: [100, 5] }), /fillfactors/);
  assert.throws(() => experiment.params("default", { columns: ["pad" as UpdatedColumn] }), /columns/);
  assert.deepEqual(experiment.params("default", { fillfactors: [50, 100, 50] }).fillfactors, [100, 50]);
});

test("07's sensitivity check drops an outlier's seconds, not its counters; the regime names the documented threshold", () => {
  const slowed = trials({ pass: (ff, c, r) => (ff === 50 && c === "counter" && r === 3 ? { seconds: 5 } : {}) });
  const flagged = summarise(slowed).find((s) => s.fillfactor === 50 && s.column === "counter");
  assert.deepEqual(flagged?.outlierRepeats, [3]);
  const without = checkClaims(summarise(slowed, { withoutFlagged: true }));
  assert.equal(byId(without, "2").verdict, "held", "the HOT share keeps all five rounds");
  assert.match(byId(without, "6").ours, /n = 4/, "the time ratio leaves the outlier's round out");
  assert.match(byId(claimsOf(trials({})), "1").scale ?? "", /room ratio 0\.0\d+ \(the documented threshold: 1\)/);
});

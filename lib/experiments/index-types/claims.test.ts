/**
 * Notebook 08's claims on synthetic trials through the real summarise (no servers): the documented
 * behaviour holds every claim and its opposite refutes each; each claim at and around its margins;
 * out of its regime (a small table, no pending-list flush) a magnitude is not tested.
 */
import { test } from "node:test";
import assert from "node:assert/strict";
import { CLAIMS } from "./claims";
import { experiment } from ".";
import { judge } from "../../stats/claim-engine";
import { summarise } from "./summarise";
import { INDEX_KINDS, type IndexKind, type Operation } from "./params";
import { insidePredicate, type IndexTypesTrial } from "./workload";
import { planText, type ClaimCheck } from "../../stats/claims";
import { assertEachDecidable } from "../../../test/support/verdicts";

const SIZE = { rows: 20_000, batchRows: 200, matchEvery: 10 };
const BATCHES = SIZE.rows / SIZE.batchRows;

/** One stream or pass of a kind: its batches' ms and WAL bytes per row, its index bytes, its flushes. */
interface Shape {
  readonly ms: (batch: number) => number;
  readonly walPerRow: (batch: number) => number;
  readonly indexBytes: number;
  readonly heapPages: number;
  readonly flushes?: number;
}

const flat = (x: number) => () => x;
/** The documented behaviour: BRIN small and nearly free, GIN fast but for one flush, the partial index free outside. */
const DOCUMENTED: Readonly<Record<IndexKind, Shape>> = {
  none: { ms: flat(10), walPerRow: flat(250), indexBytes: 0, heapPages: 2000 },
  btree: { ms: flat(14), walPerRow: flat(330), indexBytes: 2e6, heapPages: 2000 },
  hash: { ms: flat(13), walPerRow: flat(340), indexBytes: 3e6, heapPages: 2000 },
  brin: { ms: flat(10.5), walPerRow: flat(255), indexBytes: 24_576, heapPages: 2000 },
  "gin-fastupdate": {
    ms: (b) => (b === 50 ? 90 : 12),
    walPerRow: flat(460),
    indexBytes: 4e6,
    heapPages: 2000,
    flushes: 1,
  },
  "gin-nofastupdate": { ms: flat(20), walPerRow: flat(1400), indexBytes: 8e5, heapPages: 2000 },
  partial: {
    ms: (b) => (insidePredicate(b, SIZE.matchEvery) ? 14 : 10),
    walPerRow: (b) => (insidePredicate(b, SIZE.matchEvery) ? 330 : 250),
    indexBytes: 2e5,
    heapPages: 2000,
  },
};

function trials(
  o: { repeats?: number; shape?: (kind: IndexKind, op: Operation, repeat: number) => Partial<Shape> } = {},
) {
  const out: IndexTypesTrial[] = [];
  for (let repeat = 1; repeat <= (o.repeats ?? 5); repeat++)
    for (const kind of INDEX_KINDS)
      for (const operation of ["insert", "update"] as const) {
        const s = { ...DOCUMENTED[kind], ...o.shape?.(kind, operation, repeat) };
        // A wobble per round, different per condition, so that paired intervals have width.
        const w = 1 + 0.02 * Math.sin(repeat * 2.1 + kind.length * 0.7 + operation.length);
        const unitMs = Array.from({ length: BATCHES }, (_, b) => s.ms(b) * w);
        out.push({
          key: `${kind}/${operation}/r${repeat}`,
          condition: { kind, operation },
          repeat,
          position: out.length,
          status: "ok",
          seconds: unitMs.reduce((a, b) => a + b, 0) / 1000,
          unitMs,
          unitWalBytes: unitMs.map((_, b) => s.walPerRow(b) * SIZE.batchRows * (1 + (w - 1) / 20)),
          ...(s.flushes === undefined
            ? {}
            : { pendingPages: unitMs.map((_, b) => (s.flushes && b >= 50 ? b - 49 : b + 1)) }),
          counters: {
            "index.bytes": s.indexBytes * w,
            "heap.bytes": s.heapPages * 8192,
            checkpoints: 0,
            ...(s.flushes === undefined ? {} : { "pending.flushes": s.flushes }),
          },
          startedAt: "",
          finishedAt: "",
        });
      }
  return out;
}

/** A claim's declared rule: the margin of an above/below rule, the band of an inside one. */
const ruleOf = (id: string) => {
  const r = CLAIMS.claims.find((c) => c.id === id)?.rule;
  assert.ok(r, `claim ${id} has a rule`);
  return r;
};
const margin = (id: string) => {
  const r = ruleOf(id);
  assert.ok(r.kind !== "inside", `claim ${id}: a margin`);
  return r.margin;
};
const band = (id: string) => {
  const r = ruleOf(id);
  assert.ok(r.kind === "inside", `claim ${id}: a band`);
  return r;
};
const claimsOf = (t: readonly IndexTypesTrial[]) => judge(CLAIMS, summarise(t, SIZE));
const byId = (claims: readonly ClaimCheck[], id: string) => {
  const c = claims.find((x) => x.id === id);
  assert.ok(c, `claim ${id} present`);
  return c;
};
const verdict = (t: readonly IndexTypesTrial[], id: string) => byId(claimsOf(t), id);
/** Per-round values spread evenly from `low` to `high` (5 rounds: the interval is their range). */
const spreadOver = (low: number, high: number, repeat: number, n = 5) => low + ((high - low) * (repeat - 1)) / (n - 1);

test("08: the documented behaviour holds every claim; the opposite refutes each", () => {
  const held = claimsOf(trials());
  for (const c of held) assert.equal(c.verdict, "held", `${c.id}: ${c.decidedBy}`);
  const opposite = claimsOf(
    trials({
      shape: (kind) =>
        kind === "brin"
          ? { ms: flat(14), walPerRow: flat(330), indexBytes: 2e6 }
          : kind === "gin-fastupdate"
            ? { ms: flat(25) }
            : kind === "gin-nofastupdate"
              ? { ms: (b) => (b === 50 ? 90 : 20) }
              : kind === "partial"
                ? { ms: flat(14), walPerRow: flat(330) }
                : {},
    }),
  );
  assertEachDecidable([held, opposite]);
  assert.match(
    byId(held, "b2").why,
    /1 flush\(es\) per stream, the flushing batches \d+\.\d ms/,
    "why: the flush, from the counters",
  );
});

test("08 (a1): BRIN's size ÷ the B-tree's against its margin; not tested on a small table", () => {
  const at = (low: number, high: number) =>
    verdict(
      trials({ shape: (k, _op, r) => (k === "brin" ? { indexBytes: 2e6 * spreadOver(low, high, r) } : {}) }),
      "a1",
    );
  assert.equal(at(0.05, margin("a1") * 0.99).verdict, "held");
  assert.equal(at(margin("a1") * 1.01, 0.2).verdict, "did not hold");
  assert.equal(at(0.08, 0.12).verdict, "inconclusive");
  const small = verdict(trials({ shape: () => ({ heapPages: 100 }) }), "a1");
  assert.equal(small.verdict, "not tested at this scale", small.decidedBy);
  assert.match(small.decidedBy, /heap pages of the table 100 pages/);
});

test("08 (a2): BRIN's cost over none ÷ the B-tree's, in time and WAL: held only when both are below half", () => {
  const at = (ms: number, wal: number) =>
    verdict(trials({ shape: (k) => (k === "brin" ? { ms: flat(ms), walPerRow: flat(wal) } : {}) }), "a2").verdict;
  assert.equal(at(10.5, 255), "held");
  assert.equal(at(13, 255), "did not hold", "time: (13 − 10) ÷ (14 − 10) = 0.75");
  assert.equal(at(10.5, 300), "did not hold", "WAL: 50 ÷ 80");
});

test("08 (b1)–(b3): GIN's median batch lower with fastupdate, its slowest batch higher, its flushing batch slow; b2 needs a flush", () => {
  const median = (on: number) =>
    verdict(trials({ shape: (k) => (k === "gin-fastupdate" ? { ms: (b) => (b === 50 ? 90 : on) } : {}) }), "b1");
  assert.equal(median(15).verdict, "held");
  assert.equal(median(22).verdict, "did not hold");
  const slowest = (flush: number) =>
    verdict(trials({ shape: (k) => (k === "gin-fastupdate" ? { ms: (b) => (b === 50 ? flush : 12) } : {}) }), "b2")
      .verdict;
  assert.equal(slowest(20 * margin("b2") * 1.1), "held");
  assert.equal(slowest(25), "did not hold", "1.25× the slowest batch without: not much slower");
  assert.equal(slowest(20 * margin("b2")), "inconclusive", "on the margin, the wobble straddles it");
  const noFlush = verdict(trials({ shape: (k) => (k === "gin-fastupdate" ? { flushes: 0 } : {}) }), "b2");
  assert.equal(noFlush.verdict, "not tested at this scale", noFlush.decidedBy);
  // (b3), the lab's check: the flushing batch against the median batch of its own stream (12 ms).
  const flushAt = (low: number, high: number) =>
    verdict(
      trials({
        shape: (k, _op, r) =>
          k === "gin-fastupdate" ? { ms: (b) => (b === 50 ? 12 * spreadOver(low, high, r) : 12) } : {},
      }),
      "b3",
    ).verdict;
  assert.equal(flushAt(margin("b3") * 1.05, 8), "held");
  assert.equal(flushAt(1, margin("b3") * 0.97), "did not hold");
  assert.equal(flushAt(2, 4), "inconclusive");
  assert.equal(
    verdict(trials({ shape: (k) => (k === "gin-fastupdate" ? { flushes: 0 } : {}) }), "b3").verdict,
    "inconclusive",
    "no flush seen: nothing to compare",
  );
});

test("08 (c): rows outside the partial index's predicate cost as much as with no index, within its bands", () => {
  const at = (low: number, high: number, wal = 250) =>
    verdict(
      trials({
        shape: (k, _op, r) =>
          k === "partial"
            ? {
                ms: (b) => (insidePredicate(b, SIZE.matchEvery) ? 14 : 10 * spreadOver(low, high, r)),
                walPerRow: (b) => (insidePredicate(b, SIZE.matchEvery) ? 330 : wal),
              }
            : {},
      }),
      "c",
    ).verdict;
  assert.equal(at(0.97, 1.03), "held");
  assert.equal(at(band("c").high * 1.02, 1.3), "did not hold");
  assert.equal(at(1.05, 1.15), "inconclusive");
  assert.equal(at(0.99, 1.01, 270), "did not hold", "8 % more WAL per row outside the predicate");
  assert.equal(verdict(trials({ repeats: 3 }), "c").verdict, "inconclusive", "3 rounds cover the median with 75 %");
});

test("08's plan: smoke cannot decide the BRIN and flush claims; default can decide all six", () => {
  assert.match(planText(experiment.prospect(experiment.params("default"))), /can decide 6 of 6 claims/);
  const smoke = experiment.prospect(experiment.params("smoke"));
  assert.deepEqual(
    smoke.filter((p) => p.prospect === "out of regime").map((p) => p.id),
    ["a1", "a2", "b2"],
  );
});

test("08's parameters: refused before anything starts", () => {
  assert.throws(() => experiment.params("smoke", { batchRows: 10_000 }), /batchRows/);
  assert.throws(() => experiment.params("smoke", { kinds: ["gist" as IndexKind] }), /kinds/);
  assert.deepEqual(experiment.params("smoke", { kinds: ["partial", "none"] }).kinds, ["none", "partial"]);
});

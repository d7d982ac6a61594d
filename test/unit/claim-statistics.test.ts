/**
 * The statistics several notebooks' claims share (stats/claim-statistics), on small hand-made units
 * whose medians, pairings and flags can be read off.
 */
import { test } from "node:test";
import assert from "node:assert/strict";
import {
  between,
  flaggedUnits,
  medianOf,
  pairedQuotient,
  pairedValues,
  quotient,
} from "../../lib/stats/claim-statistics";

interface Unit {
  readonly repeat: number;
  readonly x?: number;
}

test("medianOf leaves out missing and non-finite values, and gives nothing when none is left", () => {
  const units: Unit[] = [
    { repeat: 1, x: 3 },
    { repeat: 2 },
    { repeat: 3, x: 1 },
    { repeat: 4, x: NaN },
    { repeat: 5, x: 2 },
  ];
  const i = medianOf(units, (u) => u.x, "x per repeat");
  assert.equal(i?.n, 3);
  assert.equal(i?.estimate, 2);
  assert.equal(i?.low, 1);
  assert.equal(i?.high, 3);
  assert.equal(i?.of, "x per repeat");
  assert.equal(
    medianOf([{ repeat: 1 }], (u: Unit) => u.x, "none"),
    undefined,
  );
});

test("quotient refuses a missing side and a denominator at or below 0", () => {
  assert.equal(quotient(6, 3), 2);
  assert.equal(quotient(6, 0), undefined);
  assert.equal(quotient(6, -1), undefined);
  assert.equal(quotient(undefined, 3), undefined);
  assert.equal(quotient(6, undefined), undefined);
});

test("pairedValues pairs by key, only units both sides ran, in the top side's order", () => {
  const top = [
    { r: 1, v: 10 },
    { r: 2, v: 20 },
    { r: 4, v: 40 },
  ];
  const bottom = [
    { k: 4, w: 4 },
    { k: 1, w: 2 },
    { k: 3, w: 3 },
  ];
  const v = pairedValues(top, bottom, { top: (t) => t.r, bottom: (b) => b.k }, (t, b) => t.v - b.w);
  assert.deepEqual(v, [8, 36]);
  // A result that is not a number is left out.
  assert.deepEqual(
    pairedValues(top, bottom, { top: (t) => t.r, bottom: (b) => b.k }, (t, b) => (t.r === 1 ? undefined : t.v / b.w)),
    [10],
  );
});

test("pairedQuotient is the median of per-unit quotients, not the quotient of medians", () => {
  // Per repeat 10/5 = 2, 20/20 = 1, 40/10 = 4 (repeat 9 has no top): median 2 over [1, 4], n = 3.
  const top: Unit[] = [
    { repeat: 1, x: 10 },
    { repeat: 2, x: 20 },
    { repeat: 3, x: 40 },
  ];
  const bottom: Unit[] = [
    { repeat: 1, x: 5 },
    { repeat: 2, x: 20 },
    { repeat: 3, x: 10 },
    { repeat: 9, x: 1 },
  ];
  const i = pairedQuotient(
    top,
    bottom,
    (u) => u.repeat,
    (u) => u.x,
    "top ÷ bottom per repeat",
  );
  assert.equal(i?.n, 3);
  assert.equal(i?.estimate, 2);
  assert.equal(i?.low, 1);
  assert.equal(i?.high, 4);
  assert.equal(
    pairedQuotient(
      top,
      [{ repeat: 7, x: 1 }],
      (u) => u.repeat,
      (u) => u.x,
      "",
    ),
    undefined,
  );
});

test("between says how a counter moved, each side formatted, a missing side as the formatter says", () => {
  const fmt = (x: number | undefined) => (x === undefined ? "n/a" : x.toFixed(1));
  assert.equal(
    between<Unit>({ repeat: 1, x: 1 }, { repeat: 2, x: 2.25 })((u) => u.x, fmt),
    "1.0 → 2.3",
  );
  assert.equal(
    between<Unit>({ repeat: 1 }, { repeat: 2, x: 2 })((u) => u.x, fmt),
    "n/a → 2.0",
  );
});

test("flaggedUnits counts units with a reason and names them with their reasons", () => {
  const units = [
    { key: "r1", checkpoints: 1, outlier: false },
    { key: "r2", checkpoints: 0, outlier: false },
    { key: "r3", checkpoints: 2, outlier: true },
  ];
  const f = flaggedUnits(
    "round",
    units,
    (u) => [u.checkpoints ? `${u.checkpoints} checkpoint(s)` : "", u.outlier ? "outlier" : ""],
    (u) => u.key,
    "No round was flagged.",
  );
  assert.deepEqual(f, {
    noun: "round",
    count: 2,
    detail: "r1: 1 checkpoint(s); r3: 2 checkpoint(s), outlier",
    none: "No round was flagged.",
  });
  assert.equal(
    flaggedUnits(
      "round",
      [units[1]],
      () => [""],
      (u) => u.key,
      "none",
    ).count,
    0,
  );
});

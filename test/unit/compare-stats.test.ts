import { test } from "node:test";
import assert from "node:assert/strict";
import prand from "pure-rand";
import { change, DEFAULT_ALPHA, mannWhitney, conditionInterval, significant } from "../../lib/compare/stats";

/** Seeded standard normal draws (Box–Muller). */
function normals(seed: number): () => number {
  const rng = prand.xoroshiro128plus(seed);
  const uniform = () => (prand.unsafeUniformIntDistribution(0, 2 ** 30 - 1, rng) + 0.5) / 2 ** 30;
  return () => Math.sqrt(-2 * Math.log(uniform())) * Math.cos(2 * Math.PI * uniform());
}

function sample(draw: () => number, n: number, mean: number): number[] {
  return Array.from({ length: n }, () => mean + draw());
}

/** Every split of ranks 1..2n into two sides of n: the exact chance that p ≤ α when nothing changed. */
function attainedSize(n: number, alpha: number): number {
  const ranks = Array.from({ length: 2 * n }, (_, i) => i + 1);
  let flagged = 0;
  let total = 0;
  const pick = (start: number, chosen: number[]): void => {
    if (chosen.length === n) {
      const b = chosen;
      const a = ranks.filter((r) => !b.includes(r));
      total++;
      if (significant(mannWhitney(a, b).p, alpha)) flagged++;
      return;
    }
    for (let i = start; i < ranks.length; i++) pick(i + 1, [...chosen, ranks[i]]);
  };
  pick(0, []);
  return flagged / total;
}

test("exact Mann–Whitney p-values match the tables: 2 vs 2, 3 vs 3, 5 vs 5, ties", () => {
  assert.ok(Math.abs(mannWhitney([1, 2], [3, 4]).p - 1 / 3) < 1e-12, "2 vs 2 fully separated: 2/6");
  assert.ok(Math.abs(mannWhitney([1, 2, 3], [4, 5, 6]).p - 0.1) < 1e-12, "3 vs 3 fully separated: 2/20");
  assert.ok(Math.abs(mannWhitney([4, 5, 6], [1, 2, 3]).p - 0.1) < 1e-12, "two-sided: the other direction too");
  assert.ok(Math.abs(mannWhitney([1, 2, 3, 4, 5], [6, 7, 8, 9, 10]).p - 2 / 252) < 1e-12, "5 vs 5: 2/252");
  assert.ok(Math.abs(mannWhitney([1, 2, 3], [4, 5, 6]).minP - 0.1) < 1e-12);
  assert.equal(mannWhitney([1, 2, 3], [4, 5, 6]).u, 9);
  assert.equal(mannWhitney([2, 2, 2], [2, 2, 2]).p, 1, "all tied: no evidence at all");
  // One overlap in 3 vs 3: U = 8 of 9 → P(|U − 4.5| ≥ 3.5) = 4/20.
  assert.ok(Math.abs(mannWhitney([1, 2, 4], [3, 5, 6]).p - 0.2) < 1e-12);
  assert.throws(() => mannWhitney([], [1]), /at least one value/);
});

test("a clear shift is flagged (5 vs 5 and 3 vs 3, 4 standard deviations)", () => {
  const draw = normals(7);
  for (const n of [3, 5]) {
    const a = sample(draw, n, 10);
    const b = sample(draw, n, 14);
    const c = change(a, b);
    assert.ok(c.distinguishable, `n=${n}: p=${c.test.p}`);
    assert.ok(c.ratio > 1.2 && c.ciLow > 1, `ratio ${c.ratio} [${c.ciLow}, ${c.ciHigh}]`);
  }
  assert.equal(change([1, 2], [30, 40]).distinguishable, false, "2 vs 2 can never be told from noise at α = 0.10");
});

test("identical distributions are flagged at the stated false-positive rate (binomial bound, 3000 pairs)", () => {
  for (const n of [3, 5]) {
    const size = attainedSize(n, DEFAULT_ALPHA);
    assert.ok(size <= DEFAULT_ALPHA + 1e-12, `the exact size ${size} is at most α`);
    if (n === 3) assert.ok(Math.abs(size - 0.1) < 1e-12, "3 vs 3: exactly α");
    const draw = normals(1000 + n);
    const runs = 3000;
    let flagged = 0;
    // The test alone (change() adds a bootstrap interval that costs 2 ms a call and decides nothing here).
    for (let i = 0; i < runs; i++) if (significant(mannWhitney(sample(draw, n, 5), sample(draw, n, 5)).p)) flagged++;
    const rate = flagged / runs;
    // 4 binomial standard deviations: a correct test fails this about once in 16,000 seeds; a test
    // at the wrong level (one-sided p, "<" instead of "≤", 0.05) is far outside it.
    const bound = 4 * Math.sqrt((size * (1 - size)) / runs);
    assert.ok(Math.abs(rate - size) <= bound, `n=${n}: observed ${rate}, nominal ${size} ± ${bound.toFixed(4)}`);
  }
});

test("median interval: min–max with its honest coverage below 6 values, order statistics above", () => {
  const three = conditionInterval([3, 1, 2]);
  assert.deepEqual([three.median, three.low, three.high], [2, 1, 3]);
  assert.equal(three.coverage, 0.75);
  const ten = conditionInterval([10, 1, 2, 3, 4, 5, 6, 7, 8, 9]);
  assert.deepEqual([ten.median, ten.low, ten.high], [5.5, 2, 9]);
  assert.ok(Math.abs(ten.coverage - (1 - (2 * 11) / 1024)) < 1e-12);
  assert.throws(() => conditionInterval([]), /no values/);
});

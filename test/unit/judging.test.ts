/**
 * The judging machinery at its margins: intervals that are what their label says, and decide()
 * reaching each verdict it can give. No servers; milliseconds.
 */
import { test } from "node:test";
import assert from "node:assert/strict";
import {
  allOf,
  claimRows,
  decide,
  derived,
  holmRefutations,
  isEvidence,
  kindText,
  moreRepeats,
  planClaims,
  planText,
  repeatsForCoverage,
  signTestP,
  verdictText,
  sensitivitySentence,
  withSensitivity,
  type ClaimCheck,
  type Rule,
} from "../../lib/stats/claims";
import { probit } from "simple-statistics";
import { intervalLabel, medianInterval, outlierFlags, pairedRatios, type Interval } from "../../lib/stats/intervals";
import { orderSeed, rotated, seededShuffle } from "../../lib/stats/order";

const iv = (low: number, high: number, n = 6, coverage = 0.969): Interval => ({
  estimate: (low + high) / 2,
  low,
  high,
  n,
  coverage,
  of: "test",
});

test("medianInterval: exact coverage of the order-statistic interval; a range of 3 is labelled as a range", () => {
  const three = medianInterval([3, 1, 2], "x");
  assert.deepEqual([three.low, three.estimate, three.high], [1, 2, 3]);
  assert.equal(three.coverage, 0.75, "the min–max of 3 covers the median with 1 − 2·0.5³");
  assert.match(intervalLabel(three), /^range of n = 3 \(covers the median 75 %\)$/);
  const five = medianInterval([5, 4, 3, 2, 1], "x");
  assert.equal(five.coverage, 0.9375);
  const six = medianInterval([6, 5, 4, 3, 2, 1], "x");
  assert.equal(six.coverage, 1 - 2 / 64);
  assert.match(intervalLabel(six), /96\.9 % CI of the median, n = 6 \(the range\)/);
  // n = 8: the 2nd and 7th order statistics already reach 93.0 % ≥ 90 %, so the interval is narrower than the range.
  const eight = medianInterval([1, 2, 3, 4, 5, 6, 7, 8], "x");
  assert.deepEqual([eight.low, eight.high], [2, 7]);
  assert.ok(Math.abs(eight.coverage - (1 - (2 * 9) / 256)) < 1e-12);
  assert.match(intervalLabel(eight), /^93 % CI of the median, n = 8$/);
  // At 95 %, n = 8 still needs the range; n = 9 reaches 96.1 % with the 2nd and 8th.
  assert.deepEqual([medianInterval([1, 2, 3, 4, 5, 6, 7, 8], "x", 0.95).low], [1]);
  const nine = medianInterval([1, 2, 3, 4, 5, 6, 7, 8, 9], "x", 0.95);
  assert.deepEqual([nine.low, nine.high], [2, 8]);
  assert.ok(Math.abs(nine.coverage - (1 - (2 * 10) / 512)) < 1e-12);
});

test("medianInterval: its coverage is what it says, checked by simulation (seeded)", () => {
  // Uniform(0,1) samples, true median 0.5: the share of intervals that cover it ≈ the stated coverage.
  let state = 12345;
  const rand = () => (state = (Math.imul(state, 1103515245) + 12345) >>> 0) / 2 ** 32;
  for (const n of [5, 9]) {
    let covered = 0;
    let stated = 0;
    const runs = 4000;
    for (let i = 0; i < runs; i++) {
      const x = Array.from({ length: n }, rand);
      const m = medianInterval(x, "sim");
      stated = m.coverage;
      if (m.low <= 0.5 && 0.5 <= m.high) covered++;
    }
    const share = covered / runs;
    // Binomial standard error at 4000 runs is < 0.005: 4 SE either way.
    assert.ok(Math.abs(share - stated) < 0.02, `n = ${n}: covered ${share}, stated ${stated}`);
  }
});

test("pairedRatios pair by repeat and drop repeats with only one side", () => {
  const r = pairedRatios(
    new Map([
      [1, 2],
      [2, 4],
      [3, 9],
    ]),
    new Map([
      [1, 1],
      [2, 2],
    ]),
  );
  assert.deepEqual(r, [
    { repeat: 1, ratio: 2 },
    { repeat: 2, ratio: 2 },
  ]);
});

test("pairedRatios pair by the repeat's key, not by the order the maps were filled in", () => {
  // A resumed run appends repeats out of order: the baseline's map lists repeat 3 first.
  const r = pairedRatios(
    new Map([
      [1, 10],
      [2, 20],
      [3, 60],
    ]),
    new Map([
      [3, 30],
      [1, 10],
      [2, 10],
    ]),
  );
  assert.deepEqual(r, [
    { repeat: 1, ratio: 1 },
    { repeat: 2, ratio: 2 },
    { repeat: 3, ratio: 2 },
  ]);
});

test("decide: above — held, did not hold and inconclusive at the margin", () => {
  const rule: Rule = { kind: "above", margin: 1.2 };
  assert.equal(decide(rule, iv(1.21, 2)).verdict, "held");
  assert.equal(decide(rule, iv(1.2, 2)).verdict, "inconclusive", "touching the margin is not wholly above it");
  assert.equal(decide(rule, iv(0.8, 1.2)).verdict, "did not hold", "wholly at or below the margin");
  assert.equal(decide(rule, iv(1.1, 1.3)).verdict, "inconclusive");
  assert.match(decide(rule, iv(1.1, 1.3)).decidedBy, /straddles 1\.20/);
});

test("decide: below — mirror of above", () => {
  const rule: Rule = { kind: "below", margin: 1 };
  assert.equal(decide(rule, iv(0.5, 0.99)).verdict, "held");
  assert.equal(decide(rule, iv(1, 1.5)).verdict, "did not hold");
  assert.equal(decide(rule, iv(0.9, 1.1)).verdict, "inconclusive");
});

test("decide: inside (equivalence) — held only when the whole interval is inside the margin", () => {
  const rule: Rule = { kind: "inside", low: 0.9, high: 1.1 };
  assert.equal(decide(rule, iv(0.95, 1.05)).verdict, "held");
  assert.equal(decide(rule, iv(0.9, 1.1)).verdict, "held", "the edges belong to the margin");
  assert.equal(decide(rule, iv(0.95, 1.15)).verdict, "inconclusive", "overlap with the margin is not equivalence");
  assert.equal(decide(rule, iv(1.11, 1.5)).verdict, "did not hold");
  assert.equal(decide(rule, iv(0.5, 0.89)).verdict, "did not hold");
  assert.equal(decide(rule, iv(0.5, 1.5)).verdict, "inconclusive", "a wide interval around the margin decides nothing");
});

test("decide: an interval with too little coverage decides nothing, and says how many repeats would", () => {
  const rule: Rule = { kind: "above", margin: 1 };
  const d = decide(rule, iv(2, 3, 3, 0.75));
  assert.equal(d.verdict, "inconclusive");
  assert.match(d.decidedBy, /needs ≥ 5 paired repeats \(has 3\)/);
  assert.equal(repeatsForCoverage(0.9), 5);
  assert.equal(repeatsForCoverage(0.95), 6);
  assert.equal(decide(rule, iv(2, 3, 5, 0.9375)).verdict, "held");
  // The gate guards a refutation as much as a confirmation: wholly below, 3 repeats, still nothing.
  const against = decide(rule, iv(0.5, 0.8, 3, 0.75));
  assert.equal(against.verdict, "inconclusive", against.decidedBy);
  assert.match(against.decidedBy, /would say "did not hold", but it covers the median with only 75 %/);
  assert.equal(decide(rule, iv(0.5, 0.8, 5, 0.9375)).verdict, "did not hold");
  const outside = decide({ kind: "inside", low: 0.8, high: 1.25 }, iv(1.5, 2, 4, 0.875));
  assert.equal(outside.verdict, "inconclusive", "an equivalence refuted on 4 repeats is not refuted");
});

test("decide: 'more repeats' is said only where more repeats can move the interval past the margin", () => {
  // Synthetic paired values: n evenly spaced quantiles of a normal of this median and spread, so a
  // larger n from the same source is what "more repeats" would bring.
  const sample = (n: number, centre: number, sd: number) =>
    Array.from({ length: n }, (_, i) => centre + sd * probit((i + 0.5) / n));
  const rule: Rule = { kind: "above", margin: 1 };
  const off = decide(rule, medianInterval(sample(5, 1.05, 0.1), "t"));
  assert.equal(off.verdict, "inconclusive");
  const m = /about (\d+) paired repeats \(has 5\)/.exec(off.decidedBy);
  assert.ok(m, off.decidedBy);
  const need = Number(m[1]);
  assert.ok(need > 5);
  // At the projected n the same source decides it; a few repeats fewer than half of it does not yet.
  assert.equal(decide(rule, medianInterval(sample(need, 1.05, 0.1), "t")).verdict, "held");
  assert.equal(decide(rule, medianInterval(sample(8, 1.05, 0.1), "t")).verdict, "inconclusive");
  // A median on the margin: no number of repeats decides it, and the reason says so.
  const on = decide(rule, medianInterval(sample(5, 1, 0.1), "t"));
  assert.equal(on.verdict, "inconclusive");
  assert.doesNotMatch(on.decidedBy, /paired repeats/);
  assert.match(on.decidedBy, /cannot move it past the margin/);
  assert.equal(decide(rule, medianInterval(sample(200, 1, 0.1), "t")).verdict, "inconclusive");
  // Inside rules measure from the nearer edge.
  const band = moreRepeats({ kind: "inside", low: 0.8, high: 1.25 }, medianInterval(sample(5, 1.2, 0.1), "t"));
  assert.match(band, /lies 0\.05 from 1\.25/);
  assert.equal(decide(rule, undefined).verdict, "inconclusive");
});

test("Holm over steps: a union of refutations keeps its family error; signTestP is the sign test's tail", () => {
  assert.equal(signTestP(5, 5), 1 / 32);
  assert.equal(signTestP(7, 7), 1 / 128);
  assert.equal(signTestP(5, 0), 1);
  const step = (label: string, values: number[]) => ({ label, values });
  const below = { kind: "below", margin: 1 } as const;
  // Five of five rounds against one step: p = 3.1 % > 5 %/4: not refuted over 4 steps, refuted alone.
  const five = [1.1, 1.2, 1.05, 1.15, 1.1];
  const ok = [0.8, 0.85, 0.9, 0.82, 0.88];
  assert.deepEqual(holmRefutations([step("a", five), step("b", ok), step("c", ok), step("d", ok)], below), []);
  assert.deepEqual(
    holmRefutations([step("a", five)], below).map((r) => r.label),
    ["a"],
  );
  // Seven of seven against two steps: Holm refutes both (0.78 % ≤ 1.25 %, then ≤ 1.67 %).
  const seven = [...five, 1.3, 1.01];
  const ok7 = [...ok, 0.9, 0.7];
  assert.deepEqual(
    holmRefutations([step("a", seven), step("b", seven), step("c", ok7), step("d", ok7)], below).map((r) => r.label),
    ["a", "b"],
  );
});

test("a direction's verdict names its scale; one whose sign the machine sets is planned and described as gated", () => {
  const base: ClaimCheck = {
    id: "m",
    claim: "c",
    seed: "s",
    regime: "r",
    statistic: "x",
    rule: "y",
    kind: "direction",
    distance: [{ what: "data size", seed: 1000, unit: "rows", within: [0.5, 2] }],
    ours: "0.42",
    verdict: "held",
    decidedBy: "inside",
    why: "",
    scale: "1 % of the seed's data size (10 rows)",
  };
  assert.equal(verdictText(base), "held at 1 % of the seed's data size (10 rows)");
  const plan = (d: ClaimCheck, size: number) => planClaims([d], { "data size": size })[0].prospect;
  assert.deepEqual([plan(base, 10), plan(base, 1000)], ["decidable", "decidable"]);
  const set = { ...base, signSetBy: "the rebuild's share of the run" };
  assert.deepEqual([plan(set, 10), plan(set, 1000)], ["out of regime", "decidable"]);
  assert.match(
    kindText(set),
    /^direction: decided only at data size 500–2,000 rows.*because its sign is set by the rebuild's share/,
  );
  assert.match(kindText(base), /^direction: decided at any scale/);
  const d = derived({ ...base, kind: "derived", derivedFrom: "claim 2" }, "2.4", "1 ÷ 0.42");
  assert.equal(d.verdict, "derived");
  assert.ok(!isEvidence(d));
  assert.match(claimRows([d])[0].kind, /^derived from claim 2/);
});

test("allOf and withSensitivity", () => {
  const held = { verdict: "held", decidedBy: "" } as const;
  const no = { verdict: "did not hold", decidedBy: "" } as const;
  const maybe = { verdict: "inconclusive", decidedBy: "" } as const;
  assert.equal(allOf([held, held]), "held");
  assert.equal(allOf([held, maybe]), "inconclusive");
  assert.equal(allOf([maybe, no]), "did not hold");
  assert.equal(allOf([]), "inconclusive");
  const claim = (verdict: ClaimCheck["verdict"]): ClaimCheck => ({
    id: "x",
    claim: "",
    seed: "",
    regime: "",
    statistic: "",
    rule: "",
    kind: "direction",
    ours: "",
    verdict,
    decidedBy: "because",
    why: "",
  });
  assert.match(withSensitivity([claim("held")], [claim("held")], 2)[0].sensitivity ?? "", /the same verdict/);
  assert.match(
    withSensitivity([claim("held")], [claim("inconclusive")], 2)[0].sensitivity ?? "",
    /"inconclusive" instead/,
  );
  assert.match(
    withSensitivity([claim("held")], [claim("inconclusive")], 0)[0].sensitivity ?? "",
    /No trial was flagged/,
  );
});

test("outlierFlags: a stalled trial among its peers is flagged; ordinary spread is not", () => {
  assert.deepEqual(outlierFlags([2.0, 2.1, 1.9, 262]), [false, false, false, true]);
  assert.deepEqual(outlierFlags([1.0, 1.05, 0.97, 1.02, 1.1]), [false, false, false, false, false]);
  assert.deepEqual(outlierFlags([1, 1]), [false, false], "two values cannot tell which one is off");
});

test("condition order: seeded, reproducible, different between repeats, a permutation", () => {
  const items = [...Array(12).keys()];
  const a = seededShuffle(items, orderSeed(42, 1));
  assert.deepEqual(a, seededShuffle(items, orderSeed(42, 1)), "same seed, same order (resume replays the plan)");
  assert.notDeepEqual(a, seededShuffle(items, orderSeed(42, 2)), "another repeat, another order");
  assert.deepEqual(
    [...a].sort((x, y) => x - y),
    items,
  );
  assert.deepEqual(rotated([1, 2, 3], 1), [2, 3, 1]);
  assert.deepEqual(rotated([1, 2, 3], 3), [1, 2, 3]);
});

test("planClaims: the same regime rule as the verdict, before the run; planText counts evidence only", () => {
  const base = { seed: "", regime: "", statistic: "", rule: "" };
  const plans = planClaims(
    [
      { ...base, id: "d", claim: "direction", kind: "direction", mechanism: "m" },
      {
        ...base,
        id: "in",
        claim: "inside",
        kind: "magnitude",
        distance: [{ what: "rows", seed: 100, unit: "rows", within: [0.5, 2] }],
      },
      {
        ...base,
        id: "edge",
        claim: "at the edge",
        kind: "magnitude",
        distance: [{ what: "clients per CPU", seed: 0.125, unit: "", within: [0, 8] }],
      },
      {
        ...base,
        id: "out",
        claim: "outside",
        kind: "magnitude",
        distance: [{ what: "clients per CPU", seed: 0.125, unit: "", within: [0, 8] }],
      },
      { ...base, id: "x", claim: "derived", kind: "derived", derivedFrom: "d" },
      { ...base, id: "m", claim: "mongo", kind: "direction" },
    ],
    { rows: 50, "clients per CPU": 1 },
    { unavailable: { m: "no MongoDB reachable" } },
  );
  const by = Object.fromEntries(plans.map((p) => [p.id, p.prospect]));
  assert.deepEqual(by, {
    d: "decidable",
    in: "decidable",
    edge: "decidable",
    out: "decidable",
    x: "not evidence",
    m: "unavailable",
  });
  const over = planClaims(
    [
      {
        ...base,
        id: "out",
        claim: "outside",
        kind: "magnitude",
        distance: [{ what: "clients per CPU", seed: 0.125, unit: "", within: [0, 8] }],
      },
    ],
    { "clients per CPU": 1.5 },
  );
  assert.equal(over[0].prospect, "out of regime");
  assert.equal(over[0].reason, "clients per CPU 1.5 (needs ≤ 1)");
  assert.match(planText([...plans, ...over]), /can decide 4 of 5 claims; not: \(out\) /);
  assert.match(planText(plans), /not counted: \(x\) not evidence: derived from d; \(m\) unavailable: no MongoDB/);
});

test("sensitivitySentence: none flagged, none left, the same verdict, another one", () => {
  const flagged = {
    noun: "round",
    count: 2,
    detail: "r1: 1 checkpoint(s); r3: TPS outlier",
    none: "No round was flagged.",
  };
  assert.equal(
    sensitivitySentence({ ...flagged, count: 0 }, "held", () => undefined),
    "No round was flagged.",
  );
  assert.equal(
    sensitivitySentence(flagged, "held", () => undefined),
    "Without the 2 flagged round(s) (r1: 1 checkpoint(s); r3: TPS outlier) no round is left to judge on.",
  );
  assert.equal(
    sensitivitySentence(flagged, "held", () => ({ verdict: "held", decidedBy: "x" })),
    "Without the 2 flagged round(s) (r1: 1 checkpoint(s); r3: TPS outlier): the same verdict.",
  );
  assert.equal(
    sensitivitySentence({ ...flagged, detail: "" }, "held", () => ({
      verdict: "inconclusive",
      decidedBy: "straddles 1",
    })),
    'Without the 2 flagged round(s): "inconclusive" instead — straddles 1.',
  );
});

/**
 * The run-level speed state: the spread of the write-path probe over a run's trials, which trials it
 * flags, and the rule that leaves a pair out of a paired statistic when its trials ran in two states.
 */
import { test } from "node:test";
import assert from "node:assert/strict";
import {
  SPEED_STATE_RATIO,
  sameState,
  sameStatePairs,
  speedSpread,
  stateSensitivity,
  type SpeedProbe,
} from "../../lib/stats/speed";

const probe = (medianMs: number): SpeedProbe => ({ what: "test", medianMs, p90Ms: medianMs, n: 400, at: "" });

test("speedSpread: range, median and the trials in another state (beyond ×1.25 of the median)", () => {
  assert.equal(speedSpread([{ key: "a" }]), undefined, "no probe, no spread");
  const s = speedSpread([
    { key: "b1", speed: probe(0.081) },
    { key: "r1", speed: probe(0.083) },
    { key: "b2", speed: probe(0.155) },
    { key: "r2", speed: probe(0.082) },
    { key: "b3", speed: probe(0.08) },
  ]);
  assert.ok(s);
  assert.equal(s.medianMs, 0.082);
  assert.deepEqual(s.flagged, ["b2"]);
  assert.match(
    s.text,
    /median 0.082 ms, upper ÷ lower quartile ×1.0\d \(range 0.080–0.155\) over 5 trial\(s\); 1 in another speed state/,
  );
  // At the edge: exactly ×1.25 of the median is not another state.
  const edge = speedSpread([
    { key: "x", speed: probe(0.1) },
    { key: "y", speed: probe(0.1) },
    { key: "z", speed: probe(0.1 * SPEED_STATE_RATIO) },
  ]);
  assert.deepEqual(edge?.flagged, []);
});

test("PAIR_STATE_RULE: every pair counts; a pair whose probes split is named, and the verdict without it said", () => {
  const pairs = [
    { r: 1, a: 0.08, b: 0.082 },
    { r: 2, a: 0.08, b: 0.15 },
    { r: 3, a: 0.1, b: 0.1 * SPEED_STATE_RATIO },
    { r: 4, a: 0.1, b: undefined },
  ];
  const s = sameStatePairs(
    pairs,
    (p) => [p.a, p.b],
    (p) => `r${p.r}`,
  );
  assert.deepEqual(
    s.kept.map((p) => p.r),
    [1, 2, 3, 4],
    "the statistic's input is every pair",
  );
  // ×1.25 exactly is one state (the edge included); an unprobed trial says nothing of a change.
  assert.deepEqual(
    s.oneState.map((p) => p.r),
    [1, 3, 4],
  );
  assert.deepEqual(
    s.split.map((e) => e.label),
    ["r2"],
  );
  assert.equal(s.text, "r2: probes ×1.88 apart");
  const judged: number[][] = [];
  const same = stateSensitivity(s, "held", (kept) => {
    judged.push(kept.map((p) => p.r));
    return { verdict: "held", decidedBy: "x" };
  });
  assert.deepEqual(judged, [[1, 3, 4]], "re-judged on the one-state pairs");
  assert.equal(
    same,
    "1 of 4 pair(s) had write-path probes more than ×1.25 apart (r2: probes ×1.88 apart); without them: the same verdict.",
  );
  assert.match(
    stateSensitivity(s, "held", () => ({ verdict: "inconclusive", decidedBy: "too few" })),
    /without them: "inconclusive" \(too few\)\.$/,
  );
  const none = sameStatePairs(pairs.slice(0, 1), (p) => [p.a, p.b], String);
  assert.equal(none.text, "");
  assert.equal(
    stateSensitivity(none, "held", () => undefined),
    "",
    "nothing split: no sentence",
  );
  const all = sameStatePairs(pairs.slice(1, 2), (p) => [p.a, p.b], String);
  assert.match(
    stateSensitivity(all, "held", () => undefined),
    /without them no pair is left to judge on/,
  );
  assert.ok(sameState(0.1, 0.125) && !sameState(0.1, 0.1251));
});

test("speedSpread: the quartile ratio does not grow with one stray probe, where slowest ÷ fastest does", () => {
  const steady = Array.from({ length: 20 }, (_, i) => ({ key: `t${i}`, speed: probe(0.08 + (i % 4) * 0.001) }));
  const a = speedSpread(steady);
  const b = speedSpread([...steady, { key: "warm-up", speed: probe(0.197) }]);
  assert.ok(a && b);
  assert.ok(b.maxMs / b.minMs > 2.4);
  assert.ok(b.quartileRatio < 1.05, String(b.quartileRatio));
  assert.ok(Math.abs(b.quartileRatio - a.quartileRatio) < 0.02);
  assert.deepEqual(b.flagged, ["warm-up"]);
});

/**
 * The run-level speed state: the spread of the write-path probe over a run's trials, which trials it
 * flags, and the doubt it gives a between-run claim (inconclusive when as large as the effect).
 */
import { test } from "node:test";
import assert from "node:assert/strict";
import { decide } from "../../lib/stats/claims";
import { SPEED_STATE_RATIO, speedNoise, speedSpread, type SpeedProbe } from "../../lib/stats/speed";

const probe = (medianMs: number): SpeedProbe => ({ what: "test", medianMs, p90Ms: medianMs, n: 400, at: "" });
const iv = (low: number, high: number) => ({ estimate: (low + high) / 2, low, high, n: 5, coverage: 0.9375, of: "t" });

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
    /0.080–0.155 ms \(median 0.082, slowest ÷ fastest ×1.94\) over 5 trial\(s\); 1 in another speed state/,
  );
  // At the edge: exactly ×1.25 of the median is not another state.
  const edge = speedSpread([
    { key: "x", speed: probe(0.1) },
    { key: "y", speed: probe(0.1) },
    { key: "z", speed: probe(0.1 * SPEED_STATE_RATIO) },
  ]);
  assert.deepEqual(edge?.flagged, []);
});

test("speedNoise: a between-run claim is inconclusive when the spread is as large as its effect", () => {
  const flipping = speedSpread([
    { key: "a", speed: probe(0.08) },
    { key: "b", speed: probe(0.15) },
  ]);
  const steady = speedSpread([
    { key: "a", speed: probe(0.08) },
    { key: "b", speed: probe(0.082) },
  ]);
  const rule = { kind: "above", margin: 1 } as const;
  // A 1.5× effect (0.5 from 1) against ×1.88 of state (0.88): not decided; against ×1.03: held.
  assert.equal(decide(rule, iv(1.4, 1.6), { noise: speedNoise(flipping) }).verdict, "inconclusive");
  assert.match(
    decide(rule, iv(1.4, 1.6), { noise: speedNoise(flipping) }).decidedBy,
    /run-level spread of the write-path speed probe \(×1.88/,
  );
  assert.equal(decide(rule, iv(1.4, 1.6), { noise: speedNoise(steady) }).verdict, "held");
  assert.equal(speedNoise(speedSpread([{ key: "a", speed: probe(0.1) }])), undefined, "one probe: no spread");
});

import { test } from "node:test";
import assert from "node:assert/strict";
import { ROUND_TRIPS_PROFILES } from "./params";
import { experiment } from ".";
import { CASE_INFO, CASES, statements } from "./workload/cases";
import { changedRows } from "./workload/dataset";
import { summariseLags } from "./workload/replication";
import { environmentOrder, sweepOrder } from "./workload/phases";

const bad: [string, () => unknown, RegExp][] = [
  [
    "unknown parameter",
    () => experiment.params("smoke", { statement: 5 } as never),
    /05-round-trips: unknown parameter "statement"/,
  ],
  [
    "unknown case",
    () => experiment.params("smoke", { cases: ["select2"] } as never),
    /cases\[0\] must be one of select1, update_autocommit/,
  ],
  [
    "unknown environment",
    () => experiment.params("smoke", { environments: ["mars"] } as never),
    /environments\[0\] must be one of local, same-az/,
  ],
  ["no environments", () => experiment.params("smoke", { environments: [] }), /environments must be a non-empty list/],
  [
    "more statements than rows",
    () => experiment.params("smoke", { statements: 20_000 }),
    /statements \(20000\) cannot exceed rows \(10000\)/,
  ],
  [
    "negative round trip",
    () => experiment.params("smoke", { crossAzRttMs: -1 }),
    /crossAzRttMs must be a number ≥ 0 and ≤ 100 .*, got -1/,
  ],
  [
    "round trip in seconds by mistake",
    () => experiment.params("smoke", { standbyRttMs: 1700 }),
    /standbyRttMs must be a number ≥ 0 and ≤ 100 \(a round trip in milliseconds.*\), got 1700/,
  ],
  [
    "sweep not a list",
    () => experiment.params("smoke", { sweepStandbyRttsMs: 1.7 } as never),
    /sweepStandbyRttsMs must be a list of round trips in ms/,
  ],
  [
    "unknown sync level",
    () => experiment.params("smoke", { syncLevels: ["always"] } as never),
    /syncLevels\[0\] must be one of off, local, remote_write, on, remote_apply/,
  ],
  [
    "unknown network",
    () => experiment.params("smoke", { network: "tc" } as never),
    /network must be one of auto, netem, proxy/,
  ],
  [
    "statements not an integer",
    () => experiment.params("smoke", { statements: 1.5 }),
    /statements must be a positive integer, got 1.5/,
  ],
];
for (const [name, run, message] of bad) {
  test(`round-trips parameters: ${name} is refused clearly`, () => assert.throws(run, message));
}

test("round-trips profiles resolve; the seed's scale is in full; empty sweep lists switch the sweep off", () => {
  for (const profile of ["smoke", "default", "full"]) experiment.params(profile);
  assert.equal(ROUND_TRIPS_PROFILES.full.statements, 10_000);
  assert.equal(ROUND_TRIPS_PROFILES.full.repeats, 5);
  const p = experiment.params("default");
  assert.equal(p.sameAzRttMs, 0.2);
  assert.equal(p.crossAzRttMs, 1.7);
  const off = experiment.params("smoke", { sweepStandbyRttsMs: [], syncLevels: [] });
  assert.deepEqual(off.sweepStandbyRttsMs, []);
  assert.deepEqual(off.syncLevels, []);
});

test("every case sends the round trips its info says, like the seed's SQL files", () => {
  for (const c of CASES) {
    const sql = [...statements(c, 25)];
    assert.equal(sql.length, CASE_INFO[c].roundTrips(25), c);
  }
  assert.deepEqual(
    [...statements("update_each_transaction", 1)],
    ["BEGIN", "UPDATE benchmark_accounts SET status = 'active' WHERE id = 1", "COMMIT"],
  );
  assert.match([...statements("bulk_update", 3)][0], /WHERE id IN \(1, 2, 3\)$/);
  // Seed data: every 5th id suspended, other even ids active, odd ids inactive.
  assert.equal(changedRows(10), 6);
});

test("lag samples: the fastest standby decides an ANY 1 quorum", () => {
  const s = summariseLags([
    [
      { name: "s1", state: "streaming", syncState: "quorum", writeLagMs: 1, flushLagMs: 2, replayLagMs: 3 },
      { name: "s2", state: "streaming", syncState: "quorum", writeLagMs: 4, flushLagMs: 5, replayLagMs: 6 },
    ],
    [
      { name: "s1", state: "streaming", syncState: "quorum", writeLagMs: 7, flushLagMs: 8, replayLagMs: 9 },
      { name: "s2", state: "streaming", syncState: "quorum", writeLagMs: 1, flushLagMs: null, replayLagMs: 1 },
    ],
  ]);
  assert.equal(s.samples, 2);
  assert.equal(s.quorumFlushLagMs, 5, "median of per-sample minimum flush lags (2 and 8)");
  assert.equal(s.perStandby.s2.flushLagMs, 5);
});

test("05's phases are planned once: emulated, hosted and quorum environments; an external server runs only as it is", async () => {
  const { planPhases } = await import("./workload/phases");
  const p = experiment.params("smoke", {
    environments: ["local", "same-az", "cross-az", "quorum-same-az", "quorum-cross-az"],
    hosts: { sameAz: "ssh://root@10.0.0.5" },
  });
  const plan = planPhases(p, false);
  assert.deepEqual(plan.single, ["local", "cross-az"]);
  assert.deepEqual(plan.hosted, [{ env: "same-az", host: "ssh://root@10.0.0.5" }]);
  assert.deepEqual(plan.quorum, ["quorum-cross-az"]);
  assert.deepEqual(plan.hostedQuorum, [{ env: "quorum-same-az", host: "ssh://root@10.0.0.5" }]);
  assert.equal(plan.sweep, p.sweepStandbyRttsMs.length > 0 && p.syncLevels.length > 0);
  assert.deepEqual(plan.skipped, []);
  const asIs = planPhases(p, true);
  assert.deepEqual(asIs.single, ["external"]);
  assert.deepEqual([asIs.quorum, asIs.hostedQuorum, asIs.sweep], [[], [], false]);
  assert.match(asIs.skipped[0].what, /same-az, cross-az, quorum-same-az, quorum-cross-az/);
});

test("05's blocks: each repeat runs every environment once, and the blocks that meet at a repeat's end share one", () => {
  const envs = ["local", "same-az", "cross-az"] as const;
  const blocks = [1, 2, 3, 4, 5].flatMap((repeat) => environmentOrder(envs, repeat).map((env) => ({ repeat, env })));
  for (const repeat of [1, 2, 3, 4, 5])
    assert.deepEqual(
      blocks
        .filter((b) => b.repeat === repeat)
        .map((b) => b.env)
        .sort(),
      [...envs].sort(),
      `repeat ${repeat} runs each environment once`,
    );
  for (let i = 1; i < blocks.length; i++)
    if (blocks[i].repeat !== blocks[i - 1].repeat)
      assert.equal(blocks[i].env, blocks[i - 1].env, `repeat ${blocks[i].repeat} opens where the one before ended`);
  // One link set per environment and repeat before; now the two that meet at each of 4 repeat ends share one.
  const sets = blocks.filter((b, i) => i === 0 || blocks[i - 1].env !== b.env).length;
  assert.equal(sets, 15 - 4);
});

test("05's sweep starts at the standby round trip its links are at, the others in their order", () => {
  assert.deepEqual(sweepOrder([0.2, 0.85, 1.7], 1.7), [1.7, 0.2, 0.85]);
  assert.deepEqual(sweepOrder([0.2, 0.85, 1.7], 0.5), [0.2, 0.85, 1.7]);
  assert.deepEqual(sweepOrder([0.2, 0.85], undefined), [0.2, 0.85]);
});

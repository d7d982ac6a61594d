/**
 * Notebook 05's claims on synthetic trials (no servers): the equivalence claim (b) reaches held, did
 * not hold and inconclusive at and around its ×0.8–×1.25 margins; claims whose outcome follows from
 * an emulated input are `emulated`, and the same numbers from a real server are decided as evidence.
 */
import { test } from "node:test";
import assert from "node:assert/strict";
import {
  checkClaims,
  claimExternal,
  claimLocal,
  claimLocalReproduction,
  claimQuorum,
  claimRttRatio,
  claimSlope,
  DECLARATIONS,
  plan05,
  QUORUM_SAME,
} from "../../lib/experiments/round-trips/claims";
import { planText } from "../../lib/stats/claims";
import { summarise } from "../../lib/experiments/round-trips/summarise";
import type { RoundTripsRun } from "../../lib/experiments/round-trips/run";
import { roundTripsParams } from "../../lib/experiments/round-trips/params";
import { CASE_INFO, type CaseId } from "../../lib/experiments/round-trips/workload/cases";
import type { EnvironmentKey, RoundTripTrial } from "../../lib/experiments/round-trips/workload/trials";
import type { SyncLevel } from "../../lib/experiments/round-trips/workload/replication";
import { assertEachDecidable } from "../support/verdicts";

const N = 600;

interface EnvShape {
  /** Round trip, ms. */
  readonly rtt: number;
  /** What a commit adds to an autocommit UPDATE, ms. */
  readonly commit: number;
  /** The server's WAL flush per commit (pg_stat_wal), ms; half the commit unless given. */
  readonly fsync?: number;
  /** Share of a round trip each statement of the one-transaction case pays (1 unless given: no pipelining). */
  readonly oneTxTripShare?: number;
}

/** Per-repeat wobble, deterministic and different per case and environment. */
const wobble = (size: number, repeat: number, salt: number) => 1 + size * Math.sin(repeat * 1.7 + salt);

function caseTrials(
  envs: Partial<Record<EnvironmentKey, EnvShape>>,
  repeats: number,
  w = 0.02,
  n = N,
): RoundTripTrial[] {
  const out: RoundTripTrial[] = [];
  const cases: CaseId[] = ["select1", "update_autocommit", "update_one_transaction"];
  for (const [env, shape] of Object.entries(envs) as [EnvironmentKey, EnvShape][]) {
    for (let repeat = 1; repeat <= repeats; repeat++) {
      cases.forEach((c, i) => {
        const trips = CASE_INFO[c].roundTrips(n);
        const trip = c === "update_one_transaction" ? shape.rtt * (shape.oneTxTripShare ?? 1) : shape.rtt;
        const perStatement = trip + 0.02 + (c === "update_autocommit" ? shape.commit : 0);
        const ms = perStatement * wobble(w, repeat, i * 1.3 + env.length);
        const seconds = (ms * trips + (c === "update_one_transaction" ? shape.commit : 0)) / 1000;
        out.push({
          key: `case/${env}/${c}/n${n}/r${repeat}`,
          condition: { kind: "case", environment: env, case: c, statements: n },
          repeat,
          status: "ok",
          seconds,
          startedAt: "",
          finishedAt: "",
          roundTrips: trips,
          statementTimes: { count: trips, meanMs: ms, p10Ms: ms, p50Ms: ms, p90Ms: ms, p99Ms: ms, maxMs: ms },
          clientRttMs: shape.rtt,
          standbyRttMs: env.startsWith("quorum") ? 1.7 : null,
          counters:
            c === "update_autocommit"
              ? { "wal.sync": n, "wal.sync_time_ms": n * (shape.fsync ?? shape.commit * 0.5) }
              : { "wal.sync": 1 },
        });
      });
    }
  }
  return out;
}

function sweepTrials(rtt: number, levels: Partial<Record<SyncLevel, number>>, repeats: number): RoundTripTrial[] {
  const out: RoundTripTrial[] = [];
  for (let repeat = 1; repeat <= repeats; repeat++) {
    for (const [level, commitMs] of Object.entries(levels) as [SyncLevel, number][]) {
      const ms = commitMs * wobble(0.02, repeat, level.length);
      out.push({
        key: `sweep/${rtt}ms/${level}/n200/r${repeat}`,
        condition: { kind: "commit-level", level, standbyRttMs: rtt, commits: 200 },
        repeat,
        status: "ok",
        seconds: (ms * 200) / 1000,
        startedAt: "",
        finishedAt: "",
        statementTimes: { count: 200, meanMs: ms, p10Ms: ms, p50Ms: ms, p90Ms: ms, p99Ms: ms, maxMs: ms },
        standbyRttMs: rtt,
      });
    }
  }
  return out;
}

function run(trials: RoundTripTrial[], params = roundTripsParams("default", { statements: N })): RoundTripsRun {
  return {
    runId: "test",
    directory: "/nonexistent",
    params,
    trials,
    metadata: {
      runId: "test",
      notebook: "05",
      profile: "test",
      startedAt: "",
      host: {} as never,
      gitCommit: "",
      servers: [],
      params: {},
      notes: [],
    },
    calibrations: [],
    baselines: {},
    network: { kind: "proxy", reason: "test" },
    skipped: [],
  };
}

const EMULATED = {
  local: { rtt: 0.03, commit: 0.01 },
  "same-az": { rtt: 0.2, commit: 0.01 },
  "cross-az": { rtt: 1.7, commit: 0.01 },
  "quorum-same-az": { rtt: 0.2, commit: 1.9 },
} as const;

test("05 declarations: every claim declares regime, statistic and a rule with its margins", () => {
  for (const d of DECLARATIONS)
    for (const field of [d.claim, d.seed, d.regime, d.statistic, d.rule])
      assert.ok(field.length > 10, `${d.id}: ${field}`);
  assert.match(DECLARATIONS[1].rule, /inside 0.80–1.25/);
});

/** The seed's local regime: a 0.93 ms round trip (an emulated link) and a WAL flush ~0.1 of it (a slow fsync). */
const SEED_LOCAL = { rtt: 0.91, commit: 0.09, fsync: 0.09 } as const;

test("05 (b) equivalence at the seed's regime: held when the whole paired interval is inside ×0.8–×1.25", () => {
  const s = summarise(run(caseTrials({ local: SEED_LOCAL }, 5)));
  const c = claimLocal(s);
  assert.equal(c.verdict, "held", c.decidedBy);
  assert.match(c.decidedBy, /wholly inside 0.80–1.25/);
  assert.match(c.scale ?? "", /round trip 0.9\d ms \(the seed's 0.93 ms\), WAL flush ÷ round trip 0.09\d/);
});

test("05 (b) did not hold in its regime when a commit costs far more than its fsync; inconclusive across the edge or with 3 repeats", () => {
  const slow = claimLocal(summarise(run(caseTrials({ local: { ...SEED_LOCAL, commit: 0.6 } }, 5))));
  assert.equal(slow.verdict, "did not hold", slow.decidedBy);
  // 0.93 ms round trip + 0.23 ms commit: a ratio of ~1.25, wobbling across it.
  const edge = claimLocal(summarise(run(caseTrials({ local: { ...SEED_LOCAL, commit: 0.23 } }, 5, 0.03))));
  assert.equal(edge.verdict, "inconclusive", edge.decidedBy);
  const few = claimLocal(summarise(run(caseTrials({ local: SEED_LOCAL }, 3))));
  assert.equal(few.verdict, "inconclusive");
  assert.match(few.decidedBy, /needs ≥ 5 paired repeats/);
  assert.equal(
    claimLocal(summarise(run(caseTrials({ "cross-az": EMULATED["cross-az"] }, 5)))).verdict,
    "inconclusive",
    "no local environment",
  );
});

test("05 (b)'s why uses the data directory's measured fsync, and says so on tmpfs", () => {
  const withStorage = (fsType: string, fsyncMs: number) => {
    const r = run(caseTrials({ local: SEED_LOCAL }, 5));
    const server = { engine: "postgresql", kind: "embedded", version: "17.6", source: "t", address: "x" } as const;
    return claimLocal(
      summarise({
        ...r,
        metadata: {
          ...r.metadata,
          servers: [{ ...server, storage: { path: "/d", fsType, device: "/dev/vda", fsyncMs } }],
        },
      }),
    );
  };
  assert.match(
    withStorage("ext4", 2.764).why,
    /disk \(ext4 on \/dev\/vda\) took 2.764 ms per 8 KiB write \+ fdatasync/,
  );
  assert.match(withStorage("tmpfs", 0.001).why, /on tmpfs: an fsync there is free/);
});

test("05 (b) on a 0.03 ms loopback is not tested, whether the fsync is cheap or dear, with the measured ratio beside it", () => {
  for (const shape of [
    { rtt: 0.03, commit: 0.5, fsync: 0.45 },
    { rtt: 0.03, commit: 0.002, fsync: 0.001 },
  ]) {
    const c = claimLocal(summarise(run(caseTrials({ local: shape }, 5))));
    assert.equal(c.verdict, "not tested at this scale", c.decidedBy);
    assert.match(
      c.decidedBy,
      /^\d+\.\d\d× with a .* WAL flush per commit against a 0.050 ms round trip .*; the seed 1.09×/,
    );
    assert.match(c.decidedBy, /an emulated link would make the round trip an input/);
  }
});

test("05 swapping autocommit and one transaction flips a held claim (c external) and moves (b) out of its band", () => {
  const swap = (trials: RoundTripTrial[]) =>
    trials.map((t) => {
      if (t.condition.kind !== "case") return t;
      const c = t.condition.case;
      const swapped: CaseId | undefined =
        c === "update_autocommit"
          ? "update_one_transaction"
          : c === "update_one_transaction"
            ? "update_autocommit"
            : undefined;
      return swapped ? { ...t, condition: { ...t.condition, case: swapped } } : t;
    });
  const external = caseTrials({ external: { rtt: 0.2, commit: 2 } }, 5);
  assert.equal(claimExternal(summarise(run(external)))?.verdict, "held");
  assert.equal(claimExternal(summarise(run(swap(external))))?.verdict, "did not hold");
  const local = claimLocal(summarise(run(swap(caseTrials({ local: { ...SEED_LOCAL, commit: 0.6 } }, 5)))));
  // The swapped "autocommit" trials flushed WAL once in no measured time: a flush ÷ round trip of 0, out of the regime.
  assert.equal(local.verdict, "not tested at this scale");
  assert.ok((local.interval?.high ?? 1) < 0.8, `swapped ratio ${local.interval?.estimate} is below the band`);
});

test("05 (a), (c), (d), (e): emulated environments give consistency checks, never evidence", () => {
  const s = summarise(run([...caseTrials(EMULATED, 5), ...sweepTrials(1.7, { off: 0.03, local: 0.05, on: 1.95 }, 5)]));
  assert.deepEqual(
    s.environments.map((e) => e.kind),
    ["loopback", "emulated", "emulated", "emulated"],
  );
  const a = claimRttRatio(s);
  assert.equal(a.verdict, "emulated");
  assert.match(a.decidedBy, /targets 0.20 ms and 1.70 ms/);
  const q = claimQuorum(s, "quorum-same-az", QUORUM_SAME);
  assert.equal(q?.verdict, "emulated");
  assert.match(q?.decidedBy ?? "", /consistency check of the emulated quorum/);
  assert.equal(claimSlope(s).verdict, "emulated");
  const e = claimLocalReproduction(s);
  assert.equal(e.verdict, "emulated");
  assert.match(e.ours, /extra ÷ standby round trip 1.1/);
  // Every declared claim stays in the table: those whose environment did not run are not tested, with why.
  const all = checkClaims(s);
  assert.deepEqual(
    all.map((c) => c.id),
    DECLARATIONS.map((d) => d.id),
  );
  const absent = all.filter((c) => c.ours === "not run");
  assert.deepEqual(
    absent.map((c) => [c.id, c.verdict]),
    [
      ["c (other AZ)", "not tested at this scale"],
      ["c (external)", "not tested at this scale"],
    ],
  );
  assert.match(absent[0].decidedBy, /no quorum-cross-az environment.*"quorum-cross-az" runs it/);
});

test("05 (c external): a real server is evidence — held when autocommit ≫ one transaction, did not hold when not", () => {
  const held = claimExternal(summarise(run(caseTrials({ external: { rtt: 0.2, commit: 2 } }, 5))));
  assert.equal(held?.verdict, "held", held?.decidedBy);
  const not = claimExternal(summarise(run(caseTrials({ external: { rtt: 0.2, commit: 0.01 } }, 5))));
  assert.equal(not?.verdict, "did not hold");
  const few = claimExternal(summarise(run(caseTrials({ external: { rtt: 0.2, commit: 2 } }, 2))));
  assert.equal(few?.verdict, "inconclusive");
  assert.equal(claimExternal(summarise(run(caseTrials(EMULATED, 5)))), undefined, "no external environment: no claim");
  const s = summarise(run(caseTrials({ external: { rtt: 0.2, commit: 2 } }, 5)));
  assert.equal(claimRttRatio(s).verdict, "inconclusive", "one real environment cannot give a same-vs-cross ratio");
  assert.match(claimRttRatio(s).decidedBy, /two real environments/);
});

test("05 hosts: environments whose trials ran on named hosts are real in the summary, and (a) and the quorum claim are decided as evidence", () => {
  const onHosts = (trials: RoundTripTrial[]) => trials.map((t) => ({ ...t, real: true }));
  const trials = [
    ...onHosts(caseTrials({ "same-az": { rtt: 0.2, commit: 0.01 }, "cross-az": { rtt: 1.7, commit: 0.01 } }, 5)),
    ...onHosts(caseTrials({ "quorum-same-az": { rtt: 0.2, commit: 1.9 } }, 5)),
  ];
  const s = summarise(run(trials));
  assert.deepEqual(
    s.environments.map((e) => [e.environment, e.kind]),
    [
      ["same-az", "real"],
      ["cross-az", "real"],
      ["quorum-same-az", "real"],
    ],
  );
  assert.doesNotMatch(s.environments[0].label, /emulated/);
  const a = claimRttRatio(s);
  assert.notEqual(a.verdict, "emulated", a.why);
  assert.equal(a.verdict, "held", a.decidedBy);
  const q = claimQuorum(s, "quorum-same-az", QUORUM_SAME);
  assert.ok(q);
  assert.notEqual(q.verdict, "emulated");
  // The same numbers without the mark stay consistency checks.
  const emulatedRun = summarise(run(trials.map((t) => ({ ...t, real: undefined }))));
  assert.equal(claimRttRatio(emulatedRun).verdict, "emulated");
});

test("05 at the full profile as it runs here: loopback at this machine's round trip and flush, every other environment emulated", () => {
  const params = roundTripsParams("full");
  const n = params.statements;
  // What `full` produces on this machine (embedded, no hosts): the local environment is a direct
  // loopback (~0.03 ms here) on this disk (an 8 KiB write + fdatasync: 0.5–10 ms, median ~4 ms);
  // same/cross AZ behind emulated links, the quorum ones on emulated standbys.
  const envs = (localCommit: number, localFsync: number, quorumCommit: number) => ({
    local: { rtt: 0.03, commit: localCommit, fsync: localFsync },
    "same-az": { rtt: 0.2, commit: localCommit, fsync: localFsync },
    "cross-az": { rtt: 1.7, commit: localCommit, fsync: localFsync },
    "quorum-same-az": { rtt: 0.2, commit: quorumCommit },
    "quorum-cross-az": { rtt: 1.7, commit: quorumCommit },
  });
  const claims = (e: ReturnType<typeof envs>, on: number) =>
    checkClaims(
      summarise(
        run(
          [
            ...caseTrials(e, params.repeats, 0.02, n),
            ...sweepTrials(1.7, { off: 0.03, local: 0.05, on }, params.repeats),
          ],
          params,
        ),
      ),
    );
  // A dear flush and a cheap one (the disk's spread), a quorum commit that waits and one that does not.
  const runs = [claims(envs(4.2, 4, 1.9), 1.95), claims(envs(0.6, 0.5, 0.05), 0.06)];
  const emulatedOnly = ["emulated"] as const;
  assertEachDecidable(runs, {
    a: emulatedOnly,
    b: ["not tested at this scale"],
    "c (external)": ["not tested at this scale"],
    "c (same AZ)": emulatedOnly,
    "c (other AZ)": emulatedOnly,
    d: emulatedOnly,
    e: emulatedOnly,
  });
  // The plan said as much before the run: nothing of 05 is evidence here, (b) out of its regime.
  const plan = planText(plan05(params));
  assert.match(plan, /can decide 0 of 1 claims; not: \(b\) the local environment is a direct loopback/);
  assert.match(plan, /\(c \(external\)\) unavailable: no external server/);
  assert.match(plan, /\(a\) not evidence: the same-AZ and cross-AZ round trips are this run's inputs/);
});

test("05 plan: named hosts make (a), (c) and (d) evidence; an external server leaves only (c external)", () => {
  const hosted = plan05(roundTripsParams("default", { hosts: { sameAz: "ssh://u@a", crossAz: "ssh://u@b" } }));
  assert.deepEqual(
    hosted.filter((c) => c.prospect === "decidable").map((c) => c.id),
    ["a", "c (same AZ)", "c (other AZ)", "d"],
  );
  const external = plan05(roundTripsParams("default", { target: "external" }));
  assert.deepEqual(
    external.filter((c) => c.prospect !== "unavailable").map((c) => c.id),
    ["c (external)"],
  );
  const none = plan05(roundTripsParams("default", { environments: ["local", "cross-az"] }));
  assert.match(none.find((c) => c.id === "a")?.reason ?? "", /needs the same-az and cross-az environments/);
});

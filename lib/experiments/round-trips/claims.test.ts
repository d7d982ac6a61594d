/**
 * Notebook 05's claims on synthetic trials (no servers). The engine's generated tests cover every
 * rule's margins and regime edges; these check what 05 computes: its statistics and positions from
 * trials, which runs are `emulated` (the engine keeps the rule's
 * reading in the reason), and the same numbers from a real server decided as evidence.
 */
import { test } from "node:test";
import assert from "node:assert/strict";
import fs from "node:fs";
import path from "node:path";
import { seedCommitMs, seedValue, type SeedCondition, type SeedSeries } from "./seed";
import { CLAIMS } from "./claims";
import { experiment } from ".";
import { declarations, judge } from "../../stats/claim-engine";
import type { RoundTripsSummary } from "./summarise";
import { isEvidence, planText } from "../../stats/claims";
import { summarise, withoutFlagged } from "./summarise";
import type { RoundTripsRun } from "./summarise";
import { CASE_INFO, type CaseId } from "./workload/cases";
import type { EnvironmentKey, RoundTripTrial } from "./workload/trials";
import type { SyncLevel } from "./workload/replication";

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

function run(trials: RoundTripTrial[], params = experiment.params("default", { statements: N })): RoundTripsRun {
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
  "quorum-same-az": { rtt: 0.2, commit: 1.9, fsync: 0.1 },
} as const;

const DECLARATIONS = declarations(CLAIMS);
const checkClaims = (s: RoundTripsSummary) => judge(CLAIMS, s, withoutFlagged(s));
/** One claim's row on a summary. */
function row(s: RoundTripsSummary, id: string) {
  const c = checkClaims(s).find((x) => x.id === id);
  assert.ok(c, `(${id}) in the table`);
  return c;
}
const claimsOf = (trials: RoundTripTrial[]) => summarise(run(trials));

test("05 declarations: every claim declares regime, statistic and a rule; (e) says it reads against the seed", () => {
  for (const d of DECLARATIONS)
    for (const field of [d.claim, d.seed, d.regime, d.statistic, d.rule])
      assert.ok(field.length > 10, `${d.id}: ${field}`);
  const e = DECLARATIONS.find((d) => d.id === "e");
  assert.match(e?.claim ?? "", /against the seed's sentence as worded/);
  assert.equal(e?.kind, "mechanism");
  for (const id of ["c (same AZ)", "c (other AZ)", "c (external)", "c share (same AZ)"])
    assert.equal(DECLARATIONS.find((d) => d.id === id)?.kind, "magnitude", id);
  assert.match(DECLARATIONS.find((d) => d.id === "c (external)")?.rule ?? "", /evidence about the server that ran/);
});

/** The seed's local regime: a 0.93 ms round trip (a real client host) and a commit ~0.1 of it. */
const SEED_LOCAL = { rtt: 0.91, commit: 0.09, fsync: 0.09 } as const;

test("05 (b) at the seed's round trip is decided on this server's commit: held when cheap, did not hold when dear", () => {
  const held = row(claimsOf(caseTrials({ local: SEED_LOCAL }, 5)), "b");
  assert.equal(held.verdict, "held", held.decidedBy);
  assert.match(held.ours, /gap per commit 0.09\d ms ÷ round trip 0.9\d\d ms = 0.10 \(the seed's 0.10\)/);
  const dear = row(claimsOf(caseTrials({ local: { ...SEED_LOCAL, commit: 0.6 } }, 5)), "b");
  assert.equal(dear.verdict, "did not hold", dear.decidedBy);
  const loop = row(claimsOf(caseTrials({ local: { rtt: 0.03, commit: 0.5, fsync: 0.45 } }, 5)), "b");
  assert.equal(loop.verdict, "not tested at this scale");
  assert.match(loop.decidedBy, /round trip .*needs/);
});

test("05 (b)'s why uses the data directory's measured fsync, and says so on tmpfs", () => {
  const withStorage = (fsType: string, fsyncMs: number) => {
    const r = run(caseTrials({ local: SEED_LOCAL }, 5));
    const server = { engine: "postgresql", kind: "embedded", version: "17.6", source: "t", address: "x" } as const;
    const s = summarise({
      ...r,
      metadata: {
        ...r.metadata,
        servers: [{ ...server, storage: { path: "/d", fsType, device: "/dev/vda", fsyncMs } }],
      },
    });
    return row(s, "b");
  };
  assert.match(
    withStorage("ext4", 2.764).why,
    /disk \(ext4 on \/dev\/vda\) took 2.764 ms per 8 KiB write \+ fdatasync/,
  );
  assert.match(withStorage("tmpfs", 0.001).why, /on tmpfs/);
});

test("05 (a), (c), (d): emulated environments give consistency checks, the rule's reading kept in the reason; (e), about the emulation itself, is judged", () => {
  const s = claimsOf([...caseTrials(EMULATED, 5), ...sweepTrials(1.7, { off: 0.03, local: 0.05, on: 1.95 }, 5)]);
  assert.deepEqual(
    s.environments.map((e) => e.kind),
    ["loopback", "emulated", "emulated", "emulated"],
  );
  for (const id of ["a", "c (same AZ)", "c share (same AZ)", "d"]) {
    assert.equal(row(s, id).verdict, "emulated", id);
    assert.ok(!isEvidence(row(s, id)), id);
  }
  assert.match(row(s, "a").decidedBy, /round trips are this run's inputs .*consistent with "held"/);
  assert.match(row(s, "c (same AZ)").decidedBy, /standbys' round trip is this run's input .*consistency check/);
  assert.match(
    row(s, "c (same AZ)").emulates ?? "",
    /standbys on this machine .*not what Aurora's storage quorum costs/,
  );
  // The standby added (1.95 − 0.05) ÷ 1.7 ≈ 1.1 round trips: one machine reproduces the overhead, and
  // the row says so as a verdict (the seed's sentence as worded is contradicted), not as `emulated`.
  const e = row(s, "e");
  assert.equal(e.verdict, "held", e.decidedBy);
  assert.match(e.emulates ?? "", /held contradicts the seed's sentence/);
  assert.match(e.interval ? String(e.interval.estimate) : "", /^1\.1/);
  const none = row(claimsOf([...caseTrials(EMULATED, 5), ...sweepTrials(1.7, { local: 0.05, on: 0.06 }, 5)]), "e");
  assert.equal(none.verdict, "did not hold", none.decidedBy);
  // Every declared claim stays in the table: those whose environment did not run are not tested, with why.
  const all = checkClaims(s);
  assert.deepEqual(
    all.map((c) => c.id),
    DECLARATIONS.map((d) => d.id),
  );
  assert.deepEqual(
    all.filter((c) => c.ours === "not run").map((c) => [c.id, c.verdict]),
    [
      ["c (other AZ)", "not tested at this scale"],
      ["c share (other AZ)", "not tested at this scale"],
      ["c (external)", "not tested at this scale"],
    ],
  );
  assert.match(row(s, "d").why, /local: a statement .* of server time/);
  // (a) without its same-AZ half is still judged on the emulated link, as "needs the select1 case", never absent.
  const { "same-az": _same, ...noSameAz } = EMULATED;
  const a = row(claimsOf(caseTrials(noSameAz, 5)), "a");
  assert.equal(a.verdict, "emulated", a.decidedBy);
  assert.match(a.decidedBy, /not evidence; needs the select1 case/);
});

test("05 (c share): the server's account against the gap per commit, decided on a real quorum", () => {
  const real = (shape: { rtt: number; commit: number; fsync: number }) =>
    claimsOf(caseTrials({ "quorum-same-az": shape }, 5).map((t) => ({ ...t, real: true })));
  // No flush lag was sampled here (the standbys idle at every look): the account is the WAL flush alone.
  const match = row(real({ rtt: 0.2, commit: 1.9, fsync: 1.9 }), "c share (same AZ)");
  assert.equal(match.verdict, "held", match.decidedBy);
  const half = row(real({ rtt: 0.2, commit: 1.9, fsync: 0.95 }), "c share (same AZ)");
  assert.equal(half.verdict, "did not hold", half.decidedBy);
});

test("05 (c external): a real server is evidence — held when autocommit ≫ one transaction, did not hold when not", () => {
  const ext = (commit: number, repeats = 5) =>
    row(claimsOf(caseTrials({ external: { rtt: 0.2, commit, fsync: commit } }, repeats)), "c (external)");
  assert.equal(ext(2).verdict, "held", ext(2).decidedBy);
  // A fast-flush server at the seed's round trip: evidence that its commits do not make autocommit ≫.
  assert.equal(ext(0.01).verdict, "did not hold", ext(0.01).decidedBy);
  assert.equal(ext(2, 2).verdict, "inconclusive");
  const loop = claimsOf(caseTrials({ external: { rtt: 0.03, commit: 2, fsync: 2 } }, 5));
  assert.equal(row(loop, "c (external)").verdict, "not tested at this scale", "a client beside the server is outside");
  assert.equal(row(claimsOf(caseTrials(EMULATED, 5)), "c (external)").verdict, "not tested at this scale");
});

test("05 hosts: environments whose trials ran on named hosts are real, and (a) and (c) are decided as evidence", () => {
  const onHosts = (trials: RoundTripTrial[]) => trials.map((t) => ({ ...t, real: true }));
  const trials = [
    ...onHosts(caseTrials({ "same-az": { rtt: 0.2, commit: 0.01 }, "cross-az": { rtt: 1.7, commit: 0.01 } }, 5)),
    ...onHosts(caseTrials({ "quorum-same-az": { rtt: 0.2, commit: 1.9, fsync: 1.9 } }, 5)),
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
  assert.equal(row(s, "a").verdict, "held", row(s, "a").decidedBy);
  assert.equal(row(s, "c (same AZ)").verdict, "held", row(s, "c (same AZ)").decidedBy);
  const emulatedRun = summarise(run(trials.map((t) => ({ ...t, real: undefined }))));
  assert.equal(row(emulatedRun, "a").verdict, "emulated");
});

test("05 plan: emulated claims are not evidence, (b) out of regime on the loopback; hosts make (a), (c), (d) evidence beside (e); an external server leaves only (c external)", () => {
  const plan = planText(experiment.prospect(experiment.params("full")));
  assert.match(plan, /\(a\), \(d\) not evidence: the same-AZ and cross-AZ round trips are this run.s inputs/);
  assert.match(plan, /\(c \(external\)\) unavailable: this run measured no external server/);
  assert.equal(experiment.prospect(experiment.params("default")).find((c) => c.id === "b")?.prospect, "out of regime");
  const hosted = experiment.prospect(
    experiment.params("default", { hosts: { sameAz: "ssh://u@a", crossAz: "ssh://u@b" } }),
  );
  assert.deepEqual(
    hosted.filter((c) => c.prospect === "decidable").map((c) => c.id),
    ["a", "c (same AZ)", "c share (same AZ)", "c (other AZ)", "c share (other AZ)", "d", "e"],
  );
  const external = experiment.prospect(experiment.params("default", { target: "external" }));
  assert.deepEqual(
    external.filter((c) => c.prospect !== "unavailable" && c.prospect !== "not evidence").map((c) => c.id),
    ["c (external)"],
  );
  const none = experiment.prospect(experiment.params("default", { environments: ["local", "cross-az"] }));
  assert.match(none.find((c) => c.id === "a")?.reason ?? "", /needs the same-az and cross-az environments/);
});

test("05 quotes.json's figures are the seed's published ones (autocommit, one transaction, Aurora's commit total)", () => {
  const quotes = JSON.parse(
    fs.readFileSync(path.resolve(__dirname, "../../../../lib/experiments/round-trips/quotes.json"), "utf8"),
  ) as { quotes: Record<string, { figure?: string }> };
  const figure = (key: string) => quotes.quotes[key]?.figure ?? "";
  const v = (series: SeedSeries, c: SeedCondition) => seedValue(series, c) ?? NaN;
  const ms = (c: SeedCondition) => `${(seedCommitMs(c) ?? NaN).toFixed(2)} ms`;
  for (const [c, where] of [
    ["same_az", "same AZ"],
    ["cross_az", "other AZ"],
  ] as const) {
    const [a, b, aurora] = [
      v("update_autocommit_seconds", c),
      v("update_one_transaction_seconds", c),
      v("aurora_commit_latency_seconds", c),
    ];
    assert.ok(
      figure(`transactions (${where})`).startsWith(`${a.toFixed(2)} s vs ${b.toFixed(2)} s (${(a / b).toFixed(1)}×)`),
    );
    assert.ok(figure(`transactions (${where})`).endsWith(`= ${(aurora / b).toFixed(2)}`));
    assert.equal(
      figure(`commitGap (${where})`),
      `Aurora's commit-latency total ${aurora.toFixed(1)} s vs the gap ${(a - b).toFixed(2)} s (${((aurora / (a - b)) * 100).toFixed(0)} %)`,
    );
  }
  assert.ok(
    figure("localCommits").includes(`= ${(seedCommitMs("local") ?? NaN).toFixed(3)} ms ÷ the 0.93 ms round trip`),
  );
  assert.ok(figure("commitCost").startsWith(`Aurora ${ms("same_az")} vs local ${ms("local")} per commit`));
});

/**
 * Notebook 04's declarations on synthetic runs (no server): what the engine's generated margin tests
 * (claim-engine.test.ts) cannot see — the statistics computed from runs, the seed's protocol as the
 * regime of (1), the mechanism check at any run length, (2) derived, swapped labels that must flip.
 */
import { test } from "node:test";
import assert from "node:assert/strict";
import type { ReindexMode } from "./params";
import { readFigures, rebuildPairs, summariseRuns, type ReindexSummary, type RunSummary } from "./summarise";
import type { ReadProbeRecord } from "./workload/read-probe";
import { withoutFlagged } from "./summarise";
import { CLAIMS } from "./claims";
import { adaptiveStep, experiment } from ".";
import { declarations, judge, judgeOne } from "../../stats/claim-engine";
import { planText } from "../../stats/claims";
import { assertEachDecidable } from "../../../test/support/verdicts";

interface RunInput {
  readonly tps?: number;
  readonly lostShare?: number;
  readonly updateMs?: number;
  /** Within the run: its unblocked UPDATE latency and what its lock waits add, ms. */
  readonly unblockedMs?: number;
  readonly addedMs?: number;
  readonly reindexSeconds?: number;
  readonly checkpoints?: number;
  readonly autovacuumRuns?: number;
  /** A baseline run's transaction latency average, ms (its UPDATE: updateMs, 0.125 ms). */
  readonly latencyAvgMs?: number;
  /** The write-path probe before the run, ms. */
  readonly probeMs?: number;
  /** The REINDEX window, seconds after pgbench started. */
  readonly startS?: number;
  readonly endS?: number;
  /** Seconds pg_blocking_pids named the REINDEX session (a plain REINDEX: 7 of its 8 s window; CONCURRENTLY: 0). */
  readonly byReindexS?: number;
  /** The read probe's pause, ms (20); null: no probe (off, or a run stored before it). */
  readonly readProbeMs?: number | null;
  /** The longest time in the REINDEX window with no read completing, s (reads flowing: 0.03). */
  readonly readWaitS?: number;
}

function runOf(set: number, mode: ReindexMode, x: RunInput): RunSummary {
  const reindexed = mode !== "baseline";
  return {
    key: `set${set}/${mode}`,
    set,
    mode,
    position: 0,
    checkpoints: x.checkpoints ?? 0,
    autovacuumRuns: x.autovacuumRuns ?? 0,
    outlier: false,
    flags: [],
    tps: x.tps ?? 1000,
    transactions: (x.tps ?? 1000) * 30,
    failed: 0,
    latencyAvgMs: x.latencyAvgMs ?? 2,
    p50Ms: 1.5,
    maxMs: undefined,
    updateAccountsServerMs: undefined,
    accountsLockWaitSeconds: mode === "reindex" ? 14 : 0,
    tpsVsBaseline: undefined,
    walBytesPerTransaction: undefined,
    accountsHotShare: undefined,
    updateAccountsMs: x.updateMs ?? (reindexed ? 0.6 : 0.125),
    updateUnblockedMs: reindexed ? (x.unblockedMs ?? 0.125) : x.updateMs,
    updateAddedMs: reindexed ? (x.addedMs ?? 0.475) : 0,
    reindexSeconds: reindexed ? (x.reindexSeconds ?? 8) : undefined,
    accountsReindexSeconds: reindexed ? 7 : undefined,
    reindexStartS: reindexed ? (x.startS ?? 10) : undefined,
    reindexEndS: reindexed ? (x.endS ?? 18) : undefined,
    reindexOutlastedLoad: false,
    ...readsOf(reindexed, x),
    blockedSeconds: mode === "reindex" ? 7 : 0,
    allBlockedSeconds: mode === "reindex" ? 7 : 0,
    lockWaitSessionSeconds: mode === "reindex" ? 14 : 0,
    blockedByReindexSeconds: x.byReindexS ?? (mode === "reindex" ? 7 : 0),
    topLock: mode === "reindex" ? "relation pgbench_accounts RowExclusiveLock" : undefined,
    waitShares: {},
    reindexWaitShares: { CPU: 0.8 },
    lostShare: reindexed ? (x.lostShare ?? 0.25) : undefined,
    tpsDuringReindex: reindexed ? 300 : undefined,
    tpsOutsideReindex: reindexed ? 1100 : undefined,
    series: [],
    statements: [],
    intervals: [],
    phases: [],
    startMs: 0,
    perSample: [],
    ...(x.probeMs !== undefined
      ? { speed: { what: "probe", medianMs: x.probeMs, p90Ms: x.probeMs, n: 400, at: "" } }
      : {}),
  };
}

/** The read probe's per-run figures: a window of (end − start) s read through, with reads flowing unless told. */
function readsOf(reindexed: boolean, x: RunInput) {
  if (x.readProbeMs === null) return {};
  const window = (x.endS ?? 18) - (x.startS ?? 10);
  const outside = { readProbeMs: x.readProbeMs ?? 20, readsOutside: 1000, readMedianOutsideMs: 0.15 };
  if (!reindexed) return outside;
  const waitS = x.readWaitS ?? 0.03;
  return { ...outside, readWindowS: window, readsInWindow: Math.round(window / 0.02), longestReadWaitS: waitS };
}

/** `sets` sets of baseline, reindex and concurrently; `per(set, mode)` gives each run's figures. */
function summary(
  sets: number,
  per: (set: number, mode: ReindexMode) => RunInput,
  regime = { scale: 100, durationSeconds: 30, clients: 2 },
): ReindexSummary {
  const runs: RunSummary[] = [];
  for (let set = 1; set <= sets; set++) {
    for (const mode of ["baseline", "reindex", "concurrently"] as const) runs.push(runOf(set, mode, per(set, mode)));
  }
  return summariseRuns(runs, { ...regime, hostCpus: 2 });
}

const wobble = (set: number) => ((set * 37) % 7) / 100;
const SEED = { scale: 100, durationSeconds: 30, clients: 2 };
const DEFAULT = { scale: 50, durationSeconds: 10, clients: 2 };
/** An 8 s REINDEX window inside a 10 s run as inside a 30 s one. */
const IN_10S = { startS: 1, endS: 9 };
const one = (s: ReindexSummary, id: string) => judgeOne(CLAIMS, id, s, withoutFlagged(s));
const checkClaims = (s: ReindexSummary) => judge(CLAIMS, s, withoutFlagged(s));
const DECLARATIONS = declarations(CLAIMS);
const { params, prospect } = experiment;

test("04 declarations: eight claims in one style, each with its regime, statistic and rule", () => {
  assert.deepEqual(
    DECLARATIONS.map((d) => [d.id, d.kind]),
    [
      ["1", "magnitude"],
      ["1m", "mechanism"],
      ["2", "derived"],
      ["3a", "direction"],
      ["3m", "mechanism"],
      ["3b", "direction"],
      ["r", "direction"],
      ["rc", "mechanism"],
    ],
  );
  assert.match(DECLARATIONS[3].regime, /Decided only at pgbench scale = 100/, "(3a)'s sign is this machine's: gated");
  for (const d of DECLARATIONS) {
    for (const field of [d.claim, d.seed, d.regime, d.statistic, d.rule])
      assert.ok(field.length > 10, `${d.id}: ${field}`);
  }
  assert.match(DECLARATIONS[0].seed, /20～30%/, "the seed's sentence in the original");
  assert.match(DECLARATIONS[2].seed, /×4\.25–5\.50 \(0\.535 ÷ 0\.126 = ×4\.25\)/);
  assert.match(DECLARATIONS[1].claim, /^\[the lab's check\]/);
  assert.equal(CLAIMS.notDeclared.length, 1, "more indexes: named with the reason");
  assert.match(
    DECLARATIONS[6].seed,
    /（読み込みはロックしません）.*reads are not locked/,
    "the seed's sentence and its translation",
  );
  assert.match(DECLARATIONS[6].regime, /Decided only at plain REINDEX window ÷ read probe pause ≥ 20/);
  assert.match(DECLARATIONS[7].claim, /^\[the lab's check\] REINDEX CONCURRENTLY does not block reads/);
});

test("04 (1) at the seed's protocol: the within-run drop is held inside 15–35 %, not outside, inconclusive across an edge or with 2 sets", () => {
  const drop = (sets: number, share: (set: number) => number) =>
    one(
      summary(sets, (set) => ({ lostShare: share(set) }), SEED),
      "1",
    );
  const held = drop(5, (set) => 0.22 + wobble(set));
  assert.equal(held.verdict, "held", held.decidedBy);
  assert.ok(held.interval && held.interval.n === 5);
  assert.equal(drop(5, () => 0.05).verdict, "did not hold");
  assert.equal(drop(5, () => 0.5).verdict, "did not hold");
  const edge = drop(5, (set) => 0.3 + set * 0.02);
  assert.equal(edge.verdict, "inconclusive");
  assert.match(edge.decidedBy, /reaches across the edge of 15\.0 %–35\.0 %/);
  const two = drop(2, () => 0.25);
  assert.equal(two.verdict, "inconclusive");
  assert.match(two.decidedBy, /needs ≥ 5 paired repeats \(has 2\)/);
});

test("04 (1) anywhere but the seed's protocol is not tested, with the distance measured; no stall share gates it", () => {
  const at = (regime: typeof SEED) =>
    one(
      summary(5, (set) => ({ lostShare: 0.2 + wobble(set) }), regime),
      "1",
    );
  const d = at(DEFAULT);
  assert.equal(d.verdict, "not tested at this scale", d.decidedBy);
  assert.match(
    d.decidedBy,
    /here; outside the regime: pgbench scale 50 \(needs = 100\), run length 10 s \(needs = 30 s\)/,
  );
  assert.match(d.decidedBy, /--profile full/);
  assert.match(d.ours, /window was 0 % of the 10 s run/, "the window 10–18 s of a 10 s run: nothing inside");
  assert.equal(at({ ...SEED, clients: 3 }).verdict, "not tested at this scale", "clients stay at the seed's 2");
  // This machine at the seed's protocol: a 3.6 s rebuild stalls 12 % of 30 s, and the figure is judged there.
  const here = one(
    summary(5, (set) => ({ lostShare: 0.11 + wobble(set) / 10, startS: 10, endS: 13.6 }), SEED),
    "1",
  );
  assert.equal(here.verdict, "did not hold", here.decidedBy);
  assert.match(here.ours, /window was 12 % of the 30 s run/);
});

test("04 (1m), the lab's mechanism check: lost share ÷ stall share inside 0.8–1.25 at any run length", () => {
  const at = (lost: number, regime = DEFAULT) =>
    one(
      summary(5, (set) => ({ lostShare: lost * (1 + wobble(set)), startS: 3, endS: 5 }), regime),
      "1m",
    );
  // A 2 s window in a 10 s run: a 20 % stall share.
  const held = at(0.19);
  assert.equal(held.verdict, "held", held.decidedBy);
  assert.match(held.decidedBy, /wholly inside 0\.80×–1\.25×/);
  assert.match(held.scale ?? "", /pgbench scale 50 \(the seed's 100\)/, "says the scale it was decided at");
  assert.equal(at(0.1).verdict, "did not hold", "half the window's transactions still committed");
  assert.equal(at(0.155).verdict, "inconclusive", "0.78–0.83: across 0.8");
  assert.equal(at(0.063, SEED).verdict, "held", "the same window in a 30 s run: a 6.7 % stall share");
});

test("04 (2) is derived: its arithmetic and the measured multiple are shown, never a verdict", () => {
  const c = one(
    summary(5, (set) => ({ addedMs: 0.475 * (1 + wobble(set)), unblockedMs: 0.125 }), SEED),
    "2",
  );
  assert.equal(c.verdict, "derived");
  assert.match(
    c.arithmetic ?? "",
    /^1 \+ stall share 27 % × transaction ÷ unblocked UPDATE latency 16\.0 = ×5\.27 \(measured 4\.\d\d×/,
  );
  assert.match(c.decidedBy, /not counted as evidence/);
});

test("04 (3a) at the seed's protocol: CONCURRENTLY losing fewer transactions held; swapped labels do not hold", () => {
  const s = (co: number, re: number, regime = SEED) =>
    summary(5, (set, mode) => ({ lostShare: mode === "concurrently" ? co + wobble(set) : re, ...IN_10S }), regime);
  assert.equal(one(s(0.05, 0.25), "3a").verdict, "held");
  assert.equal(one(s(0.25, 0.05), "3a").verdict, "did not hold");
  const tie = summary(5, (set, mode) => ({
    lostShare: mode === "concurrently" ? 0.2 + (set % 2 ? 0.03 : -0.03) : 0.2,
  }));
  assert.equal(one(tie, "3a").verdict, "inconclusive");
  // Its sign is set by this machine's rebuild ÷ the run: outside the seed's protocol not tested, with the value.
  for (const [co, re] of [
    [0.05, 0.25],
    [0.25, 0.05],
  ]) {
    const c = one(s(co, re, DEFAULT), "3a");
    assert.equal(c.verdict, "not tested at this scale", c.decidedBy);
    assert.match(
      c.decidedBy,
      /^[−+]\d+\.0 points \[.*\] here; outside the regime: pgbench scale 50 \(needs = 100\), run length 10 s/,
    );
    assert.match(c.why, /^the plain REINDEX's window was 80 % of the 10 s run/);
  }
});

test("04 (3m): CONCURRENTLY blocking no write held at any scale; blocking a tenth of its window or more does not hold", () => {
  const s = (blocked: number, regime = DEFAULT) =>
    summary(
      5,
      (set, mode) => ({ ...IN_10S, ...(mode === "concurrently" ? { byReindexS: blocked * (1 + wobble(set)) } : {}) }),
      regime,
    );
  for (const regime of [DEFAULT, SEED]) assert.equal(one(s(0, regime), "3m").verdict, "held");
  assert.equal(one(s(0.5), "3m").verdict, "held", "a sample in an 8 s window: 6 %");
  const c = one(s(0.85), "3m");
  assert.equal(c.verdict, "did not hold", c.decidedBy);
  assert.match(
    c.why,
    /^pg_blocking_pids named the REINDEX session for 0\.9 s of a 8\.0 s CONCURRENTLY window; with plain REINDEX, for 88 % of its window/,
  );
  assert.equal(one(s(7), "3m").verdict, "did not hold", "blocked like a plain REINDEX");
});

test("04 (3b): CONCURRENTLY taking longer held, shorter not held", () => {
  const s = (co: number) =>
    summary(5, (set, mode) => ({ reindexSeconds: mode === "concurrently" ? co * (1 + wobble(set)) : 8 }));
  assert.equal(one(s(14), "3b").verdict, "held");
  assert.equal(one(s(5), "3b").verdict, "did not hold");
  assert.doesNotMatch(one(s(14), "3b").why, /probes split/, "no set's probes split");
});

test("04 (3b) PAIR_STATE_RULE at its margin: a set whose two runs' probes are ×1.26 apart is named, ×1.25 not; every set counts", () => {
  const s = (apart: number, sets = 6) =>
    summary(sets, (set, mode) => ({
      reindexSeconds: mode === "concurrently" ? (set === 2 ? 4 : 16) * (1 + wobble(set)) : 8,
      probeMs: set === 2 && mode === "concurrently" ? 0.1 * apart : 0.1,
    }));
  assert.equal(rebuildPairs(s(1.25)).split.length, 0);
  assert.deepEqual(
    rebuildPairs(s(1.26)).split.map((e) => e.label),
    ["set 2"],
  );
  const c = one(s(1.26), "3b");
  assert.equal(c.interval?.n, 6, "every set counts");
  assert.equal(c.verdict, "inconclusive", c.decidedBy);
  assert.match(c.why, /probes split \(×1\.25\): set 2/);
  assert.doesNotMatch(one(s(1.25), "3b").why, /probes split/);
});

test("04 read figures: a read held up across the window is its longest wait; a window the probe did not read through is not measured", () => {
  // A read every 20 ms from −0.5 s; the one started at 1.0 s waits until 2.5 s (one read at a time: none meanwhile).
  const startMs: number[] = [];
  const latencyMs: number[] = [];
  for (let t = -500; t < 4000; t += 20.2) {
    const blocked = t >= 1000 && startMs.every((x) => x < 1000);
    startMs.push(blocked ? 1000 : t);
    latencyMs.push(blocked ? 1500 : 0.2);
    if (blocked) t = 2500;
  }
  const probe: ReadProbeRecord = { pauseMs: 20, zeroMs: 0, fromMs: -500, toMs: 4000, startMs, latencyMs };
  const f = readFigures(probe, 3.5, [0.9, 2.6]);
  assert.ok(Math.abs((f.readWindowS ?? 0) - 1.7) < 1e-9, `window ${f.readWindowS}`);
  assert.ok(Math.abs((f.longestReadWaitS ?? 0) - 1.5) < 0.03, `longest wait ${f.longestReadWaitS}`);
  assert.equal(f.readMaxInWindowMs, 1500);
  assert.equal(f.readMedianOutsideMs, 0.2);
  assert.ok((f.readsInWindow ?? 0) > 5 && (f.readsOutside ?? 0) > 50, JSON.stringify(f));
  // Blocked through the whole window: no read completes inside it, so the wait is the window.
  assert.ok(Math.abs((readFigures(probe, 3.5, [1.2, 2.4]).longestReadWaitS ?? 0) - 1.2) < 1e-9);
  // The window cut at the load's end; a probe that stopped (an error) inside the window leaves it unmeasured.
  assert.ok(Math.abs((readFigures(probe, 2, [0.9, 2.6]).readWindowS ?? 0) - 1.1) < 1e-9);
  const stopped = readFigures({ ...probe, toMs: 2000, error: "read probe: lost" }, 3.5, [0.9, 2.6]);
  assert.equal(stopped.longestReadWaitS, undefined);
  assert.equal(stopped.readProbeError, "read probe: lost");
  assert.deepEqual(readFigures(undefined, 3.5, [0.9, 2.6]), {}, "no probe: nothing");
});

test("04 (r): reads flowing through a plain REINDEX held, a read waiting most of the window did not hold, across the margin inconclusive", () => {
  const r = (waitS: (set: number) => number, more: RunInput = {}) =>
    one(
      summary(5, (set, mode) => (mode === "reindex" ? { readWaitS: waitS(set), ...more } : more)),
      "r",
    );
  const held = r((set) => 0.03 * (1 + wobble(set)));
  assert.equal(held.verdict, "held", held.decidedBy);
  assert.match(held.scale ?? "", /plain REINDEX window ÷ read probe pause 400/);
  // The accounts key's rebuild (7 s of the 8 s window) with the probe's read held up behind its lock.
  const locked = r((set) => 7 * (1 + wobble(set) / 10));
  assert.equal(locked.verdict, "did not hold", locked.decidedBy);
  assert.match(
    locked.why,
    /^reads started in the window: 400; the longest wait for a read 7\.\d{3} s of a 8\.000 s window, .*the accounts key took 7\.00 s to rebuild/,
  );
  assert.equal(r((set) => 8 * (0.22 + set * 0.02)).verdict, "inconclusive", "24–32 % of the window: across 25 %");
  assert.equal(r(() => 2).verdict, "did not hold", "a quarter of the window: at the margin");
});

test("04 (r) out of its regime: a window of fewer than 20 pauses is not tested; no probe is not run; a window not read through is inconclusive", () => {
  // A 0.2 s window at a 20 ms pause: 10 pauses.
  const short = one(
    summary(5, () => ({ startS: 3, endS: 3.2, readWaitS: 0.19 })),
    "r",
  );
  assert.equal(short.verdict, "not tested at this scale", short.decidedBy);
  assert.match(short.decidedBy, /here; outside the regime: plain REINDEX window ÷ read probe pause 10 \(needs ≥ 20\)/);
  const off = one(
    summary(5, () => ({ readProbeMs: null })),
    "r",
  );
  assert.equal(off.verdict, "not tested at this scale");
  assert.equal(off.ours, "not run");
  assert.match(off.decidedBy, /no plain REINDEX run with the read probe on/);
  const base = summary(5, () => ({}));
  const unread = { ...base, runs: base.runs.map((x) => ({ ...x, longestReadWaitS: undefined })) };
  const c = one(unread, "r");
  assert.equal(c.verdict, "inconclusive");
  assert.match(c.decidedBy, /needs a plain REINDEX run whose window the read probe read through/);
});

test("04 (rc), the lab's check: CONCURRENTLY leaving reads flowing held while the plain REINDEX blocks them; blocking them does not hold", () => {
  const s = (co: number) =>
    summary(5, (set, mode) => ({ readWaitS: (mode === "concurrently" ? co : 7) * (1 + wobble(set)) }));
  const held = one(s(0.03), "rc");
  assert.equal(held.verdict, "held", held.decidedBy);
  assert.equal(one(s(0.03), "r").verdict, "did not hold", "the same runs: the plain REINDEX blocked the reads");
  assert.equal(one(s(6), "rc").verdict, "did not hold");
  const off = one(
    summary(5, (_set, mode) => (mode === "concurrently" ? { readProbeMs: null } : {})),
    "rc",
  );
  assert.equal(off.verdict, "not tested at this scale");
  assert.match(off.decidedBy, /no REINDEX CONCURRENTLY run with the read probe on/);
});

test("04 plan: default decides the two mechanism checks and (3b); (1) and (3a) only at the seed's protocol (full); (2) is not evidence", () => {
  const d = prospect(params("default"));
  assert.deepEqual(
    d.map((c) => [c.id, c.prospect]),
    [
      ["1", "out of regime"],
      ["1m", "decidable"],
      ["2", "not evidence"],
      ["3a", "out of regime"],
      ["3m", "decidable"],
      ["3b", "decidable"],
      ["r", "decidable"],
      ["rc", "decidable"],
    ],
  );
  assert.match(
    planText(d),
    /can decide 5 of 7 claims \(\(r\) if plain REINDEX window ÷ read probe pause ≥ 20 .*; \(rc\) if CONCURRENTLY window ÷ read probe pause ≥ 20 .*\); not: \(1\) pgbench scale 50 \(needs = 100\), run length 10 s \(needs = 30 s\); \(3a\) pgbench scale 50/,
  );
  assert.match(planText(prospect(params("full"))), /can decide 7 of 7 claims/);
  const off = planText(prospect(params("default", { readProbeMs: 0 })));
  assert.match(
    off,
    /\(r\) unavailable: this run has no plain REINDEX run with the read probe on .*; \(rc\) unavailable/,
  );
  const two = planText(prospect(params("default", { modes: ["baseline", "reindex"] })));
  assert.match(two, /\(3a\), \(3m\), \(3b\) unavailable: this run has no REINDEX CONCURRENTLY mode/);
});

test("04 sensitivity: a run with an autovacuum is flagged and the verdict recomputed without its set", () => {
  const s = summary(
    6,
    (set, mode) => ({ lostShare: 0.22 + wobble(set), autovacuumRuns: set === 3 && mode === "reindex" ? 1 : 0 }),
    SEED,
  );
  assert.deepEqual(
    s.runs.filter((r) => r.flags.length).map((r) => [r.key, r.flags]),
    [["set3/reindex", ["1 autovacuum run(s)"]]],
  );
  const c = one(s, "1");
  assert.equal(c.verdict, "held");
  assert.match(
    c.sensitivity ?? "",
    /Without the 1 flagged set\(s\) \(set 3 reindex: 1 autovacuum run\(s\)\): the same verdict/,
  );
  const five = summary(
    5,
    (set, mode) => ({ lostShare: 0.22 + wobble(set), checkpoints: set === 1 && mode === "reindex" ? 1 : 0 }),
    SEED,
  );
  assert.match(one(five, "1").sensitivity ?? "", /"inconclusive" instead — .*needs ≥ 5 paired repeats \(has 4\)/);
});

test("04: with no runs every claim says why it has no verdict", () => {
  const claims = checkClaims(summariseRuns([], { durationSeconds: 30, clients: 2, scale: 100 }));
  assert.ok(
    claims.every((c) => /inconclusive|not tested|derived/.test(c.verdict) && /REINDEX|needs/.test(c.decidedBy)),
    JSON.stringify(claims.map((c) => c.decidedBy)),
  );
});

test("04 adaptive design: adds sets only while the mechanism check (1m) is inconclusive and the budget can reach a verdict", () => {
  const base = {
    done: 2,
    planned: 2,
    maxRepeats: 5,
    needed: 5,
    elapsedSeconds: 200,
    secondsPerRound: 95,
    budgetSeconds: 600,
  };
  const open = "inconclusive" as const;
  assert.deepEqual(adaptiveStep(open, base), {}, "3 more sets at 95 s fit in 600 s");
  assert.match(
    adaptiveStep(open, { ...base, budgetSeconds: 240 }).stop ?? "",
    /3 more \(to n = 5, where the interval can move\) at ~95 s a set would pass the time budget \(240 s\)/,
  );
  assert.match(
    adaptiveStep(open, { ...base, done: 5 }).stop ?? "",
    /still inconclusive at maxSets = 5 \(looked at n = 2, 5\)/,
  );
  assert.deepEqual(
    adaptiveStep(open, { ...base, done: 4, maxRepeats: 8, elapsedSeconds: 400 }),
    {},
    "one more set fits",
  );
  // Each stop says how the looks share the stated coverage (stats/adaptive lookPlan).
  const looks = "; adaptive: one look that can decide (n = 5), at coverage ≥ 90 %";
  assert.equal(adaptiveStep("held", base).stop, "claim (1m) held after the planned sets" + looks);
  assert.equal(adaptiveStep("did not hold", { ...base, done: 4 }).stop, "claim (1m) did not hold after 4 sets" + looks);
});

test("04 at the full profile (the seed's protocol): every judged claim reaches held and did not hold; (2) stays derived", () => {
  const full = params("full");
  const regime = { scale: full.scale, durationSeconds: full.durationSeconds, clients: full.clients };
  // The window: the REINDEX at 10 s for 7 s of the 30 s run, a 23 % stall share.
  const probe = (set: number, mode: ReindexMode) =>
    (set === 3 && mode === "concurrently" ? 0.15 : 0.088) * (1 + ((set * 13 + mode.length) % 5) / 100);
  const run = (per: (set: number, mode: ReindexMode) => RunInput) =>
    checkClaims(
      summary(
        full.sets + 1,
        (set, mode) => ({ probeMs: probe(set, mode), startS: 10, endS: 17, ...per(set, mode) }),
        regime,
      ),
    );
  const held = run((set, mode) =>
    mode === "concurrently"
      ? { lostShare: 0.05 + wobble(set), reindexSeconds: 8 * (1 + wobble(set)) }
      : { lostShare: 0.22 + wobble(set), reindexSeconds: 4 * (1 + wobble(set) / 2) },
  );
  const not = run((set, mode) =>
    mode === "concurrently"
      ? { lostShare: 0.3 + wobble(set), reindexSeconds: 3 * (1 + wobble(set)), byReindexS: 5, readWaitS: 6.5 }
      : { lostShare: 0.05, reindexSeconds: 4, readWaitS: 6.5 },
  );
  assertEachDecidable([held, not], { "2": ["derived"] });
});

/**
 * Notebook 03's statistics on synthetic rounds (no servers): what each claim is decided on, and where
 * the run is placed. The margins of every claim are the engine's generated tests (claim-engine.test).
 */
import { test } from "node:test";
import assert from "node:assert/strict";
import { CLAIMS, SEED_SERVER } from "./claims";
import { experiment } from ".";
import { summarise, withoutFlagged, type OverIndexingSummary } from "./summarise";
import { judge } from "../../stats/claim-engine";
import type { OverIndexingTrial } from "./workload/run-trials";
import type { PgbenchRunResult } from "../../workloads/pgbench";
import type { ClaimCheck } from "../../stats/claims";
import { latencyByLevel, perSecond, storageByLevel, tpsByLevel, workPerTransaction } from "./charts";

const CLIENTS = 16;
/** As the notebook judges them: the engine's verdicts with the sensitivity pass (Holm's correction of (1) in them). */
const checkClaims = (s: OverIndexingSummary) => judge(CLAIMS, s, withoutFlagged(s));

interface Shape {
  /** TPS per level (before the per-round wobble). */
  readonly tps: Readonly<Record<number, number>>;
  readonly rounds: number;
  /** Relative size of the per-round wobble (deterministic, differs between levels). */
  readonly wobble?: number;
  readonly durationSeconds?: number;
  /** Data as a fraction of the seed's (default 1: the seed's scale). */
  readonly dataScale?: number;
  /** Cache hit ratio of every round, or per level. */
  readonly hit?: number;
  readonly hitOf?: (level: number, repeat: number) => number;
  /** Bytes a round's tables and indexes grow by per transaction, per level. */
  readonly growthPerTx?: Readonly<Record<number, number>>;
  /** Rounds to disturb with a checkpoint inside: "level/repeat". */
  readonly checkpointIn?: readonly string[];
  /** The write-path speed probe before each round, ms. */
  readonly speedOf?: (level: number, repeat: number) => number;
  /** Label a round with another level (the swap test). */
  readonly relabel?: (level: number) => number;
}

function pgbench(tps: number, seconds: number): PgbenchRunResult {
  const transactions = Math.round(tps * seconds);
  return {
    args: [],
    runner: "test",
    version: "17",
    startedAtMs: 0,
    loadStartedAtMs: 0,
    finishedAtMs: seconds * 1000,
    // Little's law: every client always in a transaction.
    summary: { transactions, failed: 0, tps, latencyAvgMs: (CLIENTS / tps) * 1000, statements: [], abortedClients: 0 },
    progress: [],
    series: [],
    messages: [],
  };
}

function rounds(o: Shape): OverIndexingTrial[] {
  const out: OverIndexingTrial[] = [];
  const d = o.durationSeconds ?? 300;
  for (let repeat = 1; repeat <= o.rounds; repeat++) {
    for (const [levelText, base] of Object.entries(o.tps)) {
      const level = Number(levelText);
      const tps = base * (1 + (o.wobble ?? 0.02) * Math.sin(repeat * 2.3 + level * 0.37));
      const n = Math.round(tps * d);
      const hit = o.hitOf ? o.hitOf(level, repeat) : (o.hit ?? 0.999);
      const grow = (o.growthPerTx?.[level] ?? 4000) * n;
      const checkpoint = o.checkpointIn?.includes(`${level}/${repeat}`) ? 1 : 0;
      const labelled = o.relabel ? o.relabel(level) : level;
      out.push({
        key: `idx${labelled}/r${repeat}`,
        condition: { level: labelled },
        repeat,
        status: "ok",
        seconds: d,
        startedAt: "",
        finishedAt: "",
        pgbench: pgbench(tps, d),
        counters: {
          "db.blks_hit": hit * 1e6,
          "db.blks_read": (1 - hit) * 1e6,
          "checkpointer.requested": checkpoint,
          "wal.bytes": n * 8000,
        },
        ...(o.speedOf
          ? { speed: { what: "probe", medianMs: o.speedOf(level, repeat), p90Ms: 0, n: 400, at: "" } }
          : {}),
        sizesBefore: { "table.stock": 1e8 },
        sizesAfter: { "table.stock": 1e8 + grow },
        statements: [],
      });
    }
  }
  return out;
}

const SEED_LIKE = { 7: 1400, 14: 1200, 21: 1000, 28: 770, 39: 600 };
const summary = (o: Shape) => summarise(rounds(o), o.durationSeconds ?? 300, CLIENTS, o.dataScale ?? 1);
const atSeed = (o: Shape) => ({ ...summary(o), server: SEED_SERVER });
const row = (rows: readonly ClaimCheck[], id: string) => rows.find((c) => c.id === id)!;

test("03 at the seed's scale: (1), (2), (4), (4b), (5b) held on seed-like rounds, (3) derived, (5) not tested in 300 s rounds", () => {
  // More index bytes per transaction at 39 than its fewer transactions save: storage grows more.
  const growthPerTx = { 7: 3000, 14: 4000, 21: 5000, 28: 6000, 39: 9000 };
  const rows = checkClaims(atSeed({ tps: SEED_LIKE, rounds: 5, growthPerTx }));
  assert.deepEqual(
    rows.map((c) => [c.id, c.verdict]),
    [
      ["1", "held"],
      ["2", "held"],
      ["3", "derived"],
      ["4", "held"],
      ["4b", "held"],
      ["5", "not tested at this scale"],
      ["5b", "held"],
    ],
  );
});

test("03 (2) swapping the 7- and 39-index labels flips a held claim", () => {
  const swapped = checkClaims(atSeed({ tps: SEED_LIKE, rounds: 5, relabel: (l) => (l === 7 ? 39 : l === 39 ? 7 : l) }));
  assert.equal(row(swapped, "2").verdict, "did not hold");
});

test("03 (1): a rising step refuted by its interval stays inconclusive until Holm's correction agrees", () => {
  const rising = { ...SEED_LIKE, 14: 1500 };
  assert.equal(row(checkClaims(atSeed({ tps: rising, rounds: 5 })), "1").verdict, "inconclusive");
  assert.match(row(checkClaims(atSeed({ tps: rising, rounds: 5 })), "1").decidedBy, /Holm/);
  assert.equal(row(checkClaims(atSeed({ tps: rising, rounds: 8 })), "1").verdict, "did not hold");
});

test("03 (4): every round counts; decided only at the seed's data in the seed's memory", () => {
  const one = (level: number, repeat: number) => (level === 21 && repeat === 3 ? 0.99 : 0.999);
  assert.equal(row(checkClaims(atSeed({ tps: SEED_LIKE, rounds: 5, hitOf: one })), "4").verdict, "did not hold");
  const smallBuffers = {
    ...summary({ tps: SEED_LIKE, rounds: 5 }),
    server: { ...SEED_SERVER, sharedBuffersMB: 12288 },
  };
  assert.equal(row(checkClaims(smallBuffers), "4").verdict, "not tested at this scale");
  const small = { ...summary({ tps: SEED_LIKE, rounds: 5, dataScale: 0.01, durationSeconds: 6 }), server: SEED_SERVER };
  assert.equal(row(checkClaims(small), "4").verdict, "not tested at this scale");
});

test("03 (4b): extra read time that explains the TPS lost refutes it", () => {
  const s = atSeed({ tps: SEED_LIKE, rounds: 5 });
  // Each 39-index round spends most of the clients' time the 7-index round did not in block reads.
  const reads = {
    ...s,
    rounds: s.rounds.map((r) => (r.level === 39 ? { ...r, blockReadMs: 0.5 * 300 * CLIENTS * 1000 } : r)),
  };
  assert.equal(row(checkClaims(reads), "4b").verdict, "did not hold");
});

test("03 (5)/(5b): placed by a 39-index round's transactions per product at the seed's data, not by its seconds", () => {
  const growthPerTx = { 7: 3000, 14: 3000, 21: 3000, 28: 3000, 39: 4000 };
  // 600 TPS × 8,000 s over the seed's 20M products: past its 120-min round's transactions per product.
  const long = checkClaims(atSeed({ tps: SEED_LIKE, rounds: 5, durationSeconds: 8000, growthPerTx }));
  assert.equal(row(long, "5").verdict, "held");
  assert.equal(row(long, "5b").verdict, "not tested at this scale");
  // As many transactions per product over 2,000 products: the turning point is not the seed's at other sizes.
  const small = checkClaims(atSeed({ tps: SEED_LIKE, rounds: 5, dataScale: 0.0001, growthPerTx }));
  assert.equal(row(small, "5").verdict, "not tested at this scale");
  assert.match(row(small, "5").decidedBy, /data size/);
});

test("03 plan: the default can decide (1), (4b); (4), (5) and (5b) need the seed's data, memory and transactions", () => {
  const prospects = (profile: "default" | "full") =>
    Object.fromEntries(experiment.prospect(experiment.params(profile)).map((c) => [c.id, c.prospect]));
  const by = prospects("default");
  assert.equal(by["1"], "decidable");
  assert.equal(by["4b"], "decidable");
  assert.notEqual(by["4"], "decidable");
  assert.notEqual(by["5"], "decidable");
  assert.notEqual(by["5b"], "decidable");
  assert.equal(prospects("full")["5b"], "decidable", "full runs the seed's data in short rounds");
});

test("03 with no finished round: every chart is drawn with no points instead of failing", () => {
  const none = summary({ tps: {}, rounds: 0 });
  assert.equal(none.levels.length, 0);
  for (const figure of [tpsByLevel, latencyByLevel, storageByLevel, perSecond, workPerTransaction].map((f) => f(none)))
    for (const trace of figure.data) assert.deepEqual(trace.y ?? [], [], JSON.stringify(trace));
});

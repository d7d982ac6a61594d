import { test } from "node:test";
import assert from "node:assert/strict";
import { asTheLabsQuestions, judgeIndex } from "./claims";
import type { Judgement } from "./verdict-text";
import { experiment, type YourIndexesRun } from ".";
import { claimsTableHtml } from "../../display/claims";
import {
  summarise,
  type IndexSummary,
  type SummaryContext,
  type WriteAmplification,
  type YourIndexesSummary,
} from "./summarise";
import { medianInterval, type Interval } from "../../stats/intervals";
import { indexInfo, pgbenchAt } from "../../../test/support/your-indexes-fixtures";
import { planRounds, type YourIndexesTrial } from "./workload/run-trials";
import { updateStatements } from "./workload/scripts";
import { parsePsqlError, SqlFileError, withoutForeignRoles } from "./workload/sql-files";
import { existingToJudge, planVariants, UnknownIndexError, writtenIndexNames, indexSets } from "./workload/variants";
import { ParameterError } from "../../params/validate";
import { chooseDesign, estimate, indexesToDrop } from "./eta";
import { decisionRows, indexRows } from "./present";
import fs from "node:fs";
import os from "node:os";
import path from "node:path";

const M = 0.02;
/**
 * The interval medianInterval gives for paired values running from `low` to `high`: 5 of them (the
 * range, 93.75 %), or with `n = 3` the range that covers the median only 75 %.
 */
const cost = (low: number, high: number, n = 5): Interval =>
  medianInterval(
    Array.from({ length: n }, (_, i) => (i === n - 1 ? high : low + ((high - low) * i) / (n - 1))),
    "cost",
  );

/** An index summary's counters, none measured: the claims' why reads them. */
const BLANK = { hotStatements: [], btreeInsertsPerTx: {}, btreeSplitsPerTx: {}, walBytesPerTx: {}, hotShare: {} };

/** One judged index with these intervals, in a summary of nothing else: what judgeIndex reads. */
function judged(c: Interval | undefined, a: WriteAmplification = {}, margin = M) {
  const ix = { ...BLANK, name: "i", table: "t", cost: c, amplification: a } as unknown as IndexSummary;
  const s = { equivalenceMargin: margin, indexes: [ix], runs: [] } as unknown as YourIndexesSummary;
  return judgeIndex(s, ix);
}

test("the throughput line follows its two claims: a cost above 0 is always stated, the margin beside it", () => {
  const cases: [Interval | undefined, Judgement, RegExp][] = [
    [cost(0.001, 0.02), "costs", /^throughput costs 1\.0 % \[0\.1–2\.0 %\], inside ±2\.0 %$/],
    [cost(0.001, 0.05), "costs", /^throughput costs 2\.6 % \[0\.1–5\.0 %\], reaching past ±2\.0 %$/],
    [cost(0.0201, 0.05), "costs", /beyond ±2\.0 %$/],
    [cost(0, 0.05), "inconclusive", /straddles/], // touching 0 is not above it
    [cost(-0.02, -0.001), "within margin", /^throughput within ±2\.0 %: /], // below 0 yet inside: no cost measured
    [cost(-0.08, -0.0201), "speeds up", /^throughput: speeds the workload up 5\.0 % \[2\.0–8\.0 %\]/],
    [cost(-0.08, 0), "inconclusive", /reaches across the edge of −2\.0 %–2\.0 %/],
    // Too few rounds: inconclusive with the reason, on whichever side the interval lies.
    [cost(0.05, 0.1, 3), "inconclusive", /3 paired round\(s\) cover the median only 75 %: needs ≥ 5$/],
    [cost(-0.01, 0.01, 3), "inconclusive", /3 paired round\(s\) cover the median only 75 %/],
    [undefined, "inconclusive", /no paired rounds/],
  ];
  for (const [interval, expected, text] of cases) {
    const j = judged(interval);
    assert.equal(j.judgement, expected, `${JSON.stringify(interval)} → ${j.throughput}`);
    assert.match(j.throughput, text);
    assert.doesNotMatch(j.throughput, /no cost|seed/);
  }
  // 8.1 % [2.5–10.6 %] under ±15 % says both, never hides the cost.
  assert.match(
    judged(cost(0.025, 0.106), {}, 0.15).throughput,
    /^throughput costs 6\.6 % \[2\.5–10\.6 %\], inside ±15\.0 %$/,
  );
});

test("the write-amplification line: B-tree entries decide; too few rounds are inconclusive, never 'none'", () => {
  const none = cost(-0.01, 0.01);
  // Entries above 0 with throughput inside the margin: both stated, with WAL and HOT share beside.
  const a = { ownEntriesPerTx: cost(1, 3), walBytesPerTx: cost(100, 4000), hotShareLost: cost(0.9, 1) };
  const j = judged(none, a);
  assert.equal(j.judgement, "within margin");
  assert.equal(j.amplification.judgement, "adds");
  assert.equal(j.amplification.decision.verdict, "held");
  assert.match(
    j.text,
    /^throughput within ±2\.0 %: .*; write amplification: adds 2\.00 own B-tree entries\/tx \[1\.00–3\.00\] \(2\.00 kB WAL\/tx \[0\.10–3\.91 kB\], 95 points of t's HOT share lost \[90–100\]\)$/,
  );
  // WAL above 0 while the entries straddle 0: one counter decides, the others are not more chances.
  const w = judged(none, { ownEntriesPerTx: cost(-0.5, 0.5), walBytesPerTx: cost(100, 4000) }).amplification;
  assert.equal(w.judgement, "none above 0");
  assert.equal(w.decision.verdict, "inconclusive");
  assert.match(
    w.text,
    /^write amplification: none measurably above 0 \(0\.00 own B-tree entries\/tx \[−0\.50–0\.50\], 2\.00 kB/,
  );
  assert.equal(judged(none, { ownEntriesPerTx: cost(-1, 0) }).amplification.decision.verdict, "did not hold");
  // The audit's case: straddling 0 from 3 rounds is not "none measurably above 0" but inconclusive, with why.
  const few = judged(none, { ownEntriesPerTx: cost(-0.5, 0.5, 3) }).amplification;
  assert.equal(few.judgement, "inconclusive");
  assert.equal(few.decision.verdict, "inconclusive");
  assert.match(few.text, /^write amplification inconclusive: .*; 3 round\(s\) cover the median only 75 %: needs ≥ 5$/);
  assert.equal(judged(none, { ownEntriesPerTx: cost(1, 2, 3) }).amplification.judgement, "inconclusive");
  assert.equal(judged(none, { walBytesPerTx: cost(1, 2) }).amplification.judgement, "not measured");
  // Another index type: shown, not decided (its entries are not B-tree records).
  const gin = {
    ...BLANK,
    name: "i",
    table: "t",
    cost: none,
    amplification: a,
    definition: "CREATE INDEX i ON t USING gin (d)",
  };
  const s = { equivalenceMargin: M, indexes: [gin], runs: [] } as unknown as YourIndexesSummary;
  const g = judgeIndex(s, gin as unknown as IndexSummary).amplification;
  assert.equal(g.judgement, "not measured");
  assert.match(g.text, /^write amplification not decided: not a B-tree, .*\(2\.00 kB WAL/);
});

// 06's claims (and their sensitivity) read the summary only, not the run.
const checkClaims = (s: ReturnType<typeof summarise>) => experiment.claims(s, undefined as unknown as YourIndexesRun);
const ix = indexInfo;
const SCHEMA = [
  ix("orders_pkey", "orders", ["id"], true),
  ix("orders_status_idx", "orders", ["status"]),
  ix("products_category_idx", "products", ["category"]),
];

const pgbench = (tps: number, seconds = 5) => pgbenchAt(tps, seconds);

/** Five rounds of baseline and its two drop variants: the status index costs 20 %, the category one nothing. */
function trials(costOf: Record<string, number>, jitter: number[]): YourIndexesTrial[] {
  const out: YourIndexesTrial[] = [];
  for (let repeat = 1; repeat <= 5; repeat++) {
    const base = 1000 * (1 + jitter[repeat - 1]);
    const variants: [string, number, number, number][] = [
      // variant, TPS, orders updated, HOT updated
      ["baseline", base, 1000, 50],
      ["drop:orders_status_idx", base / (1 - costOf.orders_status_idx), 1000, 990],
      ["drop:products_category_idx", base / (1 - costOf.products_category_idx), 1000, 50],
    ];
    for (const [variant, tps, upd, hot] of variants)
      out.push({
        key: `${variant}/r${repeat}`,
        condition: { variant },
        repeat,
        status: "ok",
        seconds: 5,
        startedAt: "",
        finishedAt: "",
        pgbench: pgbench(tps),
        // Without the status index the fulfilment updates are HOT: 2 B-tree entries fewer per transaction, its
        // own and the key's. The WAL's count of all entries also carries noise the category index has no part in.
        walRecords: {
          "Btree/INSERT_LEAF": {
            count:
              Math.round(tps * 5) * (variant === "drop:orders_status_idx" ? 1 : 3) +
              (variant === "drop:products_category_idx" ? 40 : 0),
            bytes: 0,
            fpiBytes: 0,
          },
        },
        btreeEntries:
          variant === "drop:orders_status_idx"
            ? { orders_pkey: Math.round(tps * 5) }
            : { orders_pkey: Math.round(tps * 5) * 2, orders_status_idx: Math.round(tps * 5) },
        counters: {
          // 4 MB of full-page images after the clone's checkpoint, whatever the run's transaction count.
          "wal.bytes": Math.round(tps * 5) * 1500 + 4e6,
          "table.orders.n_tup_upd": upd,
          "table.orders.n_tup_hot_upd": hot,
          "table.orders.n_tup_ins": 100,
          "table.products.n_tup_ins": 0,
          "table.products.n_tup_upd": 0,
        },
      });
  }
  return out;
}

const context = (): SummaryContext => {
  const plan = planVariants(["orders_status_idx", "products_category_idx"], []);
  return {
    judged: plan.judged,
    variants: [
      { id: "baseline", indexes: SCHEMA },
      { id: "drop:orders_status_idx", indexes: SCHEMA.filter((i) => i.name !== "orders_status_idx") },
      { id: "drop:products_category_idx", indexes: SCHEMA.filter((i) => i.name !== "products_category_idx") },
    ],
    updates: updateStatements([
      {
        name: "fulfil.sql",
        text: "\\set id random(1, 10)\nUPDATE orders SET status = 'x', updated_at = now() WHERE id = :id;\n",
      },
    ]),
    params: { equivalenceMargin: M, durationSeconds: 5, clients: 4 },
  };
};

test("summarise pairs each index's variants per round; the claims follow, and swapping the labels flips them", () => {
  const jitter = [0, 0.05, -0.04, 0.1, -0.08];
  const s = summarise(trials({ orders_status_idx: 0.2, products_category_idx: 0.005 }, jitter), context());
  const status = s.indexes.find((i) => i.name === "orders_status_idx");
  const category = s.indexes.find((i) => i.name === "products_category_idx");
  assert.ok(status?.cost && category?.cost);
  assert.equal(status.pairs, 5);
  assert.ok(Math.abs(status.cost.estimate - 0.2) < 1e-9, "paired per round: the drift cancels");
  assert.ok(
    Math.abs((status.hotShare.without ?? 0) - 0.99) < 1e-9 && Math.abs((status.hotShare.with ?? 0) - 0.05) < 1e-9,
  );
  assert.deepEqual(
    status.hotStatements.map((h) => [h.statement.script, h.columns]),
    [["fulfil.sql", ["status"]]],
  );
  assert.equal(status.table, "orders");
  assert.equal(category.tableWrites?.inserted, 0);
  const claims = checkClaims(s);
  const verdict = (id: string) => claims.find((c) => c.id === id)?.verdict;
  assert.equal(claims.length, 6);
  assert.equal(verdict("orders_status_idx: throughput costs"), "held");
  assert.equal(verdict("orders_status_idx: throughput within ±2.0 %"), "did not hold");
  assert.equal(verdict("products_category_idx: throughput within ±2.0 %"), "held");
  // The status index's entries decide its write amplification; the category index's table is never
  // written: no entry, though its variant's 0.5 % more transactions spread the same full-page images
  // thinner, so WAL per transaction alone would read as the index adding some.
  assert.equal(verdict("orders_status_idx: write amplification"), "held");
  assert.match(
    claims.find((c) => c.id === "orders_status_idx: write amplification")?.ours ?? "",
    /^1\.00 \[1\.00–1\.00, .*\]; \d+ B WAL\/tx \[\d+–\d+ B\], 94 points of orders's HOT share lost \[94–94\]$/,
  );
  assert.ok((category.amplification.walBytesPerTx?.low ?? 0) > 0, JSON.stringify(category.amplification));
  assert.equal(verdict("products_category_idx: write amplification"), "did not hold");
  // Exactly 0 in every round, where all the WAL's B-tree records with − without would read below 0.
  assert.deepEqual([category.amplification.ownEntriesPerTx?.low, category.amplification.ownEntriesPerTx?.high], [0, 0]);
  assert.match(
    judgeIndex(s, category).amplification.text,
    /^write amplification: none measurably above 0 \(0\.00 own B-tree entries\/tx \[0\.00–0\.00\]/,
  );
  // A stored run counted before per-index counts: not measured, never the WAL's total in their place.
  const stored = summarise(
    trials({ orders_status_idx: 0.2, products_category_idx: 0.005 }, jitter).map(({ btreeEntries: _, ...t }) => t),
    context(),
  );
  assert.equal(stored.indexes[0].amplification.ownEntriesPerTx, undefined);
  assert.match(
    judgeIndex(stored, stored.indexes[0]).amplification.text,
    /^write amplification not measured \(.*≥ 16\)$/,
  );
  // Each claim says it is the lab's question, not a seed's.
  for (const c of claims) assert.match(c.claim, /^\[the lab's question\] /);
  assert.equal(category.amplification.hotShareLost, undefined);
  // The report's claims table names no seed and no seed's regime.
  assert.doesNotMatch(claimsTableHtml(asTheLabsQuestions(claims), "06's claims"), /seed/);
  // The table says the kinds in 06's words; the judged claims (summary.json) keep the engine's kinds.
  const shown = asTheLabsQuestions(claims);
  assert.match(claimsTableHtml(shown, "06's claims"), /direction, on this run&#39;s own workload/);
  assert.match(claimsTableHtml(shown, "06's claims"), /within the reader&#39;s declared margin/);
  assert.deepEqual([...new Set(claims.map((c) => c.kind))].sort(), ["direction", "equivalence"]);
  assert.ok(s.noiseFloor === undefined, "one baseline run a round: no noise floor");
  assert.match(
    claims.find((c) => c.id === "orders_status_idx: throughput costs")?.why ?? "",
    /HOT share of orders's updates fell 99 % → 5 %: fulfil\.sql's UPDATE of orders sets status/,
  );
  assert.match(
    claims.find((c) => c.id === "products_category_idx: throughput costs")?.why ?? "",
    /wrote no row of products/,
  );
  // The status index "speeds up" the workload when its cost is negative: the labels swapped.
  const swapped = summarise(trials({ orders_status_idx: -0.25, products_category_idx: 0 }, jitter), context());
  const flipped = checkClaims(swapped);
  assert.equal(flipped.find((c) => c.id === "orders_status_idx: throughput costs")?.verdict, "did not hold");
});

test("index names and candidates are checked against the schema and the parameters", () => {
  assert.deepEqual(existingToJudge("all", SCHEMA), ["orders_status_idx", "products_category_idx"]);
  assert.throws(
    () => existingToJudge(["orders_stauts_idx"], SCHEMA),
    (e: unknown) =>
      e instanceof UnknownIndexError &&
      /orders_status_idx, products_category_idx/.test(e.message) &&
      /orders_pkey/.test(e.message),
  );
  const plan = planVariants(["a"], ["CREATE INDEX x ON t (c)", "CREATE INDEX y ON t (d)"], ["x", "y"]);
  assert.deepEqual(
    plan.variants.map((v) => v.id),
    ["baseline", "drop:a", "add:1", "add:2", "add:all"],
  );
  assert.deepEqual(
    plan.judged.map((j) => [j.name, j.withVariant, j.withoutVariant]),
    [
      ["a", "baseline", "drop:a"],
      ["x", "add:1", "baseline"],
      ["y", "add:2", "baseline"],
      ["all candidates", "add:all", "baseline"],
    ],
  );
  const refuse = (o: object, re: RegExp) =>
    assert.throws(
      () => experiment.params("smoke", o),
      (e: unknown) => e instanceof ParameterError && re.test(e.message),
    );
  refuse({ candidates: ["DROP TABLE orders"] }, /one CREATE INDEX statement/);
  refuse({ candidates: ["CREATE INDEX a ON t (c); DROP TABLE t"] }, /one CREATE INDEX statement/);
  refuse({ schema: "no/such/file.sql" }, /schema: cannot read no\/such\/file\.sql/);
  refuse({ workload: ["data/examples/your-indexes/fulfil.sql@0"] }, /weight must be a positive integer/);
  refuse({ sampleFrom: "mysql://x" }, /postgresql:\/\/ URI/);
  refuse({ existing: [], candidates: [] }, /nothing to judge/);
  refuse({ equivalenceMargin: 0 }, /equivalenceMargin/);
  const p = experiment.params("smoke", { workload: ["data/examples/your-indexes/fulfil.sql"] });
  assert.match(p.workload[0], /fulfil\.sql@1$/);
});

test("the scripts' UPDATE statements: table and SET columns, inside WITH and with aliases", () => {
  const u = updateStatements([
    {
      name: "a.sql",
      text:
        "\\set id random(1, 9)\nBEGIN;\nUPDATE public.orders o SET status = CASE status WHEN 'a' THEN 'b' END, total = (SELECT 1), updated_at = now()\n  WHERE o.id = :id;\n" +
        'WITH m AS (SELECT 1) UPDATE "Stock" SET (qty, seen) = (1, now()) FROM m;\nCOMMIT;\n',
    },
  ]);
  assert.deepEqual(
    u.map((x) => [x.table, x.columns]),
    [
      ["orders", ["status", "total", "updated_at"]],
      ["stock", ["qty", "seen"]],
    ],
  );
});

test("rounds: the baseline between every two variants, the others in a Williams design", () => {
  const ids = ["baseline", "drop:a", "drop:b", "drop:c", "drop:d"];
  const k = ids.length - 1;
  const plan = planRounds(ids, k);
  assert.equal(plan.length, k * (2 * k + 1));
  assert.deepEqual(
    plan.filter((p) => p.repeat === 1).map((p) => p.condition.variant),
    ["baseline", "drop:a", "baseline", "drop:b", "baseline", "drop:d", "baseline", "drop:c", "baseline"],
  );
  assert.equal(new Set(plan.map((p) => p.key)).size, plan.length, "every key once");
  // Every variant is flanked by the baseline: position p − 1 and p + 1 of its round.
  for (const p of plan.filter((x) => x.condition.variant !== "baseline")) {
    const round = plan.filter((x) => x.repeat === p.repeat);
    assert.deepEqual(
      [round[p.position - 1]?.condition.variant, round[p.position + 1]?.condition.variant],
      ["baseline", "baseline"],
      p.key,
    );
  }
  // Over k rounds (k even) each variant takes every one of the k variant slots once, and follows
  // every other variant (across the baseline between them) exactly once.
  const orders = [...Array(k).keys()].map((r) =>
    plan.filter((p) => p.repeat === r + 1 && p.condition.variant !== "baseline").map((p) => p.condition.variant),
  );
  for (const id of ids.slice(1)) {
    assert.deepEqual(orders.map((o) => o.indexOf(id)).sort(), [0, 1, 2, 3], id);
    for (const other of ids.slice(1))
      if (other !== id)
        assert.equal(orders.filter((o) => o.indexOf(other) === o.indexOf(id) + 1).length, 1, `${other} after ${id}`);
  }
  // Round k + 1 starts the design again; an odd count of variants takes 2k rounds (the mirror rows).
  assert.deepEqual(
    planRounds(ids, k + 1, k + 1).map((p) => p.condition.variant),
    plan.filter((p) => p.repeat === 1).map((p) => p.condition.variant),
  );
  const odd = planRounds(["baseline", "x", "y", "z"], 6);
  const oddOrders = [1, 2, 3, 4, 5, 6].map((r) =>
    odd
      .filter((p) => p.repeat === r && p.condition.variant !== "baseline")
      .map((p) => p.condition.variant)
      .join(""),
  );
  assert.deepEqual(oddOrders, ["xyz", "yzx", "zxy", "zyx", "xzy", "yxz"]);
  // Without a baseline among them, a round is the variants alone.
  assert.deepEqual(
    planRounds(["x", "y"], 1).map((p) => p.key),
    ["x/r1", "y/r1"],
  );
});

test("each variant's cost is taken against the two baseline runs around it: a linear drift cancels", () => {
  // Rounds as planRounds runs them: B V B V B. The machine slows 10 % per run within each round;
  // the status index costs 20 %, the category index nothing.
  const costOf: Record<string, number> = { "drop:orders_status_idx": 0.2, "drop:products_category_idx": 0 };
  const plan = planRounds(["baseline", ...Object.keys(costOf)], 5);
  const out: YourIndexesTrial[] = plan.map((p) => {
    const speed = 1000 * (1 - 0.1 * p.position) * (1 + 0.05 * p.repeat);
    const cost = costOf[p.condition.variant] ?? 0;
    const tps = p.condition.variant === "baseline" ? speed : speed / (1 - cost);
    return {
      ...p,
      status: "ok",
      seconds: 5,
      startedAt: "",
      finishedAt: "",
      pgbench: pgbench(tps),
      counters: { "table.orders.n_tup_upd": 10, "table.orders.n_tup_hot_upd": 1 },
    };
  });
  const s = summarise(out, context());
  const status = s.indexes.find((i) => i.name === "orders_status_idx");
  const category = s.indexes.find((i) => i.name === "products_category_idx");
  assert.ok(status?.cost && category?.cost);
  assert.equal(status.pairs, 5);
  // The noise floor (the middle baseline run against its two baseline neighbours): a linear drift
  // alone leaves nothing, one per round.
  assert.equal(s.noiseFloor?.n, 5);
  assert.ok(
    Math.abs(s.noiseFloor?.q25 ?? 1) < 1e-9 && Math.abs(s.noiseFloor?.q75 ?? 1) < 1e-9,
    JSON.stringify(s.noiseFloor),
  );
  // Against one baseline run two places away the drift alone would read as ±20 %; against the mean
  // of the two around it, it cancels to within the second-order term of 1 − b/v.
  assert.ok(Math.abs(status.cost.estimate - 0.2) < 0.01, JSON.stringify(status.cost));
  assert.ok(Math.abs(category.cost.low) < 0.01 && Math.abs(category.cost.high) < 0.01, JSON.stringify(category.cost));
  assert.equal(checkClaims(s).find((c) => c.id === "products_category_idx: throughput within ±2.0 %")?.verdict, "held");
  // The same runs paired with the first baseline of the round only would not have held it.
  const firstOnly = summarise(
    out.filter((t) => t.condition.variant !== "baseline" || t.position === 0),
    context(),
  );
  const far = firstOnly.indexes.find((i) => i.name === "products_category_idx");
  assert.ok(far?.cost && (far.cost.low < -0.02 || far.cost.high > 0.02), JSON.stringify(far?.cost));
  assert.notEqual(
    checkClaims(firstOnly).find((c) => c.id === "products_category_idx: throughput within ±2.0 %")?.verdict,
    "held",
  );
});

test("pg_dump's role lines are left out line for line, and psql's error names the reader's file and line", () => {
  const dump = [
    "SET statement_timeout = 0;",
    "\\restrict abc123",
    "CREATE TABLE public.t (id integer);",
    "ALTER TABLE public.t OWNER TO app_owner;",
    "GRANT SELECT ON TABLE public.t TO reporting;",
    "\\unrestrict abc123",
  ].join("\n");
  const kept = withoutForeignRoles(dump).split("\n");
  assert.equal(kept.length, 6, "line numbers stay the file's own");
  assert.deepEqual(
    kept.map((l) => l.startsWith("-- (left out by the lab)")),
    [false, true, false, true, true, true],
  );
  const e = parsePsqlError(
    'psql:/tmp/dblab-sql-x/schema.sql:12: ERROR:  relation "nowhere" does not exist\nLINE 1: CREATE TABLE b (id int REFERENCES nowhere (id));\n',
    "my/schema.sql",
    "/tmp/dblab-sql-x/schema.sql",
  );
  assert.ok(e instanceof SqlFileError);
  assert.equal(e.line, 12);
  assert.equal(e.file, "my/schema.sql");
  assert.match(e.message, /^my\/schema\.sql:12: relation "nowhere" does not exist · LINE 1:/);
});

test("index names as CREATE INDEX writes them: quoted and qualified names reduced, an unnamed one gives none", () => {
  assert.deepEqual(
    writtenIndexNames(
      [
        "CREATE INDEX orders_status_idx ON orders (status);",
        'create unique index if not exists "Orders_Ref" ON public.orders (ref);',
        "CREATE INDEX CONCURRENTLY public.lines_product_idx ON order_lines (product_id);",
        "CREATE INDEX ON orders (created_at);",
        "-- CREATE INDEX commented_idx ON orders (x);",
      ].join("\n"),
    ),
    ["orders_status_idx", "Orders_Ref", "lines_product_idx"],
  );
});

test("groups and the design: a set is one variant; 32 indexes get the sets first at default, the example one at a time", () => {
  const sets = indexSets({ cold: ["a", "b"], added: ["x", "y"] }, ["a", "b", "c"], ["x", "y"], "sets");
  assert.deepEqual(
    sets.map((s) => [s.name, s.drop, s.add]),
    [
      ["all 3 existing", ["a", "b", "c"], []],
      ["cold", ["a", "b"], []],
      ["added", [], [0, 1]],
    ],
  );
  const plan = planVariants(
    ["a", "b", "c"],
    ["CREATE INDEX x ON t (c)", "CREATE INDEX y ON t (d)"],
    ["x", "y"],
    sets,
    "sets",
  );
  assert.deepEqual(
    plan.variants.map((v) => v.id),
    ["baseline", "set:all 3 existing", "set:cold", "set:added", "add:all"],
  );
  assert.deepEqual(plan.variants[2].change, { kind: "drop", indexes: ["a", "b"] });
  assert.deepEqual(
    plan.judged.map((j) => [j.name, j.kind, j.withVariant, j.withoutVariant]),
    [
      ["all 3 existing", "set", "baseline", "set:all 3 existing"],
      ["cold", "set", "baseline", "set:cold"],
      ["added", "set", "set:added", "baseline"],
      ["all candidates", "candidates together", "add:all", "baseline"],
    ],
  );
  // A schema of 32 secondary indexes at the default profile: one at a time is 65 runs a round.
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), "dblab-06-design-"));
  try {
    const schema = path.join(dir, "schema.sql");
    fs.writeFileSync(
      schema,
      "CREATE TABLE t (id int PRIMARY KEY, " +
        Array.from({ length: 32 }, (_, i) => `c${i} int`).join(", ") +
        ");\n" +
        Array.from({ length: 32 }, (_, i) => `CREATE INDEX t_c${i}_idx ON t (c${i});`).join("\n") +
        "\nCREATE UNIQUE INDEX t_c0_key ON t (c0);\n",
    );
    const big = experiment.params("default", { schema, candidates: [] });
    assert.equal(indexesToDrop(big).length, 32, "the unique index is not counted");
    const chosen = chooseDesign(big);
    assert.equal(chosen.design, "sets");
    assert.match(chosen.why, /^the sets first: one at a time would be 32 variants, 65 runs a round × 8 rounds/);
    assert.match(chosen.why, /the sets are 1 variants, 3 runs a round × 8 rounds/);
    // The ETA counts the design the run will use: 3 runs a round.
    assert.equal(estimate.units(big, false, { root: dir, notebook: "06-your-indexes" }).length, 3 * 8);
    assert.equal(chooseDesign({ ...big, oneAtATime: "always" }).design, "each");
    // The example at default: 6 variants, 13 runs a round, within the budget.
    const example = experiment.params("default", {});
    assert.equal(chooseDesign(example).design, "each");
    assert.equal(chooseDesign({ ...example, oneAtATime: "never" }).design, "sets");
  } finally {
    fs.rmSync(dir, { recursive: true, force: true });
  }
  const refuse = (o: object, re: RegExp) =>
    assert.throws(
      () => experiment.params("smoke", o),
      (e: unknown) => e instanceof ParameterError && re.test(e.message),
    );
  refuse(
    {
      groups: { mixed: ["orders_status_idx", "orders_created_at_idx"] },
      candidates: ["CREATE INDEX orders_created_at_idx ON orders (created_at)"],
    },
    /mixes candidates/,
  );
  refuse({ groups: { empty: [] } }, /groups\.empty is empty/);
  refuse({ groups: { orders_status_idx: ["suppliers_country_idx"] } }, /also an index judged on its own/);
  refuse({ oneAtATime: "sometimes" }, /oneAtATime/);
});

test("06 in an adaptive run: the cost is decided at the looks' per-look coverage (stats/adaptive lookPlan)", () => {
  // Five rounds' range covers the median with 93.8 %: enough at 90 %, too little at a look of 95 %.
  const five = medianInterval([0.2, 0.21, 0.22, 0.23, 0.24], "synthetic cost");
  const at = (c: Interval, level?: number) => {
    const ix = { ...BLANK, name: "i", table: "t", cost: c, amplification: {} } as unknown as IndexSummary;
    const looks = level ? { coverage: 0.9, level, looks: [5, 9], family: 0.9 } : undefined;
    const s = { equivalenceMargin: M, indexes: [ix], runs: [], looks } as unknown as YourIndexesSummary;
    return judgeIndex(s, ix);
  };
  assert.equal(at(five).judgement, "costs");
  const look = at(five, 0.95);
  assert.equal(look.judgement, "inconclusive");
  assert.match(look.throughput, /needs ≥ 6|cover/);
  const six = medianInterval([0.2, 0.21, 0.22, 0.23, 0.24, 0.25], "synthetic cost");
  assert.equal(at(six, 0.95).judgement, "costs");
});

test("a set's HOT share is its most-updated table's, named when its members span several tables; one index keeps its own", () => {
  // Seed 002's shape: the first candidate is on products (never updated), the second on stock, whose
  // updates are 42 % HOT without the set and none with it.
  const statements = ["CREATE INDEX products_name_idx ON products (name)", "CREATE INDEX stock_qty_idx ON stock (qty)"];
  const names = ["products_name_idx", "stock_qty_idx"];
  const base = [ix("products_pkey", "products", ["id"], true), ix("stock_pkey", "stock", ["id"], true)];
  const added = [ix(names[0], "products", ["name"]), ix(names[1], "stock", ["qty"])];
  const runs = (variants: [string, number][]): YourIndexesTrial[] =>
    [1, 2, 3, 4, 5].flatMap((repeat) =>
      variants.map(([variant, hot], position) => ({
        key: `${variant}/r${repeat}`,
        condition: { variant },
        repeat,
        position,
        status: "ok" as const,
        seconds: 5,
        startedAt: "",
        finishedAt: "",
        pgbench: pgbench(variant === "baseline" ? 1000 : 600),
        counters: {
          "table.products.n_tup_upd": 0,
          "table.products.n_tup_hot_upd": 0,
          "table.stock.n_tup_upd": 1000,
          "table.stock.n_tup_hot_upd": hot,
        },
      })),
    );
  const updates = updateStatements([{ name: "t.sql", text: "UPDATE stock SET qty = qty - 1 WHERE id = 1;\n" }]);
  const together = planVariants([], statements, names, [], "sets");
  assert.deepEqual(
    together.judged.map((j) => j.kind),
    ["candidates together"],
  );
  const s = summarise(
    runs([
      ["baseline", 420],
      ["add:all", 0],
    ]),
    {
      judged: together.judged,
      variants: [
        { id: "baseline", indexes: base },
        { id: "add:all", indexes: [...base, ...added] },
      ],
      updates,
      params: { equivalenceMargin: M, durationSeconds: 5, clients: 4 },
    },
  );
  const all = s.indexes[0];
  assert.equal(all.table, "stock");
  assert.deepEqual(all.tables, ["products", "stock"]);
  assert.deepEqual(all.hotShare, { with: 0, without: 0.42 });
  assert.ok(Math.abs((all.amplification.hotShareLost?.estimate ?? 0) - 0.42) < 1e-9, JSON.stringify(all.amplification));
  const row = decisionRows(s)[0];
  assert.equal(row["HOT share lost, points"], "+42 [42–42] (stock)");
  assert.match(String(indexRows(s)[0].table), /^stock \(HOT share; also on products\)$/);
  // One index keeps its own table, even one the workload never updates: nothing lost, nothing named.
  const alone = planVariants([], [statements[0]], [names[0]]);
  const one = summarise(
    runs([
      ["baseline", 420],
      ["add:1", 420],
    ]),
    {
      judged: alone.judged,
      variants: [
        { id: "baseline", indexes: base },
        { id: "add:1", indexes: [...base, added[0]] },
      ],
      updates,
      params: { equivalenceMargin: M, durationSeconds: 5, clients: 4 },
    },
  ).indexes[0];
  assert.equal(one.table, "products");
  assert.deepEqual(one.tables, ["products"]);
  assert.equal(one.amplification.hotShareLost, undefined);
});

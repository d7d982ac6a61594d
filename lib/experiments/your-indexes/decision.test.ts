import { test } from "node:test";
import assert from "node:assert/strict";
import { decide, type ReadEffect } from "./decision";
import { summarise, type SummaryContext } from "./summarise";
import type { ReadRun, YourIndexesTrial } from "./workload/run-trials";
import { planVariants } from "./workload/variants";
import { experiment as yourIndexesExperiment } from ".";
import { ParameterError } from "../../params/validate";
import type { Interval } from "../../stats/intervals";
import { indexInfo, pgbenchAt } from "../../../test/support/your-indexes-fixtures";

const interval = (estimate: number, low: number, high: number, n = 8, coverage = 0.93): Interval => ({
  estimate,
  low,
  high,
  n,
  coverage,
  of: "test",
});
const cost = interval(0.03, 0.01, 0.05);
const read = (script: string, slowdown: Interval | undefined, scansPerRun: number, runsWith = 8): ReadEffect => ({
  script,
  ...(slowdown ? { slowdown } : {}),
  latencyMs: { with: 1, without: slowdown ? slowdown.estimate : undefined },
  scansPerRun,
  runsWith,
});

test("the decision line: a clear slowdown through the index keeps it, with the script, the factor and its interval", () => {
  const d = decide({ cost, adds: false, reads: [read("history.sql", interval(14, 12, 16), 5)] }, ["history.sql"]);
  assert.equal(d.kind, "keep");
  assert.equal(
    d.text,
    "keep: history.sql runs 14× slower without it [12–16] (dropping it saves 3.0 % [1.0–5.0 %] of write throughput)",
  );
  assert.deepEqual(d.slowerWithout, ["history.sql"]);
  // The slowest script first; another one slower too is named after it.
  const two = decide(
    {
      cost,
      adds: false,
      reads: [read("a.sql", interval(1.5, 1.2, 1.9), 2), read("b.sql", interval(30, 25, 41), 1)],
    },
    ["a.sql", "b.sql"],
  );
  assert.match(two.text, /^keep: b\.sql runs 30× slower without it \[25–41\]; a\.sql 1\.50× \[1\.20–1\.90\] \(/);
  // A candidate: "add", and its cost is what adding it would cost.
  const add = decide({ cost, adds: true, reads: [read("history.sql", interval(14, 12, 16), 5)] }, ["history.sql"]);
  assert.match(add.text, /^add: history\.sql runs 14× slower without it \[12–16\] \(adding it would cost 3.0 %/);
  // Two rounds: the interval is their range, and the line says so.
  const thin = decide({ cost, adds: false, reads: [read("history.sql", interval(20, 18, 22, 2, 0.5), 5)] }, [
    "history.sql",
  ]);
  assert.match(thin.text, /runs 20× slower without it \[18–22, the range of 2 rounds\]/);
});

test("the decision line: an interval straddling 1 (or touching it) is not a slowdown, though the script reads through it", () => {
  for (const slowdown of [interval(1.02, 0.97, 1.08), interval(1.1, 1, 1.3)]) {
    const d = decide({ cost, adds: false, reads: [read("history.sql", slowdown, 40)] }, ["history.sql"]);
    assert.equal(d.kind, "read, not slower without", JSON.stringify(slowdown));
    assert.deepEqual(d.readBy, ["history.sql"]);
    assert.deepEqual(d.slowerWithout, []);
    assert.match(
      d.text,
      /^history\.sql reads through it, but none is measured slower without it \(history\.sql 1\.\d+× \[/,
    );
    assert.match(d.text, /; dropping it saves 3.0 % \[1\.0–5\.0 %\] of write throughput$/);
  }
  // Just above 1 is a slowdown.
  assert.equal(
    decide({ cost, adds: false, reads: [read("history.sql", interval(1.1, 1.01, 1.3), 40)] }, ["history.sql"]).kind,
    "keep",
  );
  // Faster without it: said with its figures, not as a reason to keep it.
  const faster = decide({ cost, adds: false, reads: [read("q.sql", interval(0.8, 0.7, 0.9), 3)] }, ["q.sql"]);
  assert.equal(faster.kind, "read, not slower without");
  assert.match(faster.text, /q\.sql 0\.80× \[0\.70–0\.90\] without it/);
});

test("the decision line: nothing measured reads through an index no script scanned, whatever its latency ratio", () => {
  const d = decide(
    {
      cost: interval(-0.012, -0.03, 0.051),
      adds: false,
      // Slower without it, but not through it: the writes left more rows behind, not a lost index.
      reads: [read("history.sql", interval(1.05, 1.01, 1.09), 0), read("report.sql", interval(1, 0.98, 1.02), 0)],
    },
    ["history.sql", "report.sql"],
  );
  assert.equal(d.kind, "nothing reads it");
  // A cost whose interval reaches 0 is no saving: said as what was measured.
  assert.equal(
    d.text,
    "nothing measured reads through it; its write cost is not measurably above 0: −1.2 % [−3.0–5.1 %] of write throughput",
  );
  // A script whose runs all failed is not counted as one that does not read it.
  const partly = decide(
    { cost, adds: false, reads: [read("a.sql", undefined, 0, 0), read("b.sql", interval(1, 0.9, 1.1), 0)] },
    ["a.sql", "b.sql"],
  );
  assert.match(partly.text, /^nothing measured reads through it \(1 of 2 read scripts gave no figures\)/);
  // No read scripts: the read side is not measured, and the line says so.
  const none = decide({ cost, adds: false, reads: [] }, []);
  assert.equal(none.kind, "reads not measured");
  assert.match(
    none.text,
    /^no read script given \(reads\): what it buys your reads is not measured; dropping it saves 3.0 %/,
  );
  assert.match(decide({ adds: false, reads: [] }, []).text, /its write cost was not measured/);
});

const ix = indexInfo;
const SCHEMA = [
  ix("orders_pkey", "orders", ["id"], true),
  ix("orders_customer_idx", "orders", ["customer_id"]),
  ix("suppliers_country_idx", "suppliers", ["country"]),
];

const pgbench = (tps: number) => pgbenchAt(tps, 2, false);

test("summarise pairs each read script's latency per round and counts the scans of each judged index where it exists", () => {
  const plan = planVariants(["orders_customer_idx", "suppliers_country_idx"], []);
  const trials: YourIndexesTrial[] = [];
  for (let repeat = 1; repeat <= 5; repeat++) {
    // The machine drifts from round to round; the pairing cancels it.
    const speed = 1 + 0.1 * (repeat % 3);
    const runs: [string, number, ReadRun][] = [
      [
        "baseline",
        1000,
        {
          script: "history.sql",
          transactions: 500,
          p50Ms: 0.5 * speed,
          indexScans: { "orders.orders_customer_idx": 500 },
        },
      ],
      [
        "drop:orders_customer_idx",
        1050,
        { script: "history.sql", transactions: 20, p50Ms: 10 * speed, indexScans: {} },
      ],
      [
        "drop:suppliers_country_idx",
        1000,
        {
          script: "history.sql",
          transactions: 500,
          p50Ms: 0.5 * speed,
          indexScans: { "orders.orders_customer_idx": 500 },
        },
      ],
    ];
    runs.forEach(([variant, tps, r], position) =>
      trials.push({
        key: `${variant}/r${repeat}`,
        condition: { variant },
        repeat,
        position,
        status: "ok",
        seconds: 2,
        startedAt: "",
        finishedAt: "",
        pgbench: pgbench(tps),
        counters: {},
        reads: [r],
      }),
    );
  }
  const ctx: SummaryContext = {
    judged: plan.judged,
    variants: [
      { id: "baseline", indexes: SCHEMA },
      { id: "drop:orders_customer_idx", indexes: SCHEMA.filter((i) => i.name !== "orders_customer_idx") },
      { id: "drop:suppliers_country_idx", indexes: SCHEMA.filter((i) => i.name !== "suppliers_country_idx") },
    ],
    updates: [],
    params: { equivalenceMargin: 0.05, durationSeconds: 2, clients: 8 },
    reads: [{ name: "history.sql" }],
  };
  const s = summarise(trials, ctx);
  assert.deepEqual(s.readScripts, ["history.sql"]);
  const customer = s.indexes.find((i) => i.name === "orders_customer_idx");
  const suppliers = s.indexes.find((i) => i.name === "suppliers_country_idx");
  assert.ok(customer && suppliers);
  const [r] = customer.reads;
  assert.equal(r.script, "history.sql");
  assert.ok(r.slowdown && Math.abs(r.slowdown.estimate - 20) < 1e-9, JSON.stringify(r.slowdown));
  assert.equal(r.slowdown.n, 5);
  assert.equal(r.scansPerRun, 500);
  assert.equal(customer.decision.kind, "keep");
  assert.match(customer.decision.text, /^keep: history\.sql runs 20× slower without it \[20–20\]/);
  assert.deepEqual(customer.indexNames, ["orders_customer_idx"]);
  assert.equal(suppliers.reads[0].scansPerRun, 0);
  assert.ok(suppliers.reads[0].slowdown && Math.abs(suppliers.reads[0].slowdown.estimate - 1) < 1e-9);
  assert.equal(suppliers.decision.kind, "nothing reads it");
  assert.match(
    suppliers.decision.text,
    /^nothing measured reads through it; its write cost is not measurably above 0: 0.0 %/,
  );
  // Without read scripts in the context, every row says the read side was not measured.
  const bare = summarise(trials, { ...ctx, reads: [] });
  assert.ok(bare.indexes.every((i) => i.reads.length === 0 && i.decision.kind === "reads not measured"));
});

test("reads: each a readable file without a weight; the example's default reads its order history", () => {
  const p = yourIndexesExperiment.params("default");
  assert.equal(p.reads.length, 1);
  assert.match(p.reads[0], /data\/examples\/your-indexes\/order-history\.sql$/);
  assert.deepEqual(yourIndexesExperiment.params("default", { reads: [] }).reads, []);
  // A schema of the reader's own takes neither the example's read script nor its candidate (its
  // tables cannot run them), unless the reader names them.
  const schema = "data/examples/your-indexes/schema.sql";
  const own = yourIndexesExperiment.params("default", { schema });
  assert.deepEqual([own.reads, own.candidates], [[], []]);
  assert.equal(yourIndexesExperiment.params("default", { schema, reads: p.reads }).reads.length, 1);
  assert.throws(
    () => yourIndexesExperiment.params("default", { reads: ["data/examples/your-indexes/order-history.sql@3"] }),
    (e: unknown) =>
      e instanceof ParameterError && /reads\[0\]: a read script runs alone, so it takes no @weight/.test(e.message),
  );
  assert.throws(
    () => yourIndexesExperiment.params("default", { reads: ["no/such/read.sql"] }),
    (e: unknown) => e instanceof ParameterError && /reads\[0\]: cannot read no\/such\/read\.sql/.test(e.message),
  );
  assert.throws(() => yourIndexesExperiment.params("default", { readSeconds: 0 }), ParameterError);
});

test("existing: a schema of the reader's own judges all its secondary indexes at every profile, not smoke's example names", () => {
  assert.deepEqual(yourIndexesExperiment.params("smoke").existing, ["orders_status_idx", "suppliers_country_idx"]);
  const schema = "data/examples/over-indexed/schema.sql";
  const candidates = ["CREATE INDEX stock_quantity_idx ON stock (quantity)"];
  for (const profile of ["smoke", "default"] as const)
    assert.equal(yourIndexesExperiment.params(profile, { schema, candidates }).existing, "all", profile);
  // A source of the reader's own, too; and what the reader names is kept.
  assert.equal(yourIndexesExperiment.params("smoke", { sampleFrom: "postgresql://db.example/shop" }).existing, "all");
  assert.deepEqual(yourIndexesExperiment.params("smoke", { schema, candidates, existing: [] }).existing, []);
  assert.deepEqual(yourIndexesExperiment.params("smoke", { schema, existing: ["stock_x_idx"] }).existing, [
    "stock_x_idx",
  ]);
});

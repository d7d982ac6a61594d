import { test } from "node:test";
import assert from "node:assert/strict";
import { experiment } from ".";
import { datasetShape, samplePercent, transactionScript } from "./workload/dataset";
import {
  ADD_FOREIGN_KEYS_SQL,
  DROP_FOREIGN_KEYS_SQL,
  extraIndexesFor,
  FOREIGN_KEYS,
  INDEX_GROUPS,
  INDEX_LEVELS,
  indexName,
  SCHEMA_SQL,
} from "./workload/schema";
import { planRounds } from "./workload/run-trials";

test("parameters: profiles resolve; bad values are refused with a clear message", () => {
  const d = experiment.params("default");
  assert.deepEqual(d.indexLevels, [7, 14, 21, 28, 39]);
  assert.equal(d.clients, 16);
  assert.equal(d.threads, 8);
  assert.equal(experiment.params("full").dataScale, 1, "full is the seed's data size");
  assert.deepEqual(experiment.params("smoke", { indexLevels: [39, 7] }).indexLevels, [7, 39], "levels sorted");
  assert.throws(() => experiment.params("smoke", { indexLevel: [7] } as never), /unknown parameter "indexLevel"/);
  assert.throws(
    () => experiment.params("smoke", { indexLevels: [7, 10] }),
    /indexLevels\[1\] must be one of 7, 14, 21, 28, 39/,
  );
  assert.throws(() => experiment.params("smoke", { indexLevels: [7, 7] }), /lists a level twice/);
  assert.throws(() => experiment.params("smoke", { indexLevels: [] }), /non-empty list/);
  assert.throws(
    () => experiment.params("smoke", { clients: 2, threads: 4 }),
    /threads \(4\) cannot exceed clients \(2\)/,
  );
  assert.throws(() => experiment.params("smoke", { dataScale: 0 }), /dataScale must be a number > 0/);
  assert.throws(() => experiment.params("smoke", { dataScale: 0.00001 }), /fewer than 1,000 products/);
  assert.throws(() => experiment.params("smoke", { randomSeed: 2 }), /randomSeed must be a number ≥ -1 and ≤ 1/);
  assert.throws(
    () => experiment.params("smoke", { sharedBuffersMB: 4096, memoryGiB: 2 }),
    /below the server's memory limit/,
  );
});

test("the schema's levels: 7 from constraints, +7, +7, +7, then every remaining non-key column for 39", () => {
  assert.deepEqual([...INDEX_LEVELS], [7, 14, 21, 28, 39]);
  assert.deepEqual(
    INDEX_GROUPS.map((g) => g.indexes.length),
    [7, 7, 7, 11],
  );
  assert.equal(extraIndexesFor(7).length, 0);
  assert.equal(extraIndexesFor(39).length, 32);
  const names = extraIndexesFor(39).map(indexName);
  assert.equal(new Set(names).size, 32, "no column indexed twice");
  assert.ok(!names.some((n) => /_id$/.test(n) && n.startsWith("idx_products")), "keys are not indexed again");
  assert.throws(() => extraIndexesFor(10), /not one of 7, 14, 21, 28, 39/);
});

test("the load drops and re-adds exactly the schema's foreign keys, under the names PostgreSQL gave them", () => {
  // Each table's REFERENCES clauses, as SCHEMA_SQL declares them.
  const declared = [...SCHEMA_SQL.matchAll(/CREATE TABLE (\w+) \(([\s\S]*?)\n\);/g)].flatMap(([, table, body]) =>
    [...body.matchAll(/^\s*(\w+)\s+integer REFERENCES (\w+) \(id\) ON DELETE CASCADE,$/gm)].map(
      ([, column, references]) => ({ table, column, references }),
    ),
  );
  assert.equal(declared.length, 4);
  assert.deepEqual(FOREIGN_KEYS, declared);
  for (const { table, column, references } of declared) {
    assert.match(
      DROP_FOREIGN_KEYS_SQL,
      new RegExp(`ALTER TABLE ${table} [^;]*DROP CONSTRAINT ${table}_${column}_fkey`),
    );
    assert.match(
      ADD_FOREIGN_KEYS_SQL,
      new RegExp(
        `ALTER TABLE ${table} [^;]*ADD CONSTRAINT ${table}_${column}_fkey FOREIGN KEY \\(${column}\\) REFERENCES ${references} \\(id\\) ON DELETE CASCADE`,
      ),
    );
  }
});

test("levels rotate between rounds: each level takes each position once in as many rounds as levels", () => {
  const plan = planRounds([7, 14, 21], 3);
  assert.deepEqual(
    plan.map((p) => p.key),
    ["idx7/r1", "idx14/r1", "idx21/r1", "idx14/r2", "idx21/r2", "idx7/r2", "idx21/r3", "idx7/r3", "idx14/r3"],
  );
  for (const level of [7, 14, 21]) {
    assert.deepEqual(
      plan
        .filter((p) => p.condition.level === level)
        .map((p) => p.order)
        .sort(),
      [0, 1, 2],
      `${level} at every position`,
    );
  }
});

test("dataset shape and TABLESAMPLE percentage scale with one number", () => {
  assert.deepEqual(datasetShape(1), {
    products: 20_000_000,
    warehouses: 2_500,
    stockDraws: 50_000_000,
    movements: 1_000_000,
  });
  assert.deepEqual(datasetShape(0.01), {
    products: 200_000,
    warehouses: 2_500,
    stockDraws: 500_000,
    movements: 10_000,
  });
  assert.equal(samplePercent(600_000), 0.05, "the seed's 0.05 % at the seed's size");
  assert.equal(samplePercent(4_000), 0.5, "20 pages expected on a small table");
  const script = transactionScript(2500, 0.5);
  assert.match(script, /^BEGIN;/);
  assert.match(script, /TABLESAMPLE SYSTEM \(0\.5\) LIMIT 10/);
  assert.match(script, /floor\(random\(\) \* 2500\)::int \+ 1/);
  assert.match(script, /COMMIT;\n$/);
});

/**
 * data/examples/over-indexed/ is notebook 03's benchmark (seed 002's schema, load and transaction)
 * written as notebook 06's input files: these tests fail when the files and 03's definitions drift apart.
 */
import { test } from "node:test";
import assert from "node:assert/strict";
import fs from "node:fs";
import path from "node:path";
import { experiment as overIndexing } from "../../lib/experiments/over-indexing";
import {
  datasetShape,
  loadStatements,
  samplePercent,
  transactionScript,
} from "../../lib/experiments/over-indexing/workload/dataset";
import { createIndexSql, extraIndexesFor, SCHEMA_SQL } from "../../lib/experiments/over-indexing/workload/schema";
import { experiment as yourIndexes } from "../../lib/experiments/your-indexes";

const DIR = path.resolve(__dirname, "..", "..", "..", "data", "examples", "over-indexed");
const read = (file: string) => fs.readFileSync(path.join(DIR, file), "utf8");
/** SQL without `--` comment lines, whitespace folded. */
const folded = (sql: string) =>
  sql
    .split("\n")
    .filter((l) => !/^\s*--/.test(l))
    .join(" ")
    .replace(/\s+/g, " ")
    .trim();

test("schema.sql is 03's SCHEMA_SQL: the same tables, columns and constraint indexes", () => {
  assert.equal(folded(read("schema.sql")), folded(SCHEMA_SQL));
});

test("candidates.json is 03's 32 extra indexes of level 39, names and columns as 03 builds them", () => {
  const candidates = JSON.parse(read("candidates.json")) as string[];
  const extras = extraIndexesFor(39).map(createIndexSql);
  assert.equal(extras.length, 32);
  // The order is not the comparison's: 06 builds the set's indexes together.
  assert.deepEqual([...candidates].sort(), [...extras].sort());
});

test("data.sql is 03's load at any :scale, with 03's random seed", () => {
  const text = read("data.sql");
  // The sizes: `greatest(1, round(N * :scale))::int AS name`, N being 03's shape at scale 1.
  const sizes = Object.fromEntries(
    [...text.matchAll(/greatest\(1, round\((\d+) \* :scale\)\)::int AS (\w+)/g)].map((m) => [m[2], Number(m[1])]),
  );
  const seedShape = datasetShape(1);
  assert.deepEqual(sizes, {
    products: seedShape.products,
    stock_draws: seedShape.stockDraws,
    movements: seedShape.movements,
  });
  const seed = overIndexing.params("default").randomSeed;
  for (const scale of [0.01, 0.0005]) {
    const shape = datasetShape(scale);
    const vars: Record<string, number> = {
      products: shape.products,
      stock_draws: shape.stockDraws,
      movements: shape.movements,
    };
    const statements = folded(text)
      .replace(/^SELECT greatest.*?\\gset /, "")
      .replace(/:(\w+)/g, (whole: string, name: string) => (name in vars ? String(vars[name]) : whole))
      .split(";")
      .map((s) => s.trim())
      .filter(Boolean);
    // 06 runs VACUUM (ANALYZE) after every data file; 03 has it as its load's last statement.
    const expected = loadStatements(shape, seed)
      .filter((s) => s.label !== "vacuum analyze")
      .map((s) => folded(s.sql));
    assert.deepEqual(statements, expected, `at scale ${scale}`);
  }
});

test("transaction.sql is 03's transaction, its TABLESAMPLE percentage 03's rule with the pages from :scale", () => {
  const text = read("transaction.sql");
  const set = /^\\set sample_percent greatest\(([\d.]+), least\(100, ([\d.]+) \/ \((\d+) \* :scale\)\)\)$/m.exec(text);
  assert.ok(set, "the \\set line of the sample percentage");
  const [floor, numerator, pagesAtScale1] = set.slice(1).map(Number);
  for (const pages of [30, 6657, 50_000, 10_000_000])
    assert.ok(
      Math.abs(Math.max(floor, Math.min(100, numerator / pages)) - samplePercent(pages)) < 1e-12,
      `03's samplePercent at ${pages} pages`,
    );
  // 03's load made 6,657 stock pages at its default scale 0.01 (its run's template.stockPages).
  assert.equal(Math.round(pagesAtScale1 * overIndexing.params("default").dataScale), 6657);
  const body = text
    .split("\n")
    .filter((l) => !/^\s*(--|\\set)/.test(l))
    .join("\n")
    .replace(/:sample_percent/g, "0.3");
  assert.equal(body, transactionScript(datasetShape(1).warehouses, 0.3));
});

test("06 takes the example's files as given, with the 32 candidates", () => {
  const p = yourIndexes.params("default", {
    schema: path.join(DIR, "schema.sql"),
    data: path.join(DIR, "data.sql"),
    workload: [path.join(DIR, "transaction.sql")],
    scale: 0.01,
    candidates: JSON.parse(read("candidates.json")) as string[],
  });
  assert.equal(p.candidates.length, 32);
  assert.deepEqual(p.reads, [], "no read script: the example's own is about the shop's tables");
});

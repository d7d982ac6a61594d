import { test } from "node:test";
import assert from "node:assert/strict";
import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import { overIndexingParams } from "../../lib/params/over-indexing";
import { EmbeddedPostgresTarget } from "../../lib/targets/embedded/embedded-postgres";
import { RunStore } from "../../lib/results/run-store";
import { findHostPgbench, locatePgbench } from "../../lib/workloads/pgbench";
import { datasetShape, samplePercent, transactionScript } from "../../lib/workloads/over-indexing/dataset";
import { createTemplate, TEMPLATE_DATABASE, withClient } from "../../lib/workloads/over-indexing/databases";
import { planRounds, runRounds, type OverIndexingCondition } from "../../lib/workloads/over-indexing/run-trials";
import { serverSpec } from "../../lib/experiments/over-indexing/run";
import { summarise } from "../../lib/experiments/over-indexing/summarise";
import { checkClaims } from "../../lib/experiments/over-indexing/claims";

test("rounds on embedded PostgreSQL: 7 vs 39 indexes, counters that explain the cost", async (t) => {
  if (!findHostPgbench()) {
    t.skip("no pgbench on this machine (install postgresql-client or set DBLAB_PGBENCH)");
    return;
  }
  const params = overIndexingParams("smoke", { dataScale: 0.0002, clients: 2, threads: 1, durationSeconds: 2, indexLevels: [7, 39] });
  const root = fs.mkdtempSync(path.join(os.tmpdir(), "dblab-results-test-"));
  const server = await new EmbeddedPostgresTarget().start(serverSpec(params));
  try {
    const runner = await locatePgbench(server);
    const template = await createTemplate(server, datasetShape(params.dataScale), params.randomSeed);
    assert.equal(template.rows.products, 4000);
    assert.equal(template.constraintIndexes, 7);
    assert.ok(template.rows.stock > 9_900 && template.rows.stock <= 10_000, `stock rows ${template.rows.stock}`);
    // setseed makes the data deterministic: a second load gives the same rows.
    const fingerprint = () =>
      withClient(server, TEMPLATE_DATABASE, async (c) =>
        (await c.query<{ f: string }>("SELECT (SELECT sum(price) FROM products)::text || '/' || (SELECT sum(product_id::bigint * warehouse_id + quantity) FROM stock)::text || '/' || (SELECT string_agg(movement_type, '' ORDER BY id) FROM stock_movements) AS f")).rows[0].f,
      );
    const first = await fingerprint();
    await createTemplate(server, datasetShape(params.dataScale), params.randomSeed);
    assert.equal(await fingerprint(), first, "same seed, same data");
    const store = RunStore.open<OverIndexingCondition>({ notebook: "test-03", params, root });
    const script = transactionScript(template.shape.warehouses, template.samplePercent);
    const trials = await runRounds({
      server,
      runner,
      plan: planRounds(params.indexLevels, 1),
      settings: { ...params, script },
      store,
    });
    assert.equal(store.trials().length, 2);
    for (const trial of trials) {
      assert.equal(trial.status, "ok", trial.error);
      assert.equal(trial.prepared!.indexCount, trial.condition.level, "pg_indexes counts the level");
      const c = trial.counters!;
      const n = trial.pgbench!.summary.transactions;
      assert.ok(n > 0);
      assert.equal(c["table.products.n_tup_ins"], 10 * n, "10 products per transaction");
      assert.ok(c["table.stock.n_tup_ins"] > 90 * n && c["table.stock.n_tup_ins"] <= 100 * n, "~100 stock rows per transaction");
      assert.ok(c["table.stock_movements.n_tup_ins"] > 0 && c["table.stock_movements.n_tup_ins"] <= 10 * n);
      assert.ok(c["wal.bytes"] > 0);
      const withStatements = trial.statements!.filter((s) => s.query.startsWith("WITH"));
      assert.equal(withStatements.length, 2, "both WITH statements in pg_stat_statements");
      assert.ok(withStatements.every((s) => s.calls === n && s.walBytes > 0));
      assert.ok(trial.sizesAfter!["table.stock"] > trial.sizesBefore!["table.stock"]);
    }
    const s = summarise(trials, params.durationSeconds, params.clients);
    const [l7, l39] = s.levels;
    assert.equal(s.rounds[1].tables.stock.indexes, 14, "stock has 14 indexes at level 39");
    assert.equal(l39.stockHotShare, 0, "quantity and last_updated are indexed at 39: no HOT update");
    assert.ok(l39.indexEntriesPerTx! > 4 * l7.indexEntriesPerTx!, `${l7.indexEntriesPerTx} → ${l39.indexEntriesPerTx} index entries per tx`);
    assert.ok(l39.walBytesPerTx! > l7.walBytesPerTx!);
    assert.ok(l7.hitRatio! > 0.9);
    assert.deepEqual(checkClaims(s).map((c) => c.id), ["1", "2", "3", "4", "5"]);
  } finally {
    await server.stop();
    fs.rmSync(root, { recursive: true, force: true });
  }
});

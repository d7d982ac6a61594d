// test-tier: shared — one embedded PostgreSQL and pgbench rounds
import { test } from "node:test";
import assert from "node:assert/strict";
import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import { experiment, serverSpec } from "../../lib/experiments/over-indexing";
import { EmbeddedPostgresTarget } from "../../lib/targets/embedded/embedded-postgres";
import { RunStore } from "../../lib/results/run-store";
import { findHostPgbench, locatePgbench } from "../../lib/workloads/pgbench";
import { datasetShape, transactionScript } from "../../lib/experiments/over-indexing/workload/dataset";
import {
  buildTemplateIndexes,
  createTemplate,
  templateDatabase,
  walAfterLoad,
} from "../../lib/experiments/over-indexing/workload/databases";
import { withAdmin } from "../../lib/workloads/fresh-copies";
import {
  planRounds,
  runRounds,
  type OverIndexingCondition,
} from "../../lib/experiments/over-indexing/workload/run-trials";
import { summarise } from "../../lib/experiments/over-indexing/summarise";
import { CLAIMS } from "../../lib/experiments/over-indexing/claims";
import { judge } from "../../lib/stats/claim-engine";
import type { PgTableCounterKey } from "../../lib/engines/postgres/table-counters";
import { recorded } from "../support/counters";

test("rounds on embedded PostgreSQL: 7 vs 39 indexes, counters that explain the cost", async (t) => {
  if (!findHostPgbench()) {
    t.skip("no pgbench on this machine (install postgresql-client or set DBLAB_PGBENCH)");
    return;
  }
  const params = experiment.params("smoke", {
    dataScale: 0.0002,
    clients: 2,
    threads: 1,
    durationSeconds: 2,
    indexLevels: [7, 39],
  });
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
      withAdmin(
        server,
        templateDatabase(server),
        async (c) =>
          (
            await c.query<{ f: string }>(
              "SELECT (SELECT sum(price) FROM products)::text || '/' || (SELECT sum(product_id::bigint * warehouse_id + quantity) FROM stock)::text || '/' || (SELECT string_agg(movement_type, '' ORDER BY id) FROM stock_movements) AS f",
            )
          ).rows[0].f,
      );
    // The WAL the load left, read after its checkpoint (pg_ls_waldir): what the template plan counts once.
    const wal = await walAfterLoad(server);
    assert.ok(wal !== undefined && wal >= 16 * 2 ** 20, `WAL on disk after the load: ${wal}`);
    const first = await fingerprint();
    await createTemplate(server, datasetShape(params.dataScale), params.randomSeed);
    assert.equal(await fingerprint(), first, "same seed, same data");
    const script = transactionScript(template.shape.warehouses, template.samplePercent);
    // No indexes in the template (no room on disk for them): every round builds its level's indexes.
    const rebuildStore = RunStore.open<OverIndexingCondition>({ notebook: "test-03-rebuild", params, root });
    const rebuilt = await runRounds({
      server,
      runner,
      plan: planRounds(params.indexLevels, 1),
      settings: { ...params, script, walInspect: template.walInspect, templateLevel: 7 },
      store: rebuildStore,
    });
    assert.deepEqual(
      rebuilt.map((t) => [t.key, t.status, t.prepared?.templateLevel, t.prepared?.indexCount, t.prepared?.dropSeconds]),
      [
        ["idx7/r1", "ok", 7, 7, 0],
        ["idx39/r1", "ok", 7, 39, 0],
      ],
    );
    assert.equal(rebuilt[0].prepared?.indexSeconds, 0, "level 7 has nothing to build");
    assert.ok((rebuilt[1].prepared?.indexSeconds ?? 0) > 0, "level 39 built its 32 indexes in its round");
    // The template gets level 39's indexes once; level 7 then drops them from its clone, level 39 builds nothing.
    assert.ok((await buildTemplateIndexes(server, 39, params.maintenanceWorkMemMB)) > 0);
    const store = RunStore.open<OverIndexingCondition>({ notebook: "test-03", params, root });
    const trials = await runRounds({
      server,
      runner,
      plan: planRounds(params.indexLevels, 2),
      settings: { ...params, script, walInspect: template.walInspect, templateLevel: 39, cloneBeside: true },
      store,
    });
    assert.equal(store.trials().length, 4);
    // Each round but the first was cloned by the round before, beside its counters and WAL count, into the
    // other run database; the counters below (per table, per transaction) show each round's are its own.
    for (const [i, t] of trials.entries()) {
      assert.equal(t.cloneSeconds !== undefined, i === 0, `${t.key}: cloned its own database only when first`);
      assert.equal(t.nextCloneSeconds !== undefined, i < trials.length - 1, `${t.key}: cloned the next round's`);
    }
    assert.deepEqual(
      trials.map((t) => [t.key, t.order, t.prepared?.templateLevel, t.prepared?.indexSeconds, t.prepared?.indexCount]),
      [
        ["idx7/r1", 0, 39, 0, 7],
        ["idx39/r1", 1, 39, 0, 39],
        ["idx39/r2", 0, 39, 0, 39],
        ["idx7/r2", 1, 39, 0, 7],
      ],
    );
    assert.equal(trials[1].prepared?.dropSeconds, 0, "level 39 has nothing to drop");
    // Either way, the same state: the same relations at the same sizes, dropped or built.
    assert.deepEqual(trials[0].sizesBefore, rebuilt[0].sizesBefore, "level 7: dropped from the template = never built");
    assert.deepEqual(
      trials[1].sizesBefore,
      rebuilt[1].sizesBefore,
      "level 39: the template's clone = built in the round",
    );
    const databases = await withAdmin(
      server,
      templateDatabase(server),
      async (c) =>
        (
          await c.query<{ datname: string }>(
            "SELECT datname FROM pg_database WHERE datname LIKE '%_inventory_%' ORDER BY datname",
          )
        ).rows,
    );
    assert.deepEqual(
      databases.map((r) => r.datname.replace(/^.*_inventory_/, "")),
      ["run", "run_b", "template"],
      "one template and two rounds' clones (made beside the round before), nothing per level",
    );
    for (const trial of trials) {
      assert.equal(trial.status, "ok", trial.error);
      assert.equal(trial.prepared!.indexCount, trial.condition.level, "pg_indexes counts the level");
      const c = (key: PgTableCounterKey) => recorded(trial.counters, key);
      const n = trial.pgbench!.summary.transactions;
      assert.ok(n > 0);
      assert.equal(c("table.products.n_tup_ins"), 10 * n, "10 products per transaction");
      assert.ok(
        c("table.stock.n_tup_ins") > 90 * n && c("table.stock.n_tup_ins") <= 100 * n,
        "~100 stock rows per transaction",
      );
      assert.ok(c("table.stock_movements.n_tup_ins") > 0 && c("table.stock_movements.n_tup_ins") <= 10 * n);
      assert.ok(c("wal.bytes") > 0);
      const withStatements = trial.statements!.filter((s) => s.query.startsWith("WITH"));
      assert.equal(withStatements.length, 2, "both WITH statements in pg_stat_statements");
      assert.ok(withStatements.every((s) => s.calls === n && s.walBytes > 0));
      assert.ok(trial.sizesAfter!["table.stock"] > trial.sizesBefore!["table.stock"]);
    }
    const s = summarise(trials, params.durationSeconds, params.clients);
    const [l7, l39] = s.levels;
    assert.equal(s.rounds.find((r) => r.level === 39)?.tables.stock.indexes, 14, "stock has 14 indexes at level 39");
    // Paired over both rounds: every pair counts (PAIR_STATE_RULE names a split one, it does not drop it).
    assert.equal(l39.tpsRatio?.n, 2, "TPS ratio paired over both rounds");
    assert.equal(l39.stockHotShare, 0, "quantity and last_updated are indexed at 39: no HOT update");
    assert.ok(
      l39.modelIndexEntriesPerTx! > 4 * l7.modelIndexEntriesPerTx!,
      `${l7.modelIndexEntriesPerTx} → ${l39.modelIndexEntriesPerTx} index entries per tx (model)`,
    );
    // Measured from the WAL (pg_walinspect is in the embedded contrib): the count the model predicts.
    assert.ok(template.walInspect, `pg_walinspect: ${template.walInspectError ?? ""}`);
    for (const l of [l7, l39]) {
      const ratio = l.btreeInsertsPerTx! / l.modelIndexEntriesPerTx!;
      assert.ok(
        ratio > 0.8 && ratio < 1.25,
        `${l.level} idx: ${l.btreeInsertsPerTx} B-tree inserts per tx counted, model ${l.modelIndexEntriesPerTx}`,
      );
    }
    assert.ok(
      trials.every((t) => t.autovacuumWait && typeof t.order === "number"),
      "autovacuum wait and position recorded",
    );
    assert.ok(l39.serverMsPerTx! > 0, "server time per transaction from pg_stat_statements");
    assert.ok(l39.walBytesPerTx! > l7.walBytesPerTx!);
    assert.ok(l7.hitRatio! > 0.9);
    assert.deepEqual(
      judge(CLAIMS, s).map((c) => c.id),
      ["1", "2", "3", "4", "4b", "5", "5b"],
    );
  } finally {
    await server.stop();
    fs.rmSync(root, { recursive: true, force: true });
  }
});

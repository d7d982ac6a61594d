// test-tier: fast — one embedded PostgreSQL, results in its own temporary folder
import { test } from "node:test";
import assert from "node:assert/strict";
import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import { EmbeddedPostgresTarget } from "../../lib/targets/embedded/embedded-postgres";
import { RunStore } from "../../lib/results/run-store";
import { experiment } from "../../lib/experiments/index-types";
import { IndexTable, planTrials, runPlan, type IndexTypesCondition } from "../../lib/experiments/index-types/workload";
import { find, summarise } from "../../lib/experiments/index-types/summarise";
import { CLAIMS } from "../../lib/experiments/index-types/claims";
import { judge } from "../../lib/stats/claim-engine";
import { connect, endClient } from "../../lib/engines/postgres/connect";

test("08's streams and passes on embedded PostgreSQL: every kind's index, the counters the claims read", async () => {
  const root = fs.mkdtempSync(path.join(os.tmpdir(), "dblab-results-test-"));
  const server = await new EmbeddedPostgresTarget().start({ engine: "postgresql", settings: {} });
  try {
    // 60,000 rows × 4 keys overfill GIN's 4 MB pending list once.
    const params = experiment.params("smoke", { rows: 60_000, batchRows: 2000, repeats: 1 });
    const store = RunStore.open<IndexTypesCondition>({ notebook: "test", params, root });
    const plan = planTrials(params);
    const trials = await runPlan({ plan, params, store, open: () => IndexTable.open(server.connection) });
    assert.equal(trials.length, 14);
    assert.equal(store.trials().length, 14, "every trial appended to trials.jsonl");
    for (const t of trials) {
      assert.equal(t.status, "ok", t.key);
      assert.equal(t.unitMs?.length, 30, `${t.key}: one timed statement per batch of 2,000`);
      assert.equal(t.unitWalBytes?.length, 30);
      assert.ok((t.counters?.["wal.bytes"] ?? 0) > 0, `${t.key}: WAL counted`);
      // 60,000 rows write far less WAL than a checkpoint needs: a count here is the trial's own CHECKPOINT, read late.
      assert.equal(t.counters?.checkpoints, 0, `${t.key}: no checkpoint counted inside its batches`);
    }
    const s = summarise(trials, params);
    const at = (kind: IndexTypesCondition["kind"], op: "insert" | "update" = "insert") => {
      const x = find(s, kind, op);
      assert.ok(x, `${kind} ${op} summarised`);
      return x;
    };
    assert.equal(at("none").indexBytes, 0, "no index but the primary key");
    for (const kind of ["btree", "hash", "brin", "gin-fastupdate", "gin-nofastupdate", "partial"] as const)
      assert.ok((at(kind).indexBytes ?? 0) > 0, `${kind}: an index was built and measured`);
    // The documented mechanisms, counted, not timed: BRIN's few pages, the partial index's rows, GIN's pending list.
    assert.ok((at("brin").indexBytes ?? 0) <= 4 * 8192, `BRIN ${at("brin").indexBytes} B`);
    assert.ok(
      (at("partial").indexBytes ?? 0) < (at("btree").indexBytes ?? 0) / 4,
      "the partial index holds a tenth of the rows",
    );
    const outsideRatio = (at("partial").outsideWalBytesPerRow ?? 0) / (at("none").outsideWalBytesPerRow ?? 1);
    assert.ok(Math.abs(outsideRatio - 1) < 0.02, `WAL per row outside the predicate ≈ none's (${outsideRatio})`);
    assert.ok(
      (at("partial").walBytesPerRow ?? 0) > (at("none").walBytesPerRow ?? 0),
      "inside it, the partial index writes WAL",
    );
    assert.equal(at("gin-fastupdate").flushes, 1, "the pending list was flushed once (pageinspect)");
    assert.ok(at("gin-fastupdate").flushMs !== undefined, "the flushing batch found");
    assert.equal(at("gin-nofastupdate").flushes, undefined, "no pending list without fastupdate");
    assert.ok(
      (at("gin-nofastupdate").walBytesPerRow ?? 0) > (at("gin-fastupdate").walBytesPerRow ?? 0),
      "entries one by one",
    );
    const claims = judge(CLAIMS, s);
    assert.equal(claims.length, 6);
    for (const c of claims) assert.notEqual(c.verdict, "held", `${c.id}: one round cannot decide (${c.decidedBy})`);
    for (const t of trials) {
      const { kind, operation } = t.condition;
      const phases = {
        recreate: t.recreateSeconds,
        checkpoint: t.checkpointSeconds,
        positions: t.positionsSeconds,
        counters: t.countersSeconds,
        ...(kind === "none" ? {} : { index: t.indexSeconds }),
        ...(operation === "update" ? { load: t.loadSeconds, vacuum: t.vacuumSeconds } : {}),
      };
      for (const [phase, seconds] of Object.entries(phases))
        assert.ok((seconds ?? 0) > 0, `${t.key}: ${phase} seconds recorded`);
    }

    // The loaded table of an UPDATE pass: its primary key built after the load, analysed on id only.
    const table = await IndexTable.open(server.connection);
    await table.prepare({ kind: "btree", operation: "update" }, params);
    await table.close();
    const c = await connect(server.connection);
    try {
      const { rows: keys } = await c.query<{ contype: string }>(
        "SELECT contype FROM pg_constraint WHERE conname = 'idx_rows_pkey' AND conrelid = 'idx_rows'::regclass",
      );
      assert.deepEqual(keys, [{ contype: "p" }], "the primary key is the table's constraint");
      const { rows: stats } = await c.query<{ attname: string }>(
        "SELECT attname FROM pg_stats WHERE tablename = 'idx_rows' ORDER BY attname",
      );
      assert.deepEqual(stats, [{ attname: "id" }], "analysed on id, the column the pass's WHERE reads");
      const { rows: plan } = await c.query<{ "QUERY PLAN": string }>(
        `EXPLAIN (COSTS OFF) UPDATE idx_rows SET k = k + 1 WHERE id BETWEEN 2001 AND 4000`,
      );
      assert.match(plan.map((r) => r["QUERY PLAN"]).join("\n"), /Index Scan using idx_rows_pkey/);
    } finally {
      await endClient(c);
    }
  } finally {
    await server.stop();
    fs.rmSync(root, { recursive: true, force: true });
  }
});

// test-tier: fast — one embedded PostgreSQL, results in its own temporary folder
import { test } from "node:test";
import assert from "node:assert/strict";
import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import { EmbeddedPostgresTarget } from "../../lib/targets/embedded/embedded-postgres";
import { PostgresIndexWriteTable } from "../../lib/experiments/index-write-cost/workload/postgres-table";
import { RunStore } from "../../lib/results/run-store";
import {
  planTrials,
  runPlan,
  type IndexWriteCondition,
} from "../../lib/experiments/index-write-cost/workload/run-trials";
import { summarise } from "../../lib/experiments/index-write-cost/summarise";
import { CLAIMS } from "../../lib/experiments/index-write-cost/claims";
import { judge } from "../../lib/stats/claim-engine";

test("trials on embedded PostgreSQL: counters explain the ratios; finished trials are on disk; resume skips them", async () => {
  const root = fs.mkdtempSync(path.join(os.tmpdir(), "dblab-results-test-"));
  const server = await new EmbeddedPostgresTarget().start({
    engine: "postgresql",
    settings: { synchronous_commit: "off" },
  });
  try {
    const params = { rows: 2000 };
    const store = RunStore.open<IndexWriteCondition>({ notebook: "test", params, root });
    const plan = planTrials({
      engines: ["postgresql"],
      rowCounts: [2000],
      extraIndexes: [0, 1, 5],
      operations: ["insert", "update_nonindexed", "update_one_field"],
      fillfactors: [100, 70],
      repeats: 1,
      seed: 42,
    });
    const trials = await runPlan({
      plan,
      batchSize: 500,
      seed: 42,
      store,
      open: () => PostgresIndexWriteTable.open(server.connection),
    });
    assert.equal(trials.length, plan.length);
    assert.equal(store.trials().length, plan.length, "every trial appended to trials.jsonl");
    for (const t of trials) {
      assert.equal(t.status, "ok");
      assert.equal(t.unitMs!.length, 4, "one timed unit per batch of 500");
      const c = t.counters!;
      if (t.condition.operation === "insert") assert.equal(c["table.n_tup_ins"], 2000);
      else assert.equal(c["table.n_tup_upd"], 2000);
      assert.ok((t.quiesceSeconds ?? 0) > 0, `${t.key}: its own CHECKPOINT, timed for the time account`);
    }
    // Each table but the first was set up (recreated, loaded, indexed) by the trial before, while it
    // counted its WAL; the counters above and the B-tree inserts below show each found its own table.
    assert.ok((trials[0].recreateSeconds ?? 0) > 0, "the first trial sets up its own table");
    for (const [i, t] of trials.entries()) {
      if (i > 0) assert.equal(t.recreateSeconds, undefined, `${t.key}: set up by the trial before`);
      assert.equal(t.nextRecreateSeconds !== undefined, i < trials.length - 1, `${t.key}: sets up the next table`);
    }
    const s = summarise(trials);
    const field1With5 = s.find(
      (x) => x.operation === "update_one_field" && x.extraIndexes === 5 && x.fillfactor === 100,
    )!;
    assert.equal(field1With5.hotShare, 0, "changing an indexed column is never HOT");
    // Counted in the WAL of the timed part (pg_walinspect), not modelled: one B-tree leaf insertion
    // (INSERT_LEAF, or the split that carries it) per index per row.
    assert.equal(field1With5.btreeInsertsPerRow, 6, "a non-HOT update inserts into all 6 indexes");
    const insertWith0 = s.find((x) => x.operation === "insert" && x.extraIndexes === 0)!;
    assert.equal(
      insertWith0.btreeInsertsPerRow,
      1,
      "an INSERT with the primary key alone adds one index entry per row",
    );
    const counterAt70 = s.find(
      (x) => x.operation === "update_nonindexed" && x.extraIndexes === 5 && x.fillfactor === 70,
    )!;
    assert.ok(
      counterAt70.hotShare! > 0.95,
      `with 30 % free space the non-indexed update is HOT (got ${counterAt70.hotShare})`,
    );
    const claims = judge(CLAIMS, s);
    const c = claims.find((x) => x.id === "c (postgresql)");
    assert.ok(c, "claim c is judged on PostgreSQL");
    assert.equal(c.verdict, "not tested at this scale", "2,000 rows are below the claim's regime (100k–1M)");
    assert.match(c.decidedBy, /rowCounts=\[100000\]/, "says what would test it");

    // Resume: same parameters → nothing left to do; different parameters → refused.
    const resumed = RunStore.open<IndexWriteCondition>({ notebook: "test", params, root, resumeId: store.runId });
    const again = await runPlan({
      plan,
      batchSize: 500,
      seed: 42,
      store: resumed,
      open: () => PostgresIndexWriteTable.open(server.connection),
    });
    assert.equal(again.length, 0);
    assert.throws(
      () => RunStore.open({ notebook: "test", params: { rows: 3000 }, root, resumeId: store.runId }),
      /Refusing to resume run .*: its parameters differ/,
    );
  } finally {
    await server.stop();
    fs.rmSync(root, { recursive: true, force: true });
  }
});

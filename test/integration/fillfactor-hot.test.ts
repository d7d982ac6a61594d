// test-tier: fast — one embedded PostgreSQL, results in its own temporary folder
import { test } from "node:test";
import assert from "node:assert/strict";
import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import { EmbeddedPostgresTarget } from "../../lib/targets/embedded/embedded-postgres";
import { RunStore } from "../../lib/results/run-store";
import { HotTable } from "../../lib/experiments/fillfactor-hot/workload/table";
import { plannedRoom } from "../../lib/experiments/fillfactor-hot/workload/page-model";
import {
  planTrials,
  runPlan,
  type FillfactorHotCondition,
} from "../../lib/experiments/fillfactor-hot/workload/run-trials";
import { findSummary, summarise } from "../../lib/experiments/fillfactor-hot/summarise";
import { CLAIMS } from "../../lib/experiments/fillfactor-hot/claims";
import { judge } from "../../lib/stats/claim-engine";

test("07's UPDATE passes on embedded PostgreSQL: the counters the claims read, and the page arithmetic", async () => {
  const root = fs.mkdtempSync(path.join(os.tmpdir(), "dblab-results-test-"));
  const server = await new EmbeddedPostgresTarget().start({ engine: "postgresql", settings: {} });
  try {
    const size = { rows: 3000, padBytes: 60, batchRows: 1000 };
    const store = RunStore.open<FillfactorHotCondition>({ notebook: "test", params: size, root });
    const plan = planTrials({ fillfactors: [100, 70, 50], columns: ["counter", "k"], repeats: 1, seed: 7 });
    const trials = await runPlan({ plan, size, store, open: () => HotTable.open(server.connection) });
    assert.equal(trials.length, 6);
    assert.equal(store.trials().length, 6, "every trial appended to trials.jsonl");
    for (const t of trials) {
      assert.equal(t.status, "ok");
      assert.equal(t.unitMs?.length, 3, "one timed statement per id range of 1,000");
      assert.equal(t.counters?.["table.n_tup_upd"], 3000, "the pass updates every row once");
    }
    // Each table but the first was loaded by the trial before, while it counted its pass's WAL (the
    // room and counters above show every pass found its own fillfactor's fresh table).
    assert.ok((trials[0].loadSeconds ?? 0) > 0, "the first trial loads its own table");
    for (const [i, t] of trials.entries()) {
      if (i > 0) assert.equal(t.loadSeconds, undefined, `${t.key}: its table was loaded by the trial before`);
      assert.equal(t.nextLoadSeconds !== undefined, i < trials.length - 1, `${t.key}: loads the next table`);
      assert.ok((t.vacuumSeconds ?? 0) > 0 && (t.checkpointSeconds ?? 0) > 0, `${t.key}: its own VACUUM, CHECKPOINT`);
    }
    const s = summarise(trials);
    const at = (fillfactor: number, column: "counter" | "k") => {
      const x = findSummary(s, { fillfactor, column });
      assert.ok(x, `ff ${fillfactor} ${column} summarised`);
      return x;
    };
    // The measured room agrees with the page arithmetic the plan uses (within the last, partly filled page).
    for (const ff of [100, 70, 50]) {
      const measured = at(ff, "counter");
      const planned = plannedRoom(ff, 60);
      assert.equal(measured.versionBytes, planned.versionBytes, `ff ${ff}: bytes per version`);
      assert.ok(Math.abs((measured.rowsPerPage ?? 0) - planned.rowsPerPage) < 1, `ff ${ff}: rows per page`);
      assert.ok(
        Math.abs((measured.roomRatio ?? 0) - planned.ratio) < 0.05,
        `ff ${ff}: room ratio ${measured.roomRatio}`,
      );
    }
    assert.ok((at(100, "counter").roomRatio ?? 1) < 0.05, "a fillfactor-100 page has almost no room");
    assert.ok((at(50, "counter").roomRatio ?? 0) >= 1, "a fillfactor-50 page has room for every row's new version");
    assert.ok((at(100, "counter").hotShare ?? 1) < 0.1, `ff 100: mostly not HOT (${at(100, "counter").hotShare})`);
    assert.ok((at(50, "counter").hotShare ?? 0) > 0.95, `ff 50: HOT (${at(50, "counter").hotShare})`);
    const mid = at(70, "counter");
    assert.ok(Math.abs((mid.hotShare ?? 0) - (mid.roomRatio ?? 0)) < 0.1, "ff 70: the HOT share is the room ratio");
    for (const ff of [100, 70, 50])
      assert.equal(at(ff, "k").hotShare, 0, `ff ${ff}: an indexed-column UPDATE is never HOT`);
    // Counted in the pass's WAL (pg_walinspect): a non-HOT update inserts into both B-trees.
    assert.equal(at(100, "k").indexEntriesPerRow, 2, "non-HOT: one entry per index per row");
    assert.equal(at(50, "k").indexEntriesPerRow, 2, "on the same page but not HOT: still one entry per index");
    assert.ok((at(50, "counter").indexEntriesPerRow ?? 1) < 0.05, "HOT: no index entries");
    assert.ok((at(50, "counter").heapBytesPerRow ?? 1) === 0, "HOT at ff 50: the heap does not grow");
    const claims = judge(CLAIMS, s);
    assert.equal(claims.length, 6);
    for (const c of claims)
      assert.equal(c.verdict, "inconclusive", `${c.id}: one round cannot decide (${c.decidedBy})`);
  } finally {
    await server.stop();
    fs.rmSync(root, { recursive: true, force: true });
  }
});

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
import { experiment } from "../../lib/experiments/fillfactor-hot";
import { EXTRAS_FILE } from "../../lib/experiments/define";

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

test("a stored run opens as the run returned it: the same trials, summary and verdicts, without measuring", async () => {
  const root = fs.mkdtempSync(path.join(os.tmpdir(), "dblab-results-test-"));
  const saved = process.env.DBLAB_RESULTS_DIR;
  process.env.DBLAB_RESULTS_DIR = root;
  try {
    const run = await experiment.run(experiment.params("smoke", { target: "embedded" }), { profile: "smoke" });
    // An embedded server is this process's child: other work is read while it starts and over the run.
    const { quietness } = JSON.parse(fs.readFileSync(path.join(run.directory, "metadata.json"), "utf8")) as {
      quietness: Record<"before" | "during", { otherBusyShare?: number; seconds: number }>;
    };
    for (const when of ["before", "during"] as const)
      assert.ok((quietness[when].otherBusyShare ?? -1) >= 0, `${when}: ${JSON.stringify(quietness[when])}`);
    assert.ok(quietness.before.seconds >= 1, "the window before the run is at least a second");
    const summary = experiment.summarise(run);
    const verdicts = (r: typeof run) =>
      experiment.claims(experiment.summarise(r), r).map((c) => [c.id, c.verdict, c.why]);
    for (const ref of [run.runId, run.runId.slice(0, 24), run.directory, "latest of notebook 07", undefined]) {
      const opened = experiment.open(ref);
      assert.equal(opened.runId, run.runId, `${ref}: the run`);
      assert.deepEqual(opened.trials, run.trials, `${ref}: its trials`);
      assert.deepEqual(opened.params, run.params, `${ref}: its parameters`);
      assert.deepEqual(experiment.summarise(opened), summary, `${ref}: its summary`);
      assert.deepEqual(verdicts(opened), verdicts(run), `${ref}: its verdicts`);
    }
    // An opened run's files stay as they were measured and judged; the run as run() returned it saves as before.
    const summaryFile = path.join(run.directory, "summary.json");
    assert.ok(experiment.save(run, summary, experiment.claims(summary, run)).includes(summaryFile));
    const stored = fs.readFileSync(summaryFile, "utf8");
    const opened = experiment.open(run.runId);
    assert.deepEqual(experiment.save(opened, summary, experiment.claims(summary, opened)), []);
    assert.equal(fs.readFileSync(summaryFile, "utf8"), stored);
    assert.throws(() => experiment.open("latest of notebook 03"), /no finished run of notebook 03/);
    const other = path.join(root, run.runId.replace("07-fillfactor-hot", "08-index-types"));
    fs.cpSync(run.directory, other, { recursive: true });
    const meta = JSON.parse(fs.readFileSync(path.join(other, "metadata.json"), "utf8")) as Record<string, unknown>;
    fs.writeFileSync(path.join(other, "metadata.json"), JSON.stringify({ ...meta, notebook: "08-index-types" }));
    assert.throws(() => experiment.open(other), /is a run of 08-index-types, not of 07-fillfactor-hot/);
    // A run stored before runs kept what their workload returns.
    fs.rmSync(path.join(run.directory, EXTRAS_FILE));
    assert.throws(
      () => experiment.open(run.runId),
      /cannot be opened \(no extras.json: it was stored before runs kept one\); lab.frame\(/,
    );
  } finally {
    if (saved === undefined) delete process.env.DBLAB_RESULTS_DIR;
    else process.env.DBLAB_RESULTS_DIR = saved;
    fs.rmSync(root, { recursive: true, force: true });
  }
});

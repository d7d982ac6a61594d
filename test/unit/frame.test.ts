import { test } from "node:test";
import assert from "node:assert/strict";
import { parse } from "csv-parse/sync";
import { frame, groupedHtml, trialRow } from "../../lib/display/frame";
import { tableHtml } from "../../lib/display/table";
import { summaryCsv } from "../../lib/results/summary-csv";
import type { TrialRecord } from "../../lib/results/run-store";

const trial = (repeat: number, fillfactor: number, seconds: number): TrialRecord =>
  ({
    key: `pg/100000/update/ff${fillfactor}/r${repeat}`,
    condition: { engine: "postgresql", rows: 100_000, fillfactor, status: "shadowed" },
    repeat,
    position: repeat - 1,
    status: "ok",
    seconds,
    unitMs: [3, 1, 2, 10],
    counters: { "wal.bytes": 1000 * fillfactor, "table.n_tup_hot_upd": 5 },
    statementTimes: { p50Ms: 0.2, nested: { deeper: 1 } },
    series: [1, 2, 3],
    clientRttMs: 0.07,
    startedAt: "2026-12-01T10:00:00Z",
    finishedAt: "2026-12-01T10:00:01Z",
  }) as unknown as TrialRecord;

test("a trial row has one column per condition key, counter and timing", () => {
  const row = trialRow(trial(1, 70, 1.5), "run-1", "01-index-write-cost");
  assert.equal(row.run, "run-1");
  assert.equal(row.notebook, "01-index-write-cost");
  assert.equal(row.fillfactor, 70);
  assert.equal(row.rows, 100_000);
  assert.equal(row["wal.bytes"], 70_000);
  assert.equal(row.seconds, 1.5);
  assert.equal(row.units, 4);
  assert.equal(row["unit median ms"], 2.5);
  assert.equal(row["statementTimes.p50Ms"], 0.2);
  assert.equal(row.clientRttMs, 0.07);
  // The trial's own status stays "status"; a condition key of that name keeps its prefix.
  assert.equal(row.status, "ok");
  assert.equal(row["condition.status"], "shadowed");
  assert.ok(!("series" in row) && !("statementTimes.nested" in row), "deeper structures stay in trials.jsonl");
});

test("frame(run) groups like any danfo DataFrame: median by fillfactor", () => {
  const failed = { ...trial(3, 70, 0), status: "failed", seconds: undefined, error: "lost" } as unknown as TrialRecord;
  const df = frame({
    runId: "r",
    trials: [trial(1, 100, 1), trial(2, 100, 3), trial(1, 70, 2), trial(2, 70, 4), failed],
  });
  assert.equal(df.shape[0], 5);
  const ok = df.query(df.column("status").values.map((v) => v === "ok"));
  const g = ok.groupby(["fillfactor"]).agg({ seconds: ["median", "count"] });
  const byFf = Object.fromEntries((g.values as unknown as number[][]).map(([ff, median, n]) => [ff, [median, n]]));
  assert.deepEqual(byFf, { 100: [2, 2], 70: [3, 2] });
  // What query and groupby return shows as a table like any frame (they are danfojs-base frames).
  assert.match(tableHtml(g), /<th>fillfactor<\/th><th>seconds_median<\/th><th>seconds_count<\/th>/);
  assert.equal(tableHtml(ok).match(/<tr>/g)?.length, 5, "header and four trials");
});

test("summary.csv rows lead with the run id and notebook, and keep every row's columns", () => {
  const csv = summaryCsv(
    [
      { kind: "load", median_s: 1 },
      { kind: "build", temp_bytes: 5 },
    ],
    { runId: "20261201T100100Z-b4ccc6_02-create-index-after-load_37ad", notebook: "02-create-index-after-load" },
  );
  const rows = parse<Record<string, string>>(csv, { columns: true });
  assert.deepEqual(Object.keys(rows[0]), ["run_id", "notebook", "kind", "median_s", "temp_bytes"]);
  assert.equal(rows[1].temp_bytes, "5");
  assert.equal(rows[1].notebook, "02-create-index-after-load");
});

test("groupedHtml: a table of the groups; no rows or no finished trial said in words; a missing column named", () => {
  const failed = (t: TrialRecord) => ({
    ...t,
    status: "failed",
    seconds: undefined,
    counters: undefined,
    error: "lost",
  });
  const df = frame({ runId: "r", trials: [trial(1, 100, 1), trial(2, 100, 3), trial(1, 70, 2)] });
  const html = groupedHtml(df, ["fillfactor"], { seconds: ["median", "count"] });
  assert.match(html, /<th>fillfactor<\/th><th>seconds_median<\/th><th>seconds_count<\/th>/);
  assert.equal(html.match(/<tr>/g)?.length, 3, "header and two groups");
  // A query that matched nothing: danfo's groupby would throw "Cannot read properties of undefined".
  const none = df.query(df.column("status").values.map(() => false));
  assert.match(
    groupedHtml(none, ["fillfactor"], { seconds: ["median"] }),
    /Nothing to group by fillfactor: no trial of this run matched/,
  );
  // Every trial failed: rows, but no counter column to aggregate.
  const allFailed = frame({
    runId: "r",
    trials: [trial(1, 100, 1), trial(2, 70, 2)].map(failed) as unknown as TrialRecord[],
  });
  assert.equal(allFailed.shape[0], 2);
  assert.match(groupedHtml(allFailed, ["fillfactor"], { "wal.bytes": ["median"] }), /no trial of this run finished/);
  // One trial failed beside finished ones: danfo's median throws on its missing value, and the error says what to do.
  const oneOk = frame({ runId: "r", trials: [trial(1, 100, 1), failed(trial(2, 100, 2)) as unknown as TrialRecord] });
  assert.throws(
    () => groupedHtml(oneOk, ["fillfactor"], { "wal.bytes": ["median"] }),
    (e: Error) => /a column with missing values\?.*status.*"ok"/.test(e.message) && e.cause instanceof Error,
  );
  // A condition key named "column" (07's) shadows danfo's df.column(): the statuses are read without it.
  const named = frame({
    runId: "r",
    trials: [failed(trial(1, 100, 1))].map((t) => ({ ...t, condition: { column: "k" } })) as unknown as TrialRecord[],
  });
  assert.match(groupedHtml(named, ["column"], { seconds: ["count"] }), /no trial of this run finished/);
  assert.throws(
    () => groupedHtml(df, ["fillfactor", "colour"], { secs: ["median"] }),
    /no column "colour", "secs" in this frame; its columns: run, notebook, key/,
  );
});

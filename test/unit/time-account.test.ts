/**
 * A notebook's wall split by what its run records: the trials' timed seconds, their own setup, the
 * gaps between them, before the first and after the last; the parts add up to the wall.
 */
import { test } from "node:test";
import assert from "node:assert/strict";
import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import {
  accountCells,
  accountTime,
  BETWEEN_CELLS,
  readTimeAccount,
  REPORT_EXPORT,
  restText,
  splitByCells,
  writeTimeAccount,
} from "../../lib/results/time-account";
import { outsideTrialsOf } from "../../lib/experiments/eta";

const T0 = Date.parse("2026-12-04T10:00:00.000Z");
const at = (s: number) => new Date(T0 + s * 1000).toISOString();
const trial = (from: number, to: number, seconds: number, extra: Record<string, unknown> = {}) => ({
  key: `k${from}`,
  status: "ok",
  seconds,
  startedAt: at(from),
  finishedAt: at(to),
  ...extra,
});

test("the wall splits into timed seconds, trials' setup, gaps, before and after, adding up to it", () => {
  const trials = [
    trial(10, 14, 3, { cloneSeconds: 0.5 }),
    trial(15, 20, 4, { cloneSeconds: 0.7 }),
    { ...trial(21, 22, 9), status: "failed" }, // failed: its time is setup, not measurement
    trial(-100, -90, 5), // an earlier part of a resumed run: not this notebook's wall
  ];
  const a = accountTime(trials, T0, 30, 2, 24);
  assert.equal(a.trials, 3);
  assert.equal(a.timedSeconds, 7);
  assert.ok(Math.abs(a.measuredShare - 7 / 30) < 1e-12);
  assert.equal(a.etaRatio, 0.8);
  assert.deepEqual(a.rest, { kernelStart: 2, beforeTrials: 8, trialSetup: 10 - 7, betweenTrials: 2, afterTrials: 8 });
  const sum = a.timedSeconds + Object.values(a.rest).reduce((t, x) => t + x, 0);
  assert.ok(Math.abs(sum - a.wallSeconds) < 1e-9);
  assert.ok(Math.abs((a.recorded.cloneSeconds ?? 0) - 1.2) < 1e-12);
  assert.match(
    restText(a),
    /kernel 2\.0 s, before trials 8\.0 s, trials' setup 3\.0 s \(cloneSeconds 1\.2 s, other 1\.8 s\)/,
  );
  assert.deepEqual(accountCells(a), { eta: "0.80", measured: "23 %" });
  // No ETA, no trials: the whole wall after the kernel is outside the trials.
  const none = accountTime([], T0, 10, null, null);
  assert.equal(none.etaRatio, null);
  assert.equal(none.rest.afterTrials, 10);
  assert.deepEqual(accountCells(undefined), { eta: "—", measured: "—" });
});

test("a run's account is written beside it, read back, and gives the wall outside its trials", () => {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), "time-account-"));
  try {
    assert.equal(readTimeAccount(dir), undefined);
    assert.equal(outsideTrialsOf(dir, false), undefined);
    const a = accountTime([trial(10, 14, 3)], T0, 30, 2, null);
    writeTimeAccount(dir, a);
    assert.deepEqual(readTimeAccount(dir), a);
    // kernel 2 + before 8 + after 16; a model that counts its setup itself leaves "before" out.
    assert.equal(outsideTrialsOf(dir, false), 26);
    assert.equal(outsideTrialsOf(dir, true), 18);
    fs.writeFileSync(path.join(dir, "time.json"), "{ torn");
    assert.equal(readTimeAccount(dir), undefined);
  } finally {
    fs.rmSync(dir, { recursive: true, force: true });
  }
});

test("before and after the trials split by cell, with the gaps between cells and the report's export, adding up", () => {
  // Kernel 2 s; cells 1 (2–3), 2 (3.5–20: the trials' cell, trials 10–14 and 15–20 inside it; it ends
  // with them), 3 (20.5–24); the report saved 24–30.
  const cells = [
    { ordinal: 1, head: "import", from: 2, to: 3 },
    { ordinal: 2, head: "run", from: 3.5, to: 20 },
    { ordinal: 3, head: "charts", from: 20.5, to: 24 },
  ];
  const a = accountTime([trial(10, 14, 3), trial(15, 20, 4)], T0, 30, 2, null, cells);
  const near = (x: number | undefined, y: number) => Math.abs((x ?? NaN) - y) < 1e-9;
  const before = a.outside?.before ?? {};
  const after = a.outside?.after ?? {};
  assert.ok(
    near(before["cell 1 `import`"], 1) && near(before["cell 2 `run`"], 6.5) && near(before[BETWEEN_CELLS], 0.5),
  );
  assert.equal(before[REPORT_EXPORT], undefined, "the export is after the last cell, not before the trials");
  assert.equal(after["cell 2 `run`"], undefined, "the trials' cell ended with its last trial: nothing of it after");
  assert.ok(near(after[BETWEEN_CELLS], 0.5) && near(after["cell 3 `charts`"], 3.5) && near(after[REPORT_EXPORT], 6));
  const sum = (r: Record<string, number>) => Object.values(r).reduce((t, x) => t + x, 0);
  assert.ok(near(sum(before), a.rest.beforeTrials) && near(sum(after), a.rest.afterTrials));
  assert.match(restText(a), /after trials 10\.0 s \(saving the report \(ipynb, HTML\) 6\.0 s, cell 3 3\.5 s/);
  // A cell that never ended (the notebook failed in it) runs to the end; no cells: nothing split.
  const cut = splitByCells([{ ordinal: 1, head: "x", from: 1, to: null }], 0, 4);
  assert.deepEqual(cut, { "cell 1 `x`": 3, [BETWEEN_CELLS]: 1 });
  assert.deepEqual(splitByCells([], 0, 4), { [BETWEEN_CELLS]: 4 });
  assert.deepEqual(splitByCells(cells, 5, 5), {});
  assert.equal(accountTime([], T0, 30, 2, null).outside, undefined, "no cells' times: no split");
});

test("the trials' setup names what the records do not, and how much of the named parts ran at once", () => {
  const unnamed = accountTime([trial(10, 14, 3, { loadSeconds: 0.5 })], T0, 30, 2, null);
  assert.match(restText(unnamed), /trials' setup 1\.0 s \(loadSeconds 0\.5 s, other 0\.5 s\)/);
  // 1 s of setup, 1.4 s named: 0.4 s of it overlapped (a load beside a WAL count).
  const overlapped = accountTime([trial(10, 14, 3, { walRecordsSeconds: 0.6, nextLoadSeconds: 0.8 })], T0, 30, 2, null);
  assert.match(restText(overlapped), /\(walRecordsSeconds 0\.6 s, nextLoadSeconds 0\.8 s, of these at once 0\.4 s\)/);
  // Records that name nothing: no "other".
  assert.doesNotMatch(restText(accountTime([trial(10, 14, 3)], T0, 30, 2, null)), /other|at once/);
});

test("between trials, the records name what ran before them; the first trial's 'before' is before the trials", () => {
  const a = accountTime(
    [
      trial(10, 14, 3, { beforeSeconds: { linkSeconds: 5 } }), // before the first record: "before trials"
      trial(16, 20, 3, { beforeSeconds: { linkSeconds: 1.5, connectSeconds: 0.2 } }),
      trial(20, 24, 3),
      trial(27, 28, 0.5, { beforeSeconds: { standbysSeconds: 2.5, junk: "x" } }),
    ],
    T0,
    30,
    2,
    null,
  );
  assert.equal(a.rest.betweenTrials, 5);
  assert.deepEqual(a.recordedBetween, { linkSeconds: 1.5, connectSeconds: 0.2, standbysSeconds: 2.5 });
  assert.equal(a.recorded.beforeSeconds, undefined, "an object, not a part of the trials' own setup");
  assert.match(
    restText(a),
    /between trials 5\.0 s \(standbysSeconds 2\.5 s, linkSeconds 1\.5 s, other 0\.8 s, connectSeconds 0\.2 s\)/,
  );
});

test("a trial with several timed windows (a write run and its read runs) counts them all, and only as measured", () => {
  const a = accountTime(
    [trial(10, 16, 2, { measuredSeconds: 3.5, cloneSeconds: 0.5 }), trial(16, 19, 2, { cloneSeconds: 0.4 })],
    T0,
    20,
    1,
    null,
  );
  assert.equal(a.timedSeconds, 5.5);
  assert.equal(a.rest.trialSetup, 9 - 5.5);
  assert.deepEqual(Object.keys(a.recorded), ["cloneSeconds"]);
  // Never more than the trial's own wall.
  assert.equal(accountTime([trial(10, 12, 2, { measuredSeconds: 5 })], T0, 20, 1, null).timedSeconds, 2);
});

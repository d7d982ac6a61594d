/**
 * A notebook's wall split by what its run records: the trials' timed seconds, their own setup, the
 * gaps between them, before the first and after the last; the parts add up to the wall.
 */
import { test } from "node:test";
import assert from "node:assert/strict";
import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import { accountCells, accountTime, readTimeAccount, restText, writeTimeAccount } from "../../lib/results/time-account";
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
  assert.match(restText(a), /kernel 2\.0 s, before trials 8\.0 s, trials' setup 3\.0 s \(cloneSeconds 1\.2 s\)/);
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

/**
 * The failure reporter behind the list of failures at the end of `npm test`: a real `node --test`
 * run of a small file with one passing test, one failing assertion, one failing subtest under its
 * parent, a thrown non-Error and a skipped test. Every failure that is a test's own is one JSON line with its
 * message; a parent that failed only through its subtest is not listed twice.
 */
import { test } from "node:test";
import assert from "node:assert/strict";
import { spawnSync } from "node:child_process";
import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import type { ReportedLine } from "../../scripts/failure-record";

const reporter = path.resolve(__dirname, "..", "..", "scripts", "failure-reporter.js");

test("each failed test once, with its own message; a passing test and a parent of a failed subtest are not listed", () => {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), "dblab-reporter-"));
  try {
    const file = path.join(dir, "sample.test.js");
    fs.writeFileSync(
      file,
      [
        'const { test } = require("node:test");',
        'const assert = require("node:assert/strict");',
        'test("passes", () => {});',
        'test("a wrong count", () => assert.equal(1, 2, "the kept count is wrong"));',
        'test("a parent", async (t) => { await t.test("its child", () => { throw new Error("first line\\nsecond line"); }); });',
        'test("a thrown string", () => { throw "plain words"; });',
        'test("skipped", { skip: "not here" }, (t) => t.diagnostic("pass 9"));',
      ].join("\n"),
    );
    const out = path.join(dir, "failures.jsonl");
    const run = spawnSync(
      process.execPath,
      ["--test", `--test-reporter=${reporter}`, `--test-reporter-destination=${out}`, file],
      // Without the parent's NODE_TEST_CONTEXT: node would take the child for a recursive run and skip it.
      { encoding: "utf8", env: { ...process.env, NODE_TEST_CONTEXT: undefined } },
    );
    assert.equal(run.status, 1, run.stderr);
    const lines = fs
      .readFileSync(out, "utf8")
      .split("\n")
      .filter(Boolean)
      .map((l) => JSON.parse(l) as ReportedLine);
    const failures = lines.flatMap((l) => ("failure" in l ? [l.failure] : []));
    // The file's counts, last: what `npm test` counts from, as the runner's summary has them (the
    // parent of a failed subtest fails too), not the skipped test's own "pass 9" diagnostic.
    assert.deepEqual(lines.at(-1), { counts: { pass: 1, fail: 4, cancelled: 0, skipped: 1 } });
    assert.deepEqual(
      failures.map((f) => f.name),
      ["a wrong count", "its child", "a thrown string"],
    );
    assert.match(failures[0].message, /the kept count is wrong/);
    assert.equal(failures[1].message, "first line\nsecond line");
    assert.match(failures[2].message, /plain words/);
  } finally {
    fs.rmSync(dir, { recursive: true, force: true });
  }
});

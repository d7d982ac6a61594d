/**
 * A run killed in the middle of appending a trial leaves a torn last line in trials.jsonl. The next
 * append must not land on it (measured: resumed t3 and t4 after a torn t3, then read t1, t2, t4).
 */
import { test } from "node:test";
import assert from "node:assert/strict";
import { spawn } from "node:child_process";
import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import { RunStore, type TrialRecord } from "../../lib/results/run-store";

type Condition = { name: string };

function trial(key: string): TrialRecord<Condition> {
  const now = new Date().toISOString();
  return {
    key,
    condition: { name: key },
    repeat: 1,
    status: "ok",
    seconds: 1,
    unitMs: [1],
    startedAt: now,
    finishedAt: now,
  };
}

const PARAMS = { rows: 10 };

function freshStore(): { root: string; store: RunStore<Condition> } {
  const root = fs.mkdtempSync(path.join(os.tmpdir(), "dblab-torn-"));
  return { root, store: RunStore.open<Condition>({ notebook: "torn", params: PARAMS, root }) };
}

test("a file truncated mid-record: every trial finished before and after the resume is read", () => {
  const { root, store } = freshStore();
  store.append(trial("t1"));
  store.append(trial("t2"));
  const whole = fs.statSync(store.trialsFile).size;
  store.append(trial("t3"));
  // The writer died half-way through t3's line.
  fs.truncateSync(store.trialsFile, whole + 20);
  const resumed = RunStore.open<Condition>({ notebook: "torn", params: PARAMS, root, resumeId: store.runId });
  assert.deepEqual([...resumed.finishedKeys()].sort(), ["t1", "t2"], "the torn t3 is not taken as finished");
  resumed.append(trial("t3"));
  resumed.append(trial("t4"));
  assert.deepEqual([...resumed.finishedKeys()].sort(), ["t1", "t2", "t3", "t4"]);
  assert.ok(fs.readFileSync(resumed.trialsFile, "utf8").endsWith("}\n"));
});

test("a file holding only a torn record is emptied before the first append", () => {
  const { store } = freshStore();
  fs.writeFileSync(store.trialsFile, '{"key":"t1","cond');
  store.append(trial("t1"));
  assert.deepEqual(
    store.trials().map((t) => t.key),
    ["t1"],
  );
});

test("a real writer killed (SIGKILL) in the middle of a record: the resume loses no finished trial", async () => {
  const { root, store } = freshStore();
  store.append(trial("t1"));
  store.append(trial("t2"));
  // The child appends the first half of t3's line, says so, then is killed before the rest.
  const line = JSON.stringify(trial("t3"));
  const script = `
    const fs = require("node:fs");
    const fd = fs.openSync(${JSON.stringify(store.trialsFile)}, "a");
    fs.writeSync(fd, ${JSON.stringify(line.slice(0, Math.floor(line.length / 2)))});
    fs.fsyncSync(fd);
    process.stdout.write("half\\n");
    setInterval(() => {}, 1000);
  `;
  const child = spawn(process.execPath, ["-e", script], { stdio: ["ignore", "pipe", "inherit"] });
  await new Promise<void>((resolve, reject) => {
    child.stdout.once("data", () => resolve());
    child.once("exit", (code) => reject(new Error(`writer exited early (${code})`)));
  });
  child.kill("SIGKILL");
  await new Promise((resolve) => child.once("exit", resolve));
  assert.ok(!fs.readFileSync(store.trialsFile, "utf8").endsWith("\n"), "the writer left a torn line");

  const resumed = RunStore.open<Condition>({ notebook: "torn", params: PARAMS, root, resumeId: store.runId });
  for (const key of ["t3", "t4"]) if (!resumed.finishedKeys().has(key)) resumed.append(trial(key));
  const again = RunStore.open<Condition>({ notebook: "torn", params: PARAMS, root, resumeId: store.runId });
  assert.deepEqual(
    again.trials().map((t) => t.key),
    ["t1", "t2", "t3", "t4"],
  );
});

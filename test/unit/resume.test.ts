/**
 * `npm run reproduce -- --resume` at its margins, on hand-made run directories (no servers): which
 * run `last` and a prefix name, what is refused before anything starts (a --set or --profile that
 * changes the recorded parameters, another notebook, a run still in progress, no params.json), and
 * what the summary says it skipped and ran.
 */
import { after, test } from "node:test";
import assert from "node:assert/strict";
import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import { findExperiment } from "../../lib/experiments/registry";
import { NOTES_SHOWN, noteLines, resolveResume, resumeOutcome } from "../../scripts/resume";
import { UsageError } from "../../scripts/cli-args";

const root = fs.mkdtempSync(path.join(os.tmpdir(), "dblab-resume-unit-"));
after(() => fs.rmSync(root, { recursive: true, force: true }));

const params01 = JSON.parse(JSON.stringify(findExperiment("01").resolve("smoke", { rowCounts: [3000] }))) as Record<
  string,
  unknown
>;

function makeRun(
  id: string,
  opts: { params?: object; ownerPid?: number; finished?: boolean; trials?: object[]; startedAt: string },
): string {
  const dir = path.join(root, id);
  fs.mkdirSync(dir, { recursive: true });
  if (opts.params) fs.writeFileSync(path.join(dir, "params.json"), JSON.stringify(opts.params));
  fs.writeFileSync(
    path.join(dir, "metadata.json"),
    JSON.stringify({
      runId: id,
      notebook: id.split("_")[1],
      profile: "smoke",
      startedAt: opts.startedAt,
      owner: { pid: opts.ownerPid ?? 999_999_990, host: os.hostname() },
      ...(opts.finished ? { finishedAt: opts.startedAt, outcome: "finished" } : {}),
    }),
  );
  fs.writeFileSync(
    path.join(dir, "trials.jsonl"),
    (opts.trials ?? []).map((t) => `${JSON.stringify({ condition: {}, repeat: 1, seconds: 1, ...t })}\n`).join(""),
  );
  return dir;
}

const OLD = "20261130T100000Z-aaaaaa_01-index-write-cost_0001";
const STOPPED = "20261201T100000Z-bbbbbb_01-index-write-cost_0002";
const BUSY = "20261201T110000Z-cccccc_01-index-write-cost_0003";
makeRun(OLD, { params: params01, finished: true, startedAt: "2026-11-30T10:00:00.000Z" });
const stoppedDir = makeRun(STOPPED, {
  params: params01,
  startedAt: "2026-12-01T10:00:00.000Z",
  trials: [
    { key: "a", status: "ok" },
    { key: "b", status: "failed" },
  ],
});
const none = { only: [], sets: {} };

function refused(fn: () => unknown, message: RegExp): void {
  assert.throws(fn, (e: unknown) => e instanceof UsageError && message.test(e.message), String(message));
}

test("--resume names a run by id, prefix or `last`; its notebook, profile and recorded parameters come with it", () => {
  const byId = resolveResume(STOPPED, none, root);
  assert.equal(byId.entry.id, "01");
  assert.equal(byId.profile, "smoke");
  assert.deepEqual(byId.overrides, params01);
  assert.deepEqual([...byId.resume.finishedBefore], ["a"]);
  assert.equal(byId.resume.recordsBefore, 2);
  assert.equal(resolveResume("20261201T100000Z-bbb", none, root).resume.runId, STOPPED);
  assert.equal(resolveResume("last", none, root).resume.runId, STOPPED);
  // The same values given again are not a change.
  assert.equal(resolveResume(STOPPED, { only: ["01"], sets: { rowCounts: [3000] } }, root).resume.runId, STOPPED);
});

test("--resume refuses, before anything starts, what would change the run or cannot be resumed", () => {
  refused(
    () => resolveResume(STOPPED, { only: [], sets: { rowCounts: [4000] } }, root),
    /--set changes the parameters of run .*rowCounts: recorded \[3000\], given \[4000\]/,
  );
  refused(
    () => resolveResume(STOPPED, { only: [], sets: { noSuchKnob: 1 } }, root),
    /--set with --resume .*noSuchKnob/,
  );
  refused(
    () => resolveResume(STOPPED, { profile: "default", only: [], sets: {} }, root),
    /--profile default with --resume: .* ran with profile smoke/,
  );
  refused(() => resolveResume(STOPPED, { only: ["02"], sets: {} }, root), /--only 02 with --resume: .* notebook 01/);
  refused(() => resolveResume("nope", none, root), /--resume: no run "nope"/);
  refused(() => resolveResume("2026", none, root), /names \d+ runs/);
  makeRun(BUSY, { params: params01, ownerPid: process.pid, startedAt: "2026-12-01T11:00:00.000Z" });
  try {
    refused(() => resolveResume(BUSY, none, root), /still in progress/);
  } finally {
    fs.rmSync(path.join(root, BUSY), { recursive: true });
  }
  const noParams = "20261201T090000Z-dddddd_01-index-write-cost_0004";
  makeRun(noParams, { startedAt: "2026-12-01T09:00:00.000Z" });
  try {
    refused(() => resolveResume(noParams, none, root), /no readable params\.json/);
  } finally {
    fs.rmSync(path.join(root, noParams), { recursive: true });
  }
});

test("the resume's summary: skipped the finished trials, ran the rest, and flags a trial finished twice", () => {
  const { resume } = resolveResume(STOPPED, none, root);
  fs.appendFileSync(
    path.join(stoppedDir, "trials.jsonl"),
    ["b", "c"]
      .map((key) => `${JSON.stringify({ key, condition: {}, repeat: 1, status: "ok", seconds: 1 })}\n`)
      .join(""),
  );
  const outcome = resumeOutcome(resume);
  assert.equal(outcome.skipped, 1);
  assert.deepEqual(
    outcome.ran.map((t) => t.key),
    ["b", "c"],
  );
  assert.deepEqual(outcome.repeated, []);
  assert.match(
    outcome.lines.join("\n"),
    /skipped 1 finished trial\(s\): a\n {2}ran 2 trial\(s\) \(2 ok, 0 failed\): b, c/,
  );
  fs.appendFileSync(
    path.join(stoppedDir, "trials.jsonl"),
    `${JSON.stringify({ key: "a", condition: {}, repeat: 1, status: "ok", seconds: 1 })}\n`,
  );
  assert.deepEqual(resumeOutcome(resume).repeated, ["a"]);
  assert.match(resumeOutcome(resume).lines.join("\n"), /ran again, though finished before: a/);
});

test("a run's notes are said in the terminal, at most NOTES_SHOWN of them, the rest counted", () => {
  const run = (notes?: readonly string[]) =>
    ({ metadata: notes ? { notes } : undefined }) as unknown as Parameters<typeof noteLines>[0];
  assert.deepEqual(noteLines(undefined), []);
  assert.deepEqual(noteLines(run()), []);
  assert.deepEqual(noteLines(run(["external target: dropped dblab_x, left on h:5432 by a lab run that is gone"])), [
    "  note: external target: dropped dblab_x, left on h:5432 by a lab run that is gone",
  ]);
  const many = Array.from({ length: NOTES_SHOWN + 2 }, (_, i) => `n${i}`);
  const lines = noteLines(run(many));
  assert.equal(lines.length, NOTES_SHOWN + 1);
  assert.equal(lines[NOTES_SHOWN - 1], `  note: n${NOTES_SHOWN - 1}`);
  assert.equal(lines[NOTES_SHOWN], "  … and 2 more note(s) in the report");
});

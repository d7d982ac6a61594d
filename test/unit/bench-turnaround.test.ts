import { after, test } from "node:test";
import assert from "node:assert/strict";
import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import { lastRecordedTurnaround } from "../../bench/turnaround";
import { EXPERIMENTS } from "../../lib/experiments/registry";

const made: string[] = [];
after(() => made.forEach((d) => fs.rmSync(d, { recursive: true, force: true })));

/** A reports/run.json as `npm run reproduce` writes it, with the notebooks `ids` finished. */
function reportsWith(ids: readonly string[], profile = "default", overrides: Record<string, unknown> = {}): string {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), "dblab-bench-quote-"));
  made.push(dir);
  const record = {
    runId: "20261206T000000Z-test",
    profile,
    overrides,
    commit: "0123456789abcdef",
    host: {},
    startedAt: "2026-12-06T00:00:00.000Z",
    finishedAt: "2026-12-06T00:20:00.000Z",
    totalSeconds: 1200,
    notebooks: ids.map((id) => ({ id, status: "ok", seconds: 60, kernelStartSeconds: 1.3 })),
  };
  fs.writeFileSync(path.join(dir, "run.json"), JSON.stringify(record));
  return dir;
}

// What a plain `npm run reproduce` runs: every notebook that needs no parameters named.
const byDefault = EXPERIMENTS.filter((n) => !n.requires).map((n) => n.id);

test("--skip-default quotes a plain default run, which never includes a notebook that needs parameters", () => {
  assert.ok(
    EXPERIMENTS.some((n) => n.requires),
    "the registry has a notebook that runs only when asked (00)",
  );
  const quoted = lastRecordedTurnaround("default", reportsWith(byDefault));
  assert.equal(quoted?.wallSeconds, 1200);
  assert.match(quoted?.source ?? "", /npm run reproduce 20261206T000000Z-test \(commit 0123456789ab\)/);
});

test("--skip-default does not quote a run that left a notebook out, changed a parameter, or ran another profile", () => {
  assert.equal(lastRecordedTurnaround("default", reportsWith(byDefault.slice(1))), undefined);
  assert.equal(lastRecordedTurnaround("default", reportsWith(byDefault, "default", { rows: 1000 })), undefined);
  assert.equal(lastRecordedTurnaround("default", reportsWith(byDefault, "smoke")), undefined);
  const none = reportsWith(byDefault);
  fs.rmSync(path.join(none, "run.json"));
  assert.equal(lastRecordedTurnaround("default", none), undefined);
});

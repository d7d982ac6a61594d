/** Raw tool output kept per trial beside the run's results: gzipped, named by the trial, capped. */
import { test } from "node:test";
import assert from "node:assert/strict";
import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import { gunzipSync } from "node:zlib";
import { keepRawOutput, withTrialOutput } from "../../lib/workloads/raw-output";

test("inside a trial: each file gzipped under <run>/raw/, named by trial key and run; past the cap, listed as left out", async () => {
  const run = fs.mkdtempSync(path.join(os.tmpdir(), "dblab-raw-"));
  try {
    assert.equal(keepRawOutput("pgbench", [{ name: "stdout.txt", text: "x" }]), undefined, "outside a trial: nothing");
    await withTrialOutput(run, "r1/indexes=7", async () => {
      keepRawOutput("pgbench", [
        { name: "stdout.txt", text: "tps = 123.4\n" },
        { name: "tx-log-1.txt", text: "0 1 2000 0 1700000000 1\n".repeat(1000) },
      ]);
      // A second run in the same trial, with a cap that only the small file fits under.
      const big = Array.from({ length: 20_000 }, (_, i) => `${i} ${Math.random()}`).join("\n");
      keepRawOutput(
        "pgbench",
        [
          { name: "stderr.txt", text: "progress\n" },
          { name: "tx-log-1.txt", text: big },
        ],
        200,
      );
    });
    const files = fs.readdirSync(path.join(run, "raw")).sort();
    assert.deepEqual(files, [
      "r1_indexes=7.pgbench-1.stdout.txt.gz",
      "r1_indexes=7.pgbench-1.tx-log-1.txt.gz",
      "r1_indexes=7.pgbench-2.omitted.txt",
      "r1_indexes=7.pgbench-2.stderr.txt.gz",
    ]);
    const text = gunzipSync(fs.readFileSync(path.join(run, "raw", files[0] ?? ""))).toString("utf8");
    assert.equal(text, "tps = 123.4\n");
    assert.match(
      fs.readFileSync(path.join(run, "raw", files[2] ?? ""), "utf8"),
      /cap of 200 compressed bytes.*\ntx-log-1\.txt/s,
    );
  } finally {
    fs.rmSync(run, { recursive: true, force: true });
  }
});

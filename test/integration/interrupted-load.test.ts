// test-tier: shared — one embedded PostgreSQL as the external server, a 02 full-profile run in a child
/**
 * A SIGTERM in the middle of a large load leaves no table or index of that trial behind, and the
 * resume redoes only that trial. On an external server, where tables would outlive the run (an
 * embedded server's directory goes with it): 02's full-profile path at a size this machine loads in
 * seconds, the signal sent once a load of the third trial is seen running on the server.
 */
import { test } from "node:test";
import assert from "node:assert/strict";
import { spawn } from "node:child_process";
import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import { Client } from "pg";
import { EmbeddedPostgresTarget } from "../../lib/targets/embedded/embedded-postgres";
import { SMALL_FULL_02 } from "../support/sizes";
import { runDirectory, trialLines } from "../support/run-files";

const FIXTURE = path.join(__dirname, "..", "fixtures", "run-experiment.js");

async function until(what: string, condition: () => Promise<boolean> | boolean, ms: number): Promise<void> {
  const deadline = Date.now() + ms;
  while (!(await condition())) {
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}`);
    await new Promise((r) => setTimeout(r, 100));
  }
}

test(
  "SIGTERM mid-load on an external server: nothing of the trial is left there, and the resume redoes only it",
  { timeout: 420_000 },
  async () => {
    const base = fs.mkdtempSync(path.join(os.tmpdir(), "dblab-interrupted-load-"));
    const results = path.join(base, "results");
    // An embedded server plays the user's: the lab sees only its URI.
    const remote = await new EmbeddedPostgresTarget().start({ engine: "postgresql", name: "remote" });
    const admin = new Client(remote.connection);
    await admin.connect();
    const env = {
      ...process.env,
      DBLAB_STATE_DIR: path.join(base, "state"),
      DBLAB_TARGET: "external",
      DBLAB_POSTGRES_URI: remote.uri,
    };
    const run = (resumeId?: string) => {
      const child = spawn(
        process.execPath,
        [FIXTURE, "02", "full", results, JSON.stringify(SMALL_FULL_02), ...(resumeId ? [resumeId] : [])],
        { env, stdio: ["ignore", "pipe", "pipe"] },
      );
      let out = "";
      child.stdout?.on("data", (d: Buffer) => (out += String(d)));
      child.stderr?.on("data", (d: Buffer) => (out += String(d)));
      const exited = new Promise<number | null>((resolve) => child.once("exit", resolve));
      return { child, exited, output: () => out };
    };
    const loading = async () => {
      const r = await admin.query<{ n: number }>(
        "SELECT count(*)::int AS n FROM pg_stat_activity WHERE datname LIKE 'dblab_%' AND state = 'active' " +
          "AND (query ILIKE 'INSERT%' OR query ILIKE 'COPY%' OR query ILIKE 'CREATE INDEX%')",
      );
      return r.rows[0].n > 0;
    };
    const first = run();
    try {
      await until("two finished trials", () => trialLines(results).length >= 2, 240_000);
      await until("a load of the next trial running on the server", loading, 120_000);
      const kept = trialLines(results);
      first.child.kill("SIGTERM");
      const code = await first.exited;
      assert.notEqual(code, 0, first.output());
      assert.match(first.output(), new RegExp(`interrupted \\(SIGTERM\\): ${kept.length} of \\d+ trials kept`));
      const left = await admin.query<{ datname: string }>(
        "SELECT datname FROM pg_database WHERE datname NOT IN ('postgres', 'template0', 'template1')",
      );
      assert.deepEqual(
        left.rows.map((r) => r.datname),
        [],
        "no database of the run, so no table or index of the trial in flight",
      );
      const dir = runDirectory(results);
      assert.ok(dir, first.output());
      const runId = path.basename(dir);
      const second = run(runId);
      assert.equal(await second.exited, 0, second.output());
      const after = trialLines(results);
      assert.deepEqual(after.slice(0, kept.length), kept, "the finished trials are kept as they were");
      const keys = after.map((t) => t.key);
      assert.equal(new Set(keys).size, keys.length, `no trial twice: ${keys.join(", ")}`);
      assert.match(second.output(), /DONE .* failed=0/);
      const leftAfter = await admin.query<{ n: number }>(
        "SELECT count(*)::int AS n FROM pg_database WHERE datname LIKE 'dblab%'",
      );
      assert.equal(leftAfter.rows[0].n, 0, "the resumed run left nothing either");
    } finally {
      first.child.kill("SIGKILL");
      await admin.end();
      await remote.stop();
      fs.rmSync(base, { recursive: true, force: true });
    }
  },
);

// test-tier: fast — one embedded PostgreSQL and pgbench; the 'container' path runs on this host
import { test } from "node:test";
import assert from "node:assert/strict";
import { spawn } from "node:child_process";
import path from "node:path";
import { EmbeddedPostgresTarget, type EmbeddedPostgresServer } from "../../lib/targets/embedded/embedded-postgres";
import { ownRecords } from "../../lib/runtime/resource-registry";
import type { ExecResult } from "../../lib/targets/types";
import {
  findHostPgbench,
  initPgbench,
  runPgbench,
  statementLatency,
  type PgbenchRunner,
} from "../../lib/workloads/pgbench";
import type { ExecCapableServer } from "../../lib/workloads/pgbench/locate";

async function withServer(
  t: { skip: (reason: string) => void },
  fn: (server: EmbeddedPostgresServer) => Promise<void>,
): Promise<void> {
  if (!findHostPgbench()) {
    t.skip("no pgbench on this machine (install postgresql-client or set DBLAB_PGBENCH)");
    return;
  }
  const server = await new EmbeddedPostgresTarget().start({ engine: "postgresql", name: "pgbench-test" });
  try {
    await fn(server);
  } finally {
    await server.stop();
  }
}

test("a real run on embedded PostgreSQL: summary, progress, series and percentiles agree", async (t) => {
  await withServer(t, async (server) => {
    const init = await initPgbench(server, { scale: 1, steps: "dtGvp" });
    assert.ok(init.seconds > 0 && "primary keys" in init.steps, `init steps: ${JSON.stringify(init.steps)}`);
    const progressSeen: number[] = [];
    const r = await runPgbench(server, {
      clients: 2,
      durationSeconds: 3,
      onProgress: (p) => progressSeen.push(p.second),
    });
    assert.ok(r.summary.tps > 0);
    assert.equal(r.summary.clients, 2);
    assert.ok(statementLatency(r.summary, /^UPDATE pgbench_accounts/)! > 0);
    assert.ok(r.progress.length >= 2, "-P 1 lines parsed");
    assert.equal(progressSeen.length, r.progress.length, "progress streamed while running");
    // Ordering, not timing: each line after the start, seconds increasing (a -T 3 run has ~3 lines).
    assert.ok(
      r.progress.every(
        (p, i) => p.epochMs! >= r.startedAtMs && p.second > 0 && (i === 0 || p.second > r.progress[i - 1].second),
      ),
    );
    const logged = r.series.reduce((a, p) => a + p.transactions, 0);
    assert.ok(
      Math.abs(logged - r.summary.transactions) <= 2 * 2,
      `log has ${logged} of ${r.summary.transactions} transactions`,
    );
    assert.equal(r.series.length, 3, "one bucket per second of -T");
    assert.ok(
      r.loadStartedAtMs >= r.startedAtMs && r.loadStartedAtMs <= r.finishedAtMs,
      "the load starts inside the run",
    );
    assert.ok(
      r.latency!.p50Ms <= r.latency!.p95Ms &&
        r.latency!.p95Ms <= r.latency!.p99Ms &&
        r.latency!.p99Ms <= r.latency!.maxMs,
    );
    // The log's mean lies within what the log itself holds (pgbench's own average is shown, not
    // bounded: it includes waiting for a CPU, which a busy machine stretches).
    assert.ok(r.latency!.meanMs > 0 && r.latency!.meanMs <= r.latency!.maxMs);
    t.diagnostic(`log mean ${r.latency!.meanMs.toFixed(3)} ms, pgbench's average ${r.summary.latencyAvgMs} ms`);
    assert.ok(!r.args.some((a) => a.includes(server.connection.password)), "no password on the command line");
  });
});

test("an AbortSignal stops pgbench at once and leaves no registered process", async (t) => {
  await withServer(t, async (server) => {
    await initPgbench(server, { scale: 1, steps: "dtGvp" });
    const controller = new AbortController();
    let registered = false;
    const started = Date.now();
    const run = runPgbench(server, {
      clients: 1,
      durationSeconds: 60,
      signal: controller.signal,
      onStart: () => {
        registered = ownRecords().some(
          (r) => r.resource.type === "process" && r.resource.description.startsWith("pgbench"),
        );
        setTimeout(() => controller.abort(), 1000);
      },
    });
    await assert.rejects(run, (e: Error) => e.name === "AbortError");
    // Stopped before its natural end (60 s), however slow the machine is today.
    assert.ok(Date.now() - started < 60_000, "stopped before its 60 s");
    assert.ok(registered, "the pgbench child was registered while it ran");
    assert.ok(!ownRecords().some((r) => r.resource.description.startsWith("pgbench")), "record removed");
  });
});

test("the container path (docker exec) runs a custom script; here the 'container' is this host", async (t) => {
  await withServer(t, async (server) => {
    const host = findHostPgbench()!;
    // A stand-in for DockerStartedServer.exec that runs the command locally, with pgbench on PATH.
    const exec = (cmd: string[], options: { env?: readonly string[] } = {}): Promise<ExecResult> =>
      new Promise((resolve) => {
        const env: NodeJS.ProcessEnv = { PATH: `${path.dirname(host.path)}:${process.env.PATH}` };
        for (const e of options.env ?? []) env[e.slice(0, e.indexOf("="))] = e.slice(e.indexOf("=") + 1);
        const child = spawn(cmd[0], cmd.slice(1), { env });
        let stdout = "";
        let stderr = "";
        child.stdout.on("data", (d) => (stdout += d));
        child.stderr.on("data", (d) => (stderr += d));
        child.on("close", (code) => resolve({ exitCode: code ?? -1, stdout, stderr }));
      });
    const fake = Object.assign(Object.create(server) as EmbeddedPostgresServer, {
      kind: "docker",
      exec,
    }) as unknown as ExecCapableServer;
    const runner: PgbenchRunner = {
      kind: "container",
      server: fake,
      version: host.version,
      port: server.connection.port,
    };
    await initPgbench(server, { scale: 1, steps: "dtGvp" }, runner);
    const r = await runPgbench(server, {
      runner,
      clients: 1,
      durationSeconds: 2,
      noVacuum: true,
      script: { name: "custom.sql", text: "BEGIN;\nSELECT abalance\n  FROM pgbench_accounts WHERE aid = 1;\nEND;\n" },
    });
    assert.equal(r.runner.startsWith("container"), true);
    assert.ok(r.summary.tps > 0);
    assert.deepEqual(
      r.summary.statements.map((s) => s.command),
      ["BEGIN;", "SELECT abalance", "END;"],
    );
    assert.ok(r.latency && r.latency.n > 0, "log files read back from the 'container'");
  });
});

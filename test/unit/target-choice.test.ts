/**
 * `auto` is the embedded server unless the user names Docker, a remote engine or a URI: a daemon
 * that answers on this machine changes nothing, and is not even asked. The daemon here is a fake
 * one on a unix socket that answers every request and counts them.
 */
import { test } from "node:test";
import assert from "node:assert/strict";
import fs from "node:fs";
import http from "node:http";
import os from "node:os";
import path from "node:path";
import { decideTarget, plannedTargetKind } from "../../lib/targets/select";
import { foreignUriWarning } from "../../lib/targets/engines";
import { embeddedPostgresUnavailable } from "../../lib/targets/embedded/postgres-binaries";
import { withEnv } from "../support/env";

async function fakeDaemon(): Promise<{ socket: string; requests: string[]; close: () => Promise<void> }> {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), "dblab-fake-docker-"));
  const socket = path.join(dir, "docker.sock");
  const requests: string[] = [];
  const server = http.createServer((req, res) => {
    requests.push(`${req.method ?? "?"} ${req.url ?? "?"}`);
    res.writeHead(200, { "content-type": "text/plain" });
    res.end("OK");
  });
  await new Promise<void>((resolve) => server.listen(socket, resolve));
  return {
    socket,
    requests,
    close: async () => {
      await new Promise<void>((resolve) => server.close(() => resolve()));
      fs.rmSync(dir, { recursive: true, force: true });
    },
  };
}

const CLEAN = {
  DBLAB_TARGET: undefined,
  DBLAB_POSTGRES_URI: undefined,
  DBLAB_MONGODB_URI: undefined,
  MONGODB_URI: undefined,
  DOCKER_CONTEXT: undefined,
  DOCKER_CONFIG: undefined,
};

test("auto with a local daemon that answers: embedded, and the daemon is not asked", async () => {
  const daemon = await fakeDaemon();
  try {
    await withEnv({ ...CLEAN, DOCKER_HOST: `unix://${daemon.socket}` }, async () => {
      for (const engine of ["postgresql", "mongodb"] as const) {
        const d = await decideTarget(engine, "auto");
        assert.equal(d.kind, "embedded");
        assert.match(d.reason, /the default .*target "docker" or DBLAB_TARGET=docker/);
      }
      assert.equal(daemon.requests.length, 0, `auto never asks the daemon: ${daemon.requests.join(", ")}`);
      // The same daemon, named: docker, after one ping.
      const named = await decideTarget("postgresql", "docker");
      assert.equal(named.kind, "docker");
      assert.match(named.reason, /target "docker" asked for/);
      assert.ok(
        daemon.requests.some((r) => r.includes("/_ping")),
        daemon.requests.join(", "),
      );
      process.env.DBLAB_TARGET = "docker";
      assert.match((await decideTarget("postgresql", "auto")).reason, /DBLAB_TARGET=docker/);
    });
  } finally {
    await daemon.close();
  }
});

test("auto with a URI: external; MongoDB's URI is read from DBLAB_MONGODB_URI only", async () => {
  await withEnv({ ...CLEAN, DBLAB_POSTGRES_URI: "postgresql://u:p@db.example:5432/x" }, async () => {
    const d = await decideTarget("postgresql", "auto");
    assert.deepEqual([d.kind, d.asIs, d.reason], ["external", true, "DBLAB_POSTGRES_URI is set"]);
  });
  await withEnv({ ...CLEAN, DBLAB_MONGODB_URI: "mongodb://u:p@db.example:27017/" }, async () => {
    assert.equal((await decideTarget("mongodb", "auto")).kind, "external");
  });
  await withEnv({ ...CLEAN, MONGODB_URI: "mongodb://u:p@app.example:27017/" }, async () => {
    const d = await decideTarget("mongodb", "auto");
    assert.equal(d.kind, "embedded", "a bare MONGODB_URI does not send the lab to that server");
    assert.match(d.reason, /MONGODB_URI is set but not read: .* only from DBLAB_MONGODB_URI/);
    assert.equal(foreignUriWarning("postgresql"), undefined);
  });
  await withEnv({ ...CLEAN, MONGODB_URI: "mongodb://a/", DBLAB_MONGODB_URI: "mongodb://b/" }, async () => {
    assert.equal(foreignUriWarning("mongodb"), undefined, "no warning once the lab's own variable is set");
  });
});

test("auto with DOCKER_HOST naming another host: that engine, never this machine's", async () => {
  // Nothing listens on this address's port 9 (discard), which is enough to show the choice: the
  // remote engine is asked, and its silence is an error, not a fall-back to embedded.
  await withEnv({ ...CLEAN, DOCKER_HOST: "ssh://nobody@127.0.0.1:9" }, async () => {
    await assert.rejects(decideTarget("postgresql", "auto"), /does not answer; the lab does not fall back/);
  });
});

test("a platform without an embedded package: one line that offers Docker or a URI", () => {
  const none = embeddedPostgresUnavailable("win32", "x64", require.resolve);
  assert.ok(none);
  assert.doesNotMatch(none, /\n/);
  assert.match(none, /^No embedded PostgreSQL for win32-x64 \(the lab has it for darwin-arm64, .*linux-x64\)/);
  assert.match(none, /target "docker" or DBLAB_TARGET=docker.*DBLAB_POSTGRES_URI=postgresql:/);
  const absent = embeddedPostgresUnavailable("darwin", "arm64", (name) => {
    throw new Error(`Cannot find module '${name}'`);
  });
  assert.match(
    absent ?? "",
    /^The embedded PostgreSQL for darwin-arm64 .* is not installed: run `npm ci`, or use Docker/,
  );
  assert.equal(
    embeddedPostgresUnavailable("linux", "x64", () => "/x"),
    undefined,
    "installed: nothing to say",
  );
});

test("plannedTargetKind says before a run what decideTarget then chooses, asking no daemon", async () => {
  const cases: [Record<string, string | undefined>, "auto" | "docker", string][] = [
    [{}, "auto", "embedded"],
    [{}, "docker", "docker"],
    [{ DBLAB_TARGET: "docker" }, "auto", "docker"],
    [{ DBLAB_POSTGRES_URI: "postgresql://u:p@db.example:5432/x" }, "auto", "external"],
    [{ DOCKER_HOST: "ssh://lab@vm.example" }, "auto", "docker"],
  ];
  for (const [vars, choice, kind] of cases) {
    await withEnv({ ...CLEAN, ...vars }, async () => {
      assert.equal(plannedTargetKind("postgresql", choice), kind, JSON.stringify(vars));
      if (kind !== "docker") assert.equal((await decideTarget("postgresql", choice)).kind, kind);
    });
  }
});

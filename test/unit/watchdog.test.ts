/**
 * The stall watchdog's rules with stand-in servers and probes (the real frozen server is in
 * test/integration/stall.test.ts): a probe that answers keeps a long trial alive; silence for the
 * bound ends it with an error naming the server and what it was doing, and stops the server.
 */
import { test } from "node:test";
import assert from "node:assert/strict";
import fs from "node:fs";
import http from "node:http";
import os from "node:os";
import path from "node:path";
import type { StartedServer } from "../../lib/targets/types";
import {
  explainRunError,
  explainServerLoss,
  isDockerHostLoss,
  StallError,
  stallBoundFromEnv,
  TrialWatchdog,
  watchTrial,
  withWatchdog,
} from "../../lib/workloads/watchdog";
import { ServerLostError, TrialFailedError } from "../../lib/workloads/failures";

function fakeServer(extra: object = {}): StartedServer & { stopped: number } {
  const server = {
    id: "fake",
    engine: "postgresql" as const,
    kind: "embedded" as const,
    connection: { host: "127.0.0.1", port: 1, user: "u", password: "p", database: "d" },
    uri: "postgresql://u:p@127.0.0.1:1/d",
    description: {
      engine: "postgresql" as const,
      kind: "embedded" as const,
      version: "17.6",
      source: "test",
      address: "127.0.0.1:1",
    },
    stopped: 0,
    restart: async () => undefined,
    stop: async () => {
      server.stopped++;
    },
    ...extra,
  };
  return server;
}

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

test("a trial that outlasts the bound while its server answers probes is not a stall", async () => {
  const server = fakeServer();
  let probes = 0;
  const dog = new TrialWatchdog({
    servers: new Map([["postgresql", server]]),
    boundMs: 300,
    probe: async () => void probes++,
  });
  const result = await dog.watch("postgresql", "a long CREATE INDEX", async () => {
    await sleep(1200);
    return "done";
  });
  assert.equal(result, "done");
  assert.ok(probes > 0, "probed while quiet");
  assert.equal(server.stopped, 0);
});

test("silence for the bound: a StallError naming the server and the work, and the server is stopped", async () => {
  const server = fakeServer();
  const said: string[] = [];
  const dog = new TrialWatchdog({
    servers: new Map([["postgresql", server]]),
    boundMs: 300,
    say: (m) => said.push(m),
    probe: () => new Promise<void>(() => undefined), // never answers: a frozen server
  });
  await assert.rejects(
    dog.watch("postgresql", "trial t1", () => new Promise<never>(() => undefined)),
    (e: Error) =>
      e instanceof StallError &&
      /^The PostgreSQL 17\.6 server \(embedded, 127\.0\.0\.1:1\) stalled: no progress and no answer to a liveness probe/.test(
        e.message,
      ) &&
      /while trial t1; the server was stopped$/.test(e.message),
  );
  assert.equal(server.stopped, 1);
  assert.ok(
    said.some((m) => /stalled: trial t1/.test(m)),
    `the progress line says so: ${said.join(" | ")}`,
  );
});

test("watchTrial without a watchdog in scope just runs; inside withWatchdog it is watched", async () => {
  assert.equal(await watchTrial("postgresql", "x", async () => 1), 1);
  const server = fakeServer();
  const dog = new TrialWatchdog({
    servers: new Map([["postgresql", server]]),
    boundMs: 200,
    probe: () => new Promise<void>(() => undefined),
  });
  await assert.rejects(
    withWatchdog(dog, () => watchTrial("postgresql", "x", () => new Promise<never>(() => undefined))),
    StallError,
  );
});

test("the bound scales with finished peers and has a floor; DBLAB_STALL_SECONDS is checked", async () => {
  const dog = new TrialWatchdog({ servers: new Map(), probe: async () => undefined });
  assert.equal(dog.boundMs("g"), 60_000, "floor of 60 s");
  assert.equal(stallBoundFromEnv({ DBLAB_STALL_SECONDS: "2.5" }), 2500);
  assert.equal(stallBoundFromEnv({}), undefined);
  assert.throws(
    () => stallBoundFromEnv({ DBLAB_STALL_SECONDS: "soon" }),
    /DBLAB_STALL_SECONDS must be a number of seconds > 0, got "soon"/,
  );
});

test("a lost connection to an embedded server says what its log says (a full WAL disk was `write ECONNRESET`)", () => {
  const server = fakeServer({
    logTail: () => 'LOG:  x\nPANIC:  could not write to file "pg_wal/xlogtemp.1": No space left on device\nLOG:  y',
  });
  const error = Object.assign(new Error("write ECONNRESET"), { code: "ECONNRESET" });
  const explained = explainServerLoss(server, error) as Error;
  assert.match(
    explained.message,
    /server \(embedded, 127\.0\.0\.1:1\) went away \(write ECONNRESET\): its log says: PANIC: .*No space left on device/,
  );
  const other = new Error("syntax error");
  assert.equal(explainServerLoss(server, other), other, "other errors are left as they are");
});

test("a lost connection to a server whose process is gone is a ServerLostError naming the process", async () => {
  // A real process that has exited: its pid is not alive any more.
  const { spawnSync } = await import("node:child_process");
  const gone = spawnSync(process.execPath, ["-e", "0"]).pid;
  assert.ok(gone);
  const server = fakeServer({ pid: gone });
  const error = new Error("Connection terminated unexpectedly");
  const explained = explainServerLoss(server, error);
  assert.ok(explained instanceof ServerLostError);
  assert.equal(explained.cause, error);
  assert.match(
    explained.message,
    new RegExp(`went away \\(Connection terminated unexpectedly\\): its process ${gone} is gone`),
  );
  const alive = fakeServer({ pid: process.pid });
  assert.equal(explainServerLoss(alive, error), error, "a living process says nothing by itself");
  // node-postgres' words for the statement sent after the loss are a lost connection too.
  const next = new Error("Client has encountered a connection error and is not queryable");
  assert.match(
    (explainServerLoss(server, next) as Error).message,
    new RegExp(
      `went away \\(Client has encountered a connection error and is not queryable\\): its process ${gone} is gone`,
    ),
  );
});

test("a Docker server's lost connection while the engine does not answer names Docker (was: write ECONNRESET)", async () => {
  const saved = process.env.DOCKER_HOST;
  process.env.DOCKER_HOST = "unix:///nonexistent/h15-docker.sock"; // no daemon there: the engine is "gone"
  try {
    const server = fakeServer({
      kind: "docker",
      description: { engine: "postgresql", kind: "docker", version: "17.6", source: "img", address: "172.17.0.9:5432" },
      network: { dockerHost: "this machine", route: "bridge" },
    });
    const dog = new TrialWatchdog({
      servers: new Map([["postgresql", server]]),
      boundMs: 60_000,
      probe: async () => undefined,
    });
    const lost = Object.assign(new Error("write ECONNRESET"), { code: "ECONNRESET" });
    await assert.rejects(
      dog.watch("postgresql", "trial t1", () => Promise.reject(lost)),
      /^DockerHostGoneError: the Docker engine at unix:\/\/\/nonexistent\/h15-docker\.sock went away; the PostgreSQL 17\.6 server \(docker, 172\.17\.0\.9:5432\) was lost \(write ECONNRESET\)$/,
    );
    // Remembered: the session's stop at the run's end does not wait out a removal on it.
    const { recentlyUnreachable } = await import("../../lib/targets/docker/docker-client");
    assert.match(
      String(recentlyUnreachable(process.env.DOCKER_HOST)),
      /did not answer a moment ago: no answer to a ping/,
    );
  } finally {
    if (saved === undefined) delete process.env.DOCKER_HOST;
    else process.env.DOCKER_HOST = saved;
  }
});

test("a remote engine's server: the lost link names the engine's address and resolved host; a wrapped one is still an engine loss", async () => {
  const saved = process.env.DOCKER_HOST;
  // An ssh alias nobody resolves (no such name in any ~/.ssh/config): the ping fails at once.
  process.env.DOCKER_HOST = "unix:///nonexistent/h22-docker.sock";
  try {
    const server = fakeServer({
      kind: "docker",
      description: {
        engine: "postgresql",
        kind: "docker",
        version: "17.6",
        source: "img",
        address: "127.0.0.1:40001",
        dockerHost: "labengine (10.231.99.2) (ssh)",
      },
      network: { dockerHost: "labengine (10.231.99.2) (ssh)", route: "ssh-tunnel" },
    });
    const dog = new TrialWatchdog({ servers: new Map([["postgresql", server]]), boundMs: 60_000, activityMs: 0 });
    const lost = new Error("Connection terminated unexpectedly");
    let caught: unknown;
    await dog.watch("postgresql", "trial t1", () => Promise.reject(lost)).catch((e: unknown) => (caught = e));
    assert.match(
      String(caught),
      /^DockerHostGoneError: the Docker engine at unix:\/\/\/nonexistent\/h22-docker\.sock \(10\.231\.99\.2\) went away; the PostgreSQL 17\.6 server \(docker, 127\.0\.0\.1:40001\) was lost \(Connection terminated unexpectedly\)$/,
    );
    assert.equal(isDockerHostLoss(caught), true);
    // runTrials wraps it in a TrialFailedError with it as the cause: the session still knows it.
    const failed = {
      key: "k",
      condition: {},
      repeat: 1,
      status: "failed" as const,
      error: "x",
      startedAt: "",
      finishedAt: "",
    };
    assert.equal(isDockerHostLoss(new TrialFailedError(failed, { cause: caught })), true);
    assert.equal(new TrialFailedError(failed, { cause: caught }).failure, "engine-lost");
    // The same words in a message without the cause are not an engine loss: the type decides.
    assert.equal(isDockerHostLoss(new Error(`Trial k failed: ${(caught as Error).message}`)), false);
    assert.equal(isDockerHostLoss(new TrialFailedError(failed, { cause: new Error("syntax error") })), false);
    // Outside a trial (03's template load) the same explanation comes from the session's servers.
    const outside = await explainRunError(new Map([["postgresql", server]]), lost);
    assert.match(String(outside), /DockerHostGoneError: the Docker engine at .* went away/);
    const other = new Error("syntax error at or near");
    assert.equal(await explainRunError(new Map([["postgresql", server]]), other), other);
    // pgbench's own words for the same loss (libpq's, from its stderr) are an engine loss too.
    const pgbench = new Error(
      "pgbench failed (exit 2):\npgbench: error: client 0 script 0 aborted in command 4 query 0: server closed the connection unexpectedly",
    );
    let fromPgbench: unknown;
    await dog
      .watch("postgresql", "run set2/reindex", () => Promise.reject(pgbench))
      .catch((e: unknown) => (fromPgbench = e));
    assert.equal(isDockerHostLoss(fromPgbench), true);
    assert.equal((fromPgbench as Error).cause, pgbench, "the cause is pgbench's error, unchanged");
  } finally {
    if (saved === undefined) delete process.env.DOCKER_HOST;
    else process.env.DOCKER_HOST = saved;
  }
});

test("a remote engine's link dropped under a trial but the engine answers again: said so, with the link's reason, and resumable", async () => {
  // A stand-in engine that answers Docker's ping on a unix socket (no daemon needed).
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), "dblab-ping-"));
  const socket = path.join(dir, "docker.sock");
  const engine = http.createServer((_req, res) => res.end("OK"));
  await new Promise<void>((resolve) => engine.listen(socket, resolve));
  const saved = process.env.DOCKER_HOST;
  process.env.DOCKER_HOST = `unix://${socket}`;
  try {
    const description = {
      engine: "postgresql" as const,
      kind: "docker" as const,
      version: "17.6",
      source: "img",
      address: "127.0.0.1:40002",
      dockerHost: "10.231.99.2 (ssh)",
    };
    const dropped = fakeServer({
      kind: "docker",
      description,
      network: { dockerHost: description.dockerHost, route: "ssh-tunnel" },
      linkDrop: () => "SSH to root@10.231.99.2: no answer to keepalives for 20 s",
    });
    const dog = new TrialWatchdog({ servers: new Map([["postgresql", dropped]]), boundMs: 60_000, activityMs: 0 });
    const lost = new Error("Connection terminated unexpectedly");
    let caught: unknown;
    await dog.watch("postgresql", "trial t2", () => Promise.reject(lost)).catch((e: unknown) => (caught = e));
    assert.match(
      String(caught),
      /^DockerHostLinkLostError: the connection to the Docker engine at unix:\/\/\S+ \(10\.231\.99\.2\) dropped; the PostgreSQL 17\.6 server \(docker, 127\.0\.0\.1:40002\) lost its connection \(Connection terminated unexpectedly; SSH to root@10\.231\.99\.2: no answer to keepalives for 20 s\); the engine answers again$/,
    );
    assert.equal(isDockerHostLoss(caught), true);
    // Without a dropped link, a lost connection on an engine that answers is the server's own affair.
    const steady = fakeServer({
      kind: "docker",
      description,
      network: { dockerHost: "this machine", route: "bridge" },
      linkDrop: () => undefined,
    });
    const dog2 = new TrialWatchdog({ servers: new Map([["postgresql", steady]]), boundMs: 60_000, activityMs: 0 });
    await assert.rejects(
      dog2.watch("postgresql", "trial t3", () => Promise.reject(lost)),
      (e: unknown) => e === lost,
    );
  } finally {
    if (saved === undefined) delete process.env.DOCKER_HOST;
    else process.env.DOCKER_HOST = saved;
    engine.close();
    fs.rmSync(dir, { recursive: true, force: true });
  }
});

/** A port on this machine where nothing listens: its handshake is refused, as a dropped link's never completes. */
async function closedPort(): Promise<number> {
  const net = await import("node:net");
  const srv = net.createServer();
  await new Promise<void>((resolve) => srv.listen(0, "127.0.0.1", resolve));
  const port = (srv.address() as { port: number }).port;
  await new Promise((r) => srv.close(r));
  return port;
}

function externalFake(port: number): StartedServer & { stopped: number } {
  return fakeServer({
    kind: "external",
    connection: { host: "127.0.0.1", port, user: "u", password: "p", database: "d" },
    description: {
      engine: "postgresql",
      kind: "external",
      version: "17.6",
      source: "uri",
      address: `127.0.0.1:${port}`,
    },
  });
}

test("a server seen only through its connection: silence with its port unreachable is a lost link, named within the link's bound", async () => {
  // The port answers at first (the link is up), then refuses every handshake (the link dropped).
  const net = await import("node:net");
  const listener = net.createServer((socket) => socket.destroy());
  await new Promise<void>((resolve) => listener.listen(0, "127.0.0.1", resolve));
  const port = (listener.address() as { port: number }).port;
  setTimeout(() => listener.close(), 300);
  const server = externalFake(port);
  const dog = new TrialWatchdog({
    servers: new Map([["postgresql", server]]),
    boundMs: 60_000,
    activityMs: 0,
    probe: () => Promise.reject(new Error("timeout expired")),
    link: { boundMs: 400, unreachableMs: 150 },
  });
  const began = Date.now();
  let caught: unknown;
  // A trial that never ends by itself (pgbench waiting out the kernel's retransmissions).
  await dog
    .watch("postgresql", "running pgbench for idx14/r1", () => new Promise(() => undefined))
    .catch((e: unknown) => (caught = e));
  assert.ok(caught instanceof ServerLostError, String(caught));
  assert.match(
    String(caught),
    new RegExp(
      `The PostgreSQL 17\\.6 server \\(external, 127\\.0\\.0\\.1:${port}\\) stopped answering: the link to it is lost — ` +
        `no progress for [\\d.]+ s and no TCP handshake with 127\\.0\\.0\\.1:${port} for [\\d.]+ s \\(watched for [\\d.]+ s; ` +
        `bound 0\\.4 s of silence with the port unreachable for 0\\.1 s\\) while running pgbench for idx14/r1`,
    ),
  );
  // Well before the stall bound (60 s): the link's own bound ended it.
  assert.ok(Date.now() - began < 30_000, `${Date.now() - began} ms`);
  assert.equal(server.stopped, 0, "nothing of the lab's to kill there: the run's close drops its database");
});

test("a port that never completed a handshake from here is no lost link: the stall bound decides", async () => {
  const port = await closedPort();
  const dog = new TrialWatchdog({
    servers: new Map([["postgresql", externalFake(port)]]),
    boundMs: 3000,
    activityMs: 0,
    probe: () => Promise.reject(new Error("timeout expired")),
    link: { boundMs: 400, unreachableMs: 150 },
  });
  await assert.rejects(
    dog.watch("postgresql", "a trial", () => new Promise(() => undefined)),
    (e: unknown) => e instanceof StallError,
  );
});

test("pgbench's empty output on a server that answers no probe is a lost connection naming the server; one that answers keeps its own error", async () => {
  const port = await closedPort();
  const empty = new Error('pgbench printed no "tps = " line; its output ends with:.');
  const lost = new TrialWatchdog({
    servers: new Map([["postgresql", externalFake(port)]]),
    boundMs: 60_000,
    activityMs: 0,
    probe: () => Promise.reject(new Error("timeout expired")),
  });
  let caught: unknown;
  await lost.watch("postgresql", "trial idx21/r1", () => Promise.reject(empty)).catch((e: unknown) => (caught = e));
  assert.ok(caught instanceof ServerLostError, String(caught));
  assert.match(
    String(caught),
    new RegExp(
      `The PostgreSQL 17\\.6 server \\(external, 127\\.0\\.0\\.1:${port}\\) stopped answering, so the connection to it was lost ` +
        `\\(pgbench printed no "tps = " line; .*\\): no answer to a liveness probe within 5\\.0 s \\(timeout expired\\) ` +
        `and no TCP handshake with 127\\.0\\.0\\.1:${port}: the link to it is down`,
    ),
  );
  assert.equal((caught as Error).cause, empty);
  const answering = new TrialWatchdog({
    servers: new Map([["postgresql", externalFake(port)]]),
    boundMs: 60_000,
    activityMs: 0,
    probe: async () => undefined,
  });
  await assert.rejects(
    answering.watch("postgresql", "trial idx21/r1", () => Promise.reject(empty)),
    (e: unknown) => e === empty,
  );
});

test("pgbench refused at its start because the embedded server was just killed: the loss is waited for and named (was: pgbench's words only)", async () => {
  const { pgbenchFailure } = await import("../../lib/workloads/pgbench/run");
  // What pgbench printed in the fault matrix when the kill landed as it connected.
  const refused = pgbenchFailure(
    1,
    "",
    'pgbench: error: connection to server at "127.0.0.1", port 44549 failed: Connection refused\n' +
      "\tIs the server running on that host and accepting TCP/IP connections?\n" +
      "pgbench: error: could not create connection for client 0\n",
  );
  // The postmaster is reaped a moment after the refusal: until then its pid is a zombie that looks alive.
  const reapedAt = Date.now() + 600;
  const server = fakeServer({
    processGone: async () => (Date.now() >= reapedAt ? "its postmaster (pid 4242) was killed by SIGKILL" : undefined),
  });
  const watchdog = new TrialWatchdog({ servers: new Map([["postgresql", server]]), boundMs: 60_000, activityMs: 0 });
  let caught: unknown;
  await watchdog
    .watch("postgresql", "trial set1/reindex", () => Promise.reject(refused))
    .catch((e: unknown) => (caught = e));
  assert.ok(caught instanceof ServerLostError, String(caught));
  assert.equal(caught.cause, refused);
  assert.match(
    caught.message,
    /PostgreSQL 17\.6 server \(embedded, 127\.0\.0\.1:1\) went away \(pgbench lost its connection .*Connection refused.*\): its postmaster \(pid 4242\) was killed by SIGKILL/,
  );
});

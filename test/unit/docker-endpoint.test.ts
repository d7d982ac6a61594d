/**
 * Which Docker engine the lab uses and how it may reach a database there, without any server:
 * DOCKER_HOST / DOCKER_CONTEXT / current context resolved like the CLI, unsafe engines and
 * addresses refused before anything starts, known_hosts read as OpenSSH reads it.
 */
import { test } from "node:test";
import assert from "node:assert/strict";
import { createHmac, randomBytes } from "node:crypto";
import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import { ParameterError } from "../../lib/params/validate";
import { contextDirName, endpointFromRef, endpointRef, resolveEndpoint } from "../../lib/targets/docker/endpoint";
import { placementFor } from "../../lib/targets/docker/routes";
import { checkKnownHost } from "../../lib/targets/docker/ssh-docker-host";
import { socketClient } from "../../lib/targets/docker/docker-client";
import { params as roundTripsParams } from "../../lib/experiments/round-trips";
import { decideTarget } from "../../lib/targets/select";

function tempDir(): string {
  return fs.mkdtempSync(path.join(os.tmpdir(), "dblab-endpoint-test-"));
}

/** A docker config folder with contexts, as `docker context create` writes it. */
function writeContext(configDir: string, name: string, host: string, tls?: { skipVerify: boolean }): void {
  const meta = path.join(configDir, "contexts", "meta", contextDirName(name));
  fs.mkdirSync(meta, { recursive: true });
  const docker: Record<string, unknown> = { Host: host, SkipTLSVerify: tls?.skipVerify ?? false };
  fs.writeFileSync(path.join(meta, "meta.json"), JSON.stringify({ Name: name, Metadata: {}, Endpoints: { docker } }));
  if (tls) {
    const dir = path.join(configDir, "contexts", "tls", contextDirName(name), "docker");
    fs.mkdirSync(dir, { recursive: true });
    for (const f of ["ca.pem", "cert.pem", "key.pem"]) fs.writeFileSync(path.join(dir, f), "-");
  }
}

test("contexts are stored under the SHA-256 of their name, as the Docker CLI stores them", () => {
  // `docker context create remote` writes contexts/meta/<this>/meta.json (sha256sum of "remote").
  assert.equal(contextDirName("remote"), "b71199ebd070b36beab7317920c2c2f1d777df8d05e5527d8458fda57cb17a7a");
  assert.notEqual(contextDirName("remote"), contextDirName("other"));
});

test("DOCKER_HOST wins over DOCKER_CONTEXT, which wins over the current context, as in the CLI", () => {
  const config = tempDir();
  writeContext(config, "far", "ssh://lab@far.example:2222");
  writeContext(config, "near", "unix:///run/near.sock");
  fs.writeFileSync(path.join(config, "config.json"), JSON.stringify({ currentContext: "near" }));

  const current = resolveEndpoint({ DOCKER_CONFIG: config });
  assert.equal(current.host, "unix:///run/near.sock");
  assert.equal(current.context, "near");
  assert.equal(current.local, true);

  const chosen = resolveEndpoint({ DOCKER_CONFIG: config, DOCKER_CONTEXT: "far" });
  assert.equal(chosen.kind, "ssh");
  assert.equal(chosen.local, false);
  assert.deepEqual(chosen.ssh && { user: chosen.ssh.user, host: chosen.ssh.host, port: chosen.ssh.port }, {
    user: "lab",
    host: "far.example",
    port: 2222,
  });
  assert.deepEqual(endpointRef(chosen), { dockerHost: "ssh://lab@far.example:2222", dockerContext: "far" });

  const direct = resolveEndpoint({ DOCKER_CONFIG: config, DOCKER_CONTEXT: "far", DOCKER_HOST: "unix:///x.sock" });
  assert.equal(direct.host, "unix:///x.sock");
  assert.equal(direct.context, undefined);

  assert.equal(
    resolveEndpoint({ DOCKER_CONFIG: config, DOCKER_CONTEXT: "default" }).host,
    "unix:///var/run/docker.sock",
  );
  assert.throws(
    () => resolveEndpoint({ DOCKER_CONFIG: config, DOCKER_CONTEXT: "missing" }),
    /context "missing".*does not exist/,
  );
  assert.equal(resolveEndpoint({ DOCKER_CONFIG: tempDir() }).host, "unix:///var/run/docker.sock");
});

test("a record's engine is found again through its context, or its stored address when the context is gone", () => {
  const config = tempDir();
  writeContext(config, "tls", "tcp://10.9.9.9:2376", { skipVerify: false });
  const fromContext = endpointFromRef(
    { dockerHost: "tcp://10.9.9.9:2376", dockerContext: "tls" },
    { DOCKER_CONFIG: config },
  );
  assert.equal(fromContext.kind, "tcp-tls");
  assert.ok(fromContext.tls?.ca?.endsWith("ca.pem"));
  const gone = endpointFromRef(
    { dockerHost: "ssh://root@10.9.9.9", dockerContext: "deleted" },
    { DOCKER_CONFIG: config },
  );
  assert.equal(gone.kind, "ssh");
});

test("plain tcp:// to another host is refused with a clear message; to loopback it is a local engine", () => {
  assert.throws(
    () => resolveEndpoint({ DOCKER_HOST: "tcp://10.231.99.2:2375" }),
    /plain tcp:\/\/ \(no TLS\) to another host is refused/,
  );
  const loop = resolveEndpoint({ DOCKER_HOST: "tcp://127.0.0.1:2375" });
  assert.equal(loop.kind, "tcp");
  assert.equal(loop.local, true);
  assert.throws(() => resolveEndpoint({ DOCKER_HOST: "ftp://x" }), /not a Docker engine address/);
});

test("a database on a remote TLS engine needs DBLAB_DOCKER_BIND; ssh:// keeps it on the remote loopback", () => {
  const tls = resolveEndpoint({
    DOCKER_HOST: "tcp://10.231.99.2:2376",
    DOCKER_TLS_VERIFY: "1",
    DOCKER_CERT_PATH: tempDir(),
  });
  assert.equal(tls.kind, "tcp-tls");
  assert.throws(() => placementFor(tls, {}), /DBLAB_DOCKER_BIND/);
  assert.throws(() => placementFor(tls, { DBLAB_DOCKER_BIND: "my-host" }), /must be an IP address/);
  assert.deepEqual(placementFor(tls, { DBLAB_DOCKER_BIND: "10.231.99.2" }), {
    bindIp: "10.231.99.2",
    reach: "bind-address",
    pickLocalPort: false,
  });
  const ssh = resolveEndpoint({ DOCKER_HOST: "ssh://root@10.231.99.2" });
  assert.deepEqual(placementFor(ssh, {}), { bindIp: "127.0.0.1", reach: "ssh-tunnel", pickLocalPort: false });
  assert.throws(() => placementFor(ssh, { DBLAB_DOCKER_BIND: "10.231.99.2" }), /SSH tunnel/);
  const local = resolveEndpoint({ DOCKER_HOST: "unix:///var/run/docker.sock" });
  assert.equal(placementFor(local, {}).reach, "local");
});

test("decideTarget refuses an unsafe engine before anything starts, and does not fall back to embedded", async () => {
  const saved = {
    host: process.env.DOCKER_HOST,
    bind: process.env.DBLAB_DOCKER_BIND,
    target: process.env.DBLAB_TARGET,
  };
  delete process.env.DBLAB_TARGET;
  try {
    process.env.DOCKER_HOST = "tcp://10.231.99.2:2375";
    await assert.rejects(
      decideTarget("postgresql", "auto"),
      (e: unknown) => e instanceof ParameterError && /plain tcp/.test(e.message),
    );
    await assert.rejects(decideTarget("postgresql", "docker"), /plain tcp/);
    // Embedded asked for: the Docker engine is not consulted at all.
    assert.equal((await decideTarget("postgresql", "embedded")).kind, "embedded");
  } finally {
    for (const [key, value] of [
      ["DOCKER_HOST", saved.host],
      ["DBLAB_DOCKER_BIND", saved.bind],
      ["DBLAB_TARGET", saved.target],
    ] as const) {
      if (value === undefined) delete process.env[key];
      else process.env[key] = value;
    }
  }
});

test("known_hosts: plain, [host]:port, hashed and wildcard entries match; another key is a mismatch", () => {
  const dir = tempDir();
  const key = randomBytes(51);
  const other = randomBytes(51);
  const b64 = (b: Buffer) => b.toString("base64");
  const salt = randomBytes(20);
  const hashed = `|1|${b64(salt)}|${createHmac("sha1", salt).update("10.1.1.7").digest("base64")}`;
  const file = path.join(dir, "known_hosts");
  fs.writeFileSync(
    file,
    [
      "# comment",
      `10.1.1.5,alias ssh-ed25519 ${b64(key)}`,
      `[10.1.1.6]:2222 ssh-ed25519 ${b64(key)}`,
      `${hashed} ssh-ed25519 ${b64(key)}`,
      `*.lab.test,!bad.lab.test ssh-ed25519 ${b64(key)}`,
      `10.1.1.8 ssh-ed25519 ${b64(other)}`,
      `@revoked 10.1.1.9 ssh-ed25519 ${b64(key)}`,
      `10.1.1.9 ssh-ed25519 ${b64(key)}`,
      "",
    ].join("\n"),
  );
  const at = (host: string, port = 22) => ({ host, port });
  assert.equal(checkKnownHost(at("10.1.1.5"), key, [file]), "ok");
  assert.equal(checkKnownHost(at("10.1.1.6", 2222), key, [file]), "ok");
  assert.equal(checkKnownHost(at("10.1.1.6"), key, [file]), "unknown", "port 22 is not [host]:2222");
  assert.equal(checkKnownHost(at("10.1.1.7"), key, [file]), "ok");
  assert.equal(checkKnownHost(at("db.lab.test"), key, [file]), "ok");
  assert.equal(checkKnownHost(at("bad.lab.test"), key, [file]), "unknown");
  assert.equal(checkKnownHost(at("10.1.1.8"), key, [file]), "mismatch");
  assert.equal(checkKnownHost(at("10.1.1.9"), key, [file]), "mismatch", "a revoked key is refused");
  assert.equal(checkKnownHost(at("10.1.1.10"), key, [file]), "unknown");
});

test("notebook 05's hosts: ssh:// or a context per environment, checked like DOCKER_HOST before anything starts", () => {
  const ok = roundTripsParams("smoke", { hosts: { sameAz: "ssh://root@10.231.99.2" } });
  assert.deepEqual(ok.hosts, { sameAz: "ssh://root@10.231.99.2" });
  assert.deepEqual(roundTripsParams("smoke").hosts, {});
  assert.throws(
    () => roundTripsParams("smoke", { hosts: { crossAz: "tcp://10.231.99.2:2375" } }),
    /hosts\.crossAz: .*plain tcp/,
  );
  assert.throws(
    () => roundTripsParams("smoke", { hosts: { otherAz: "ssh://x" } as never }),
    /hosts\.otherAz is not known/,
  );
  assert.throws(
    () => roundTripsParams("smoke", { hosts: { sameAz: "no-such-context-here" } }),
    /hosts\.sameAz: .*does not exist/,
  );
});

test("notebook 05's hosts for a quorum environment: ssh:// only (replication comes back through its SSH connection)", () => {
  const socket = { sameAz: "unix:///var/run/docker.sock" };
  assert.deepEqual(roundTripsParams("smoke", { environments: ["same-az"], hosts: socket }).hosts, socket);
  assert.throws(
    () => roundTripsParams("smoke", { environments: ["quorum-same-az"], hosts: socket }),
    /hosts\.sameAz must be an ssh:\/\/ engine .* for quorum-same-az/,
  );
  const ssh = roundTripsParams("smoke", {
    environments: ["quorum-cross-az"],
    hosts: { crossAz: "ssh://root@10.231.99.2" },
  });
  assert.equal(ssh.hosts.crossAz, "ssh://root@10.231.99.2");
});

test("a socket engine's client stays on its socket when DOCKER_HOST names an ssh:// engine (docker-modem would not)", () => {
  const saved = process.env.DOCKER_HOST;
  process.env.DOCKER_HOST = "ssh://root@10.231.99.2";
  try {
    const modem = socketClient("/nonexistent/docker.sock").modem as {
      socketPath?: string;
      host?: string;
      protocol?: string;
    };
    assert.equal(modem.socketPath, "/nonexistent/docker.sock");
    assert.equal(modem.host, undefined);
    assert.equal(modem.protocol, "http");
  } finally {
    if (saved === undefined) delete process.env.DOCKER_HOST;
    else process.env.DOCKER_HOST = saved;
  }
});

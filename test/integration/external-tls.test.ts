// test-tier: host — a network namespace and a veth pair with a fixed address
/**
 * The external target against real servers with TLS: an embedded PostgreSQL started with ssl=on
 * and a CA and server certificate made here with openssl (CN localhost, SAN localhost and
 * 127.0.0.1), a second one with ssl=off, and a non-loopback address of this machine (a veth pair
 * into a network namespace made here) for the plaintext refusal.
 */
import { after, before, test } from "node:test";
import assert from "node:assert/strict";
import { spawn, spawnSync } from "node:child_process";
import fs from "node:fs";
import net from "node:net";
import os from "node:os";
import path from "node:path";
import { Client } from "pg";
import { connect } from "../../lib/engines/postgres/connect";
import { experiment } from "../../lib/experiments/index-write-cost";
import { EmbeddedPostgresTarget, type EmbeddedPostgresServer } from "../../lib/targets/embedded/embedded-postgres";
import { ExternalTarget, LAB_DATABASE_COMMENT } from "../../lib/targets/external/external-target";
import type { PreflightReport } from "../../lib/targets/external/preflight";
import type { ServerSpec } from "../../lib/targets/types";
import { runTag } from "../../lib/targets/run-names";
import { phaseOneSpec } from "../../lib/experiments/round-trips/workload/phases";
import { experiment as yourIndexes } from "../../lib/experiments/your-indexes";
import { findHostClientTool, findHostPgbench } from "../../lib/workloads/pgbench";
import { withEnv } from "../support/env";
import { cleanLabDatabases, labDatabases } from "../support/lab-databases";
import { LOOPBACK_SAN, makeTestCa, opensslMissing, servesCertificate, type TestCa } from "../support/test-ca";

const SPEC_01: ServerSpec = {
  engine: "postgresql",
  uses: {
    notebook: "01 index write cost",
    clients: 2,
    extensions: [
      { name: "pg_stat_statements", preload: true, measures: "server time of the timed statements" },
      { name: "pg_walinspect", measures: "WAL records by type in the timed window (B-tree inserts counted)" },
    ],
  },
};

const openssl = opensslMissing() === undefined;
const dir = fs.mkdtempSync(path.join(os.tmpdir(), "dblab-tls-test-"));
let tlsServer: EmbeddedPostgresServer | undefined;
let plainServer: EmbeddedPostgresServer | undefined;
let certificates: TestCa | undefined;
const ca = path.join(dir, "ca.pem");
const wrongCa = path.join(dir, "wrong-ca.pem");
const SAN = LOOPBACK_SAN;

/** The server's certificate, signed by the test CA, with the names `san` gives. */
function issueServerCertificate(san: string): void {
  certificates?.issueServerCertificate(san);
}

before(async () => {
  if (!openssl) return;
  certificates = makeTestCa(dir);
  tlsServer = await new EmbeddedPostgresTarget().start({
    engine: "postgresql",
    name: "tls",
    settings: {
      ssl: "on",
      ssl_cert_file: path.join(dir, "server.crt"),
      ssl_key_file: path.join(dir, "server.key"),
      shared_preload_libraries: "pg_stat_statements",
    },
  });
  plainServer = await new EmbeddedPostgresTarget().start({ engine: "postgresql", name: "plain" });
});

after(async () => {
  await tlsServer?.stop();
  await plainServer?.stop();
  fs.rmSync(dir, { recursive: true, force: true });
});

function tlsUri(server: EmbeddedPostgresServer, query: string, password = server.connection.password): string {
  return `postgresql://postgres:${encodeURIComponent(password)}@localhost:${server.connection.port}/postgres?${query}`;
}

/** Everything written to stdout and stderr while `work` runs (and still shown). */
async function capturingOutput<T>(work: () => Promise<T>): Promise<{ result: T; output: string }> {
  let output = "";
  const out = process.stdout.write.bind(process.stdout);
  const err = process.stderr.write.bind(process.stderr);
  const tap =
    (write: typeof out) =>
    (chunk: string | Uint8Array, ...rest: never[]): boolean => {
      output += typeof chunk === "string" ? chunk : Buffer.from(chunk).toString("utf8");
      return write(chunk, ...rest);
    };
  process.stdout.write = tap(out);
  process.stderr.write = tap(err);
  try {
    return { result: await work(), output };
  } finally {
    process.stdout.write = out;
    process.stderr.write = err;
  }
}

function filesUnder(root: string): string[] {
  return fs
    .readdirSync(root, { withFileTypes: true })
    .flatMap((e) => (e.isDirectory() ? filesUnder(path.join(root, e.name)) : [path.join(root, e.name)]));
}

test("verify-full with the right CA: notebook 01 smoke end to end over TLS, recorded, no password anywhere", async (t) => {
  if (!tlsServer) return t.skip("no openssl to make certificates");
  const server = tlsServer;
  await cleanLabDatabases(t, server);
  const results = fs.mkdtempSync(path.join(os.tmpdir(), "dblab-tls-results-"));
  try {
    const uri = tlsUri(server, `sslmode=verify-full&sslrootcert=${encodeURIComponent(ca)}`);
    const { result: run, output } = await capturingOutput(() =>
      withEnv({ DBLAB_TARGET: "external", DBLAB_POSTGRES_URI: uri, DBLAB_RESULTS_DIR: results }, () =>
        experiment.run(experiment.params("smoke", { engines: ["postgresql"], target: "external" })),
      ),
    );
    assert.ok(run.trials.length > 0);
    assert.ok(
      run.trials.every((x) => x.status === "ok"),
      "every trial finished",
    );
    const described = run.metadata.servers.find((s) => s.engine === "postgresql");
    assert.equal(described?.kind, "external");
    assert.equal(described?.transport?.tls, true);
    assert.match(described?.transport?.version ?? "", /^TLSv1\.[23]$/);
    assert.equal(described?.transport?.certificate, "chain and host name verified");
    assert.match(output, /Pre-flight for 01 index write cost: PostgreSQL 17\.6/);
    assert.match(output, /pg_stat_statements \(available, preloaded\): server time of the timed statements — measured/);
    const metadata = fs.readFileSync(path.join(run.directory, "metadata.json"), "utf8");
    assert.match(metadata, /"certificate": "chain and host name verified"/);
    const password = server.connection.password;
    for (const file of filesUnder(run.directory)) {
      assert.ok(!fs.readFileSync(file, "utf8").includes(password), `no password in ${path.basename(file)}`);
    }
    assert.ok(!output.includes(password), "no password in the run's output");
    assert.deepEqual(await labDatabases(server), [], "the lab's database is dropped after the run");
  } finally {
    fs.rmSync(results, { recursive: true, force: true });
  }
});

test("notebook 06 smoke over verify-full TLS: its databases made and dropped there, pgbench and psql over TLS, no password anywhere", async (t) => {
  if (!tlsServer) return t.skip("no openssl to make certificates");
  if (!findHostPgbench() || !findHostClientTool("psql")) return t.skip("no pgbench or psql on this machine");
  const server = tlsServer;
  await cleanLabDatabases(t, server);
  const results = fs.mkdtempSync(path.join(os.tmpdir(), "dblab-tls-06-"));
  // Every session of the run's databases as the server sees it, polled while the run goes on: the
  // libpq programs (psql for the schema and data, pgbench for the runs) must be on TLS too.
  const watcher = new Client(server.connection);
  await watcher.connect();
  const sessions = new Map<string, boolean>();
  // 06's own databases as they come and go: each must carry the lab's mark (a kill -9 leaves them).
  const comments = new Map<string, string | null>();
  let watching = true;
  const watch = (async () => {
    while (watching) {
      const { rows } = await watcher.query<{ pid: number; app: string; db: string; ssl: boolean }>(
        `SELECT a.pid, a.application_name AS app, a.datname AS db, s.ssl FROM pg_stat_activity a
         JOIN pg_stat_ssl s USING (pid) WHERE a.datname LIKE 'dblab%' AND a.backend_type = 'client backend'`,
      );
      for (const r of rows) sessions.set(`${r.pid} ${r.app || "(no name)"} ${r.db}`, r.ssl);
      const marked = await watcher.query<{ name: string; comment: string | null }>(
        `SELECT datname AS name, shobj_description(oid, 'pg_database') AS comment FROM pg_database
         WHERE datname LIKE 'dblab\\_%\\_yi\\_%'`,
      );
      for (const d of marked.rows) comments.set(d.name, d.comment);
      await new Promise((r) => setTimeout(r, 50));
    }
  })();
  try {
    const uri = tlsUri(server, `sslmode=verify-full&sslrootcert=${encodeURIComponent(ca)}`);
    const { result: run, output } = await capturingOutput(() =>
      withEnv({ DBLAB_TARGET: "external", DBLAB_POSTGRES_URI: uri, DBLAB_RESULTS_DIR: results }, () =>
        yourIndexes.run(yourIndexes.params("smoke", { target: "external" }), { profile: "smoke" }),
      ),
    );
    watching = false;
    await watch;
    assert.ok(run.trials.length > 0);
    assert.ok(
      run.trials.every((x) => x.status === "ok"),
      run.trials.map((x) => x.error ?? "").join(" "),
    );
    const described = run.metadata.servers.find((s) => s.engine === "postgresql");
    assert.equal(described?.kind, "external");
    assert.equal(described?.transport?.certificate, "chain and host name verified");
    assert.match(output, /Pre-flight for 06 your indexes: PostgreSQL 17\.6/);
    // Under the run's own prefix (its id), so that another run at once on this server shares none.
    const prefix = `dblab_${runTag(run.metadata.runId)}`;
    assert.match(output, new RegExp(`also creates and drops ${prefix}_yi_run, ${prefix}_yi_template, ${prefix}_yi_v0`));
    const s = yourIndexes.summarise(run);
    assert.equal(s.indexes.length, 2, "both indexes judged");
    const pgbenchSessions = [...sessions].filter(([k]) => k.endsWith(` pgbench ${prefix}_yi_run`));
    assert.ok(pgbenchSessions.length > 0, `pgbench's sessions were seen: ${[...sessions.keys()].join("; ")}`);
    assert.deepEqual(
      [...sessions].filter(([, ssl]) => !ssl).map(([k]) => k),
      [],
      "no session of the run in plaintext",
    );
    assert.ok(
      comments.has(`${prefix}_yi_template`) && comments.has(`${prefix}_yi_run`),
      [...comments.keys()].join(", "),
    );
    for (const [name, comment] of comments)
      assert.ok(comment?.startsWith(LAB_DATABASE_COMMENT), `${name} is marked as the lab's: ${comment}`);
    const password = server.connection.password;
    for (const file of filesUnder(run.directory))
      assert.ok(!fs.readFileSync(file, "utf8").includes(password), `no password in ${path.basename(file)}`);
    assert.ok(!output.includes(password), "no password in the run's output");
    assert.deepEqual(await labDatabases(server), [], "the lab's database and 06's are dropped after the run");
  } finally {
    watching = false;
    await watch.catch(() => undefined);
    await watcher.end();
    fs.rmSync(results, { recursive: true, force: true });
  }
});

test("a wrong CA fails before the run with the certificate error, and leaves nothing", async (t) => {
  if (!tlsServer) return t.skip("no openssl to make certificates");
  const server = tlsServer;
  await cleanLabDatabases(t, server);
  const uri = tlsUri(server, `sslmode=verify-full&sslrootcert=${encodeURIComponent(wrongCa)}`);
  let preflightRan = false;
  await assert.rejects(
    new ExternalTarget(uri, { onPreflight: () => (preflightRan = true) }).start(SPEC_01),
    (e: Error) =>
      /Cannot reach the external PostgreSQL at .*the server's certificate was not accepted\): unable to verify the first certificate/.test(
        e.message,
      ) && !e.message.includes(server.connection.password),
  );
  assert.equal(preflightRan, false, "refused before anything else was asked of the server");
  assert.deepEqual(await labDatabases(server), []);
});

test("verify-ca checks the chain only; verify-full also the host name", async (t) => {
  if (!tlsServer) return t.skip("no openssl to make certificates");
  const server = tlsServer;
  await cleanLabDatabases(t, server);
  const byIp = (mode: string) =>
    `postgresql://postgres:${server.connection.password}@127.0.0.1:${server.connection.port}/postgres?sslmode=${mode}&sslrootcert=${ca}`;
  const start = (mode: string) => new ExternalTarget(byIp(mode), { onPreflight: () => undefined }).start(SPEC_01);
  const full = await start("verify-full");
  assert.equal(full.description.transport?.certificate, "chain and host name verified", "127.0.0.1 is in the SAN");
  await full.stop();
  // The same CA's certificate for localhost alone (reloaded by the running server): 127.0.0.1 is then
  // not a name it carries. The reload is asynchronous: what follows waits until the server presents
  // the new certificate, not for a delay.
  const reload = async () => {
    const c = new Client(server.connection);
    await c.connect();
    await c.query("SELECT pg_reload_conf()");
    await c.end();
    const cert = certificates?.serverCert ?? "";
    const from = Date.now();
    while (!servesCertificate(server.connection.port, cert) && Date.now() - from < 30_000)
      await new Promise((r) => setTimeout(r, 100));
    assert.ok(
      servesCertificate(server.connection.port, cert),
      `the server did not present the reissued certificate within 30 s of pg_reload_conf()`,
    );
  };
  issueServerCertificate("subjectAltName=DNS:localhost");
  await reload();
  try {
    await assert.rejects(start("verify-full"), /IP: 127\.0\.0\.1 is not in the cert's list/);
    const chain = await start("verify-ca");
    assert.equal(chain.description.transport?.certificate, "chain verified, host name not checked");
    await chain.stop();
  } finally {
    issueServerCertificate(SAN);
    await reload();
  }
  assert.deepEqual(await labDatabases(server), []);
});

test("SIGTERM mid-run drops the lab's database on the external server", async (t) => {
  if (!tlsServer) return t.skip("no openssl to make certificates");
  const server = tlsServer;
  await cleanLabDatabases(t, server);
  const results = fs.mkdtempSync(path.join(os.tmpdir(), "dblab-tls-sigterm-"));
  const fixture = path.join(__dirname, "..", "fixtures", "run-index-write-cost.js");
  const child = spawn(
    process.execPath,
    [fixture, results, JSON.stringify({ engines: ["postgresql"], target: "external", repeats: 3 })],
    {
      env: {
        ...process.env,
        DBLAB_TARGET: "external",
        DBLAB_POSTGRES_URI: tlsUri(server, `sslmode=verify-full&sslrootcert=${ca}`),
      },
      stdio: "ignore",
    },
  );
  const exited = new Promise<number | null>((resolve) => child.once("exit", (code) => resolve(code)));
  try {
    let seen: string[] = [];
    for (let i = 0; i < 300 && seen.length === 0 && child.exitCode === null; i++) {
      await new Promise((r) => setTimeout(r, 100));
      seen = await labDatabases(server);
    }
    assert.equal(seen.length, 1, "the run created its database");
    child.kill("SIGTERM");
    // 143 from the signal handler, or 3 when the run's own error path (its connections ended by the
    // drop) reached exit first: either way after the drop.
    assert.notEqual(await exited, 0);
    assert.deepEqual(await labDatabases(server), [], "dropped on SIGTERM");
  } finally {
    child.kill("SIGKILL");
    fs.rmSync(results, { recursive: true, force: true });
  }
});

test("sslmode=require against a server with ssl=off fails clearly", async (t) => {
  if (!plainServer) return t.skip("no openssl to make certificates");
  const server = plainServer;
  await cleanLabDatabases(t, server);
  const uri = `postgresql://postgres:${server.connection.password}@127.0.0.1:${server.connection.port}/postgres?sslmode=require`;
  await assert.rejects(
    new ExternalTarget(uri, { onPreflight: () => undefined }).start(SPEC_01),
    /sslmode=require: the server does not accept TLS connections, ssl = off there/,
  );
  assert.deepEqual(await labDatabases(server), []);
});

test("more clients than max_connections leaves free is refused by the pre-flight, with the figures", async (t) => {
  if (!plainServer) return t.skip("no openssl to make certificates");
  const server = plainServer;
  await cleanLabDatabases(t, server);
  const uri = `postgresql://postgres:${server.connection.password}@127.0.0.1:${server.connection.port}/postgres`;
  const spec: ServerSpec = { engine: "postgresql", uses: { notebook: "03 over-indexing", clients: 500 } };
  await assert.rejects(
    new ExternalTarget(uri, { onPreflight: () => undefined }).start(spec),
    /cannot run 03 over-indexing: the run opens up to 504 sessions and the server has \d+ free \(max_connections 100, 3 reserved/,
  );
  assert.deepEqual(await labDatabases(server), []);
});

test("application_name from the URI shows in pg_stat_activity for the workload's sessions", async (t) => {
  if (!tlsServer) return t.skip("no openssl to make certificates");
  const server = tlsServer;
  const uri = tlsUri(server, `sslmode=verify-full&sslrootcert=${ca}&application_name=team-bench`);
  const external = await new ExternalTarget(uri, { onPreflight: () => undefined }).start(SPEC_01);
  try {
    const workload = await connect(external.connection);
    const observer = new Client(server.connection);
    await observer.connect();
    try {
      const { rows } = await observer.query<{ application_name: string; ssl: boolean }>(
        `SELECT a.application_name, s.ssl FROM pg_stat_activity a JOIN pg_stat_ssl s USING (pid) WHERE a.datname = $1`,
        [external.connection.database],
      );
      assert.deepEqual(rows, [{ application_name: "team-bench", ssl: true }]);
    } finally {
      await observer.end();
      await workload.end();
    }
    // The lab's own helpers keep their names, by which it tells them from the workload.
    const helper = await connect(external.connection, { applicationName: "dblab-admin" });
    const { rows } = await helper.query<{ application_name: string }>("SHOW application_name");
    assert.equal(rows[0].application_name, "dblab-admin");
    await helper.end();
  } finally {
    await external.stop();
  }
});

test("PGPASSFILE supplies the password when the URI has none", async (t) => {
  if (!tlsServer) return t.skip("no openssl to make certificates");
  const server = tlsServer;
  const passfile = path.join(dir, "pgpass");
  fs.writeFileSync(passfile, `localhost:${server.connection.port}:*:postgres:${server.connection.password}\n`, {
    mode: 0o600,
  });
  const uri = `postgresql://postgres@localhost:${server.connection.port}/postgres?sslmode=verify-full&sslrootcert=${ca}`;
  const external = await withEnv({ PGPASSFILE: passfile, PGPASSWORD: undefined }, () =>
    new ExternalTarget(uri, { onPreflight: () => undefined }).start(SPEC_01),
  );
  try {
    const c = await connect(external.connection);
    assert.equal((await c.query<{ n: number }>("SELECT 1 AS n")).rows[0].n, 1);
    await c.end();
  } finally {
    await external.stop();
  }
  await withEnv({ PGPASSFILE: path.join(dir, "absent"), PGPASSWORD: undefined }, () =>
    assert.rejects(new ExternalTarget(uri, { onPreflight: () => undefined }).start(SPEC_01), /password/),
  );
});

test("a role without CREATEDB is refused by the pre-flight, naming the privilege, and nothing is created", async (t) => {
  if (!tlsServer) return t.skip("no openssl to make certificates");
  const server = tlsServer;
  await cleanLabDatabases(t, server);
  const admin = new Client(server.connection);
  await admin.connect();
  await admin.query("DROP ROLE IF EXISTS lab_reader");
  await admin.query("CREATE ROLE lab_reader LOGIN PASSWORD 'reader-secret-9'");
  try {
    const uri = `postgresql://lab_reader:reader-secret-9@localhost:${server.connection.port}/postgres?sslmode=verify-full&sslrootcert=${ca}`;
    let report: PreflightReport | undefined;
    await assert.rejects(
      new ExternalTarget(uri, { onPreflight: (r) => (report = r) }).start(SPEC_01),
      /role "lab_reader" has no CREATEDB privilege: the lab works only inside a database it creates and drops/,
    );
    assert.ok(report);
    console.log(`pre-flight, role without CREATEDB:\n${report.text}`);
    assert.equal(report.createdb, false);
    assert.match(report.text, /superuser no · CREATEDB no · CHECKPOINT no/);
    assert.match(report.text, /pg_walinspect .*NOT measured \(CREATE EXTENSION pg_walinspect needs a superuser here\)/);
    assert.ok(!report.text.includes("reader-secret-9"));
    assert.deepEqual(await labDatabases(server), []);
    // 05 gets the same pre-flight, naming itself and its two sessions.
    let report05: PreflightReport | undefined;
    await assert.rejects(
      new ExternalTarget(uri, { onPreflight: (r) => (report05 = r) }).start(phaseOneSpec()),
      /cannot run 05 round trips: role "lab_reader" has no CREATEDB privilege[\s\S]*may not run CHECKPOINT/,
    );
    assert.match(report05?.text ?? "", /Pre-flight for 05 round trips: PostgreSQL 17\.6/);
    assert.match(report05?.text ?? "", /this run opens up to \d+/);
    assert.deepEqual(await labDatabases(server), []);
  } finally {
    await admin.query("DROP ROLE IF EXISTS lab_reader");
    await admin.end();
  }
});

/** A non-loopback address of this machine: the host end of a veth pair into a namespace made here. */
function makeNamespace(): { address: string; remove: () => void } | string {
  if (process.getuid?.() !== 0) return "needs root for a network namespace";
  const ns = process.env.DBLAB_REMOTE_NS ?? `dbltls${process.pid % 10000}`;
  const prefix = process.env.DBLAB_REMOTE_NET ?? "10.231.53";
  const ip = (...args: string[]) => spawnSync("ip", args, { encoding: "utf8" });
  const made = ip("netns", "add", ns);
  if (made.status !== 0) return `ip netns add failed: ${made.stderr.trim()}`;
  const remove = () => {
    ip("link", "del", `${ns}-h`);
    ip("netns", "del", ns);
  };
  for (const args of [
    ["link", "add", `${ns}-h`, "type", "veth", "peer", "name", `${ns}-n`],
    ["link", "set", `${ns}-n`, "netns", ns],
    ["addr", "add", `${prefix}.1/24`, "dev", `${ns}-h`],
    ["link", "set", `${ns}-h`, "up"],
    ["-n", ns, "addr", "add", `${prefix}.2/24`, "dev", `${ns}-n`],
    ["-n", ns, "link", "set", `${ns}-n`, "up"],
  ]) {
    const r = ip(...args);
    if (r.status !== 0) {
      remove();
      return `ip ${args.join(" ")} failed: ${r.stderr.trim()}`;
    }
  }
  return { address: `${prefix}.1`, remove };
}

test("plaintext to a non-loopback address is refused before connecting, with the sentence that opts out", async (t) => {
  const made = makeNamespace();
  if (typeof made === "string") return t.skip(made);
  // A listener on that address counts what reaches it: a refusal "before connecting" must send nothing.
  let connections = 0;
  let bytes = 0;
  const listener = net.createServer((socket) => {
    connections++;
    // Answers an SSLRequest as a server with ssl=off does.
    socket.on("data", (d) => {
      bytes += d.length;
      socket.end("N");
    });
    socket.on("error", () => undefined);
  });
  try {
    await new Promise<void>((resolve) => listener.listen(0, made.address, resolve));
    const port = (listener.address() as net.AddressInfo).port;
    for (const uri of [
      `postgresql://lab:plain-secret@${made.address}:${port}/postgres`,
      `host=${made.address} port=${port} user=lab password=plain-secret`,
    ]) {
      await assert.rejects(
        new ExternalTarget(uri).start(SPEC_01),
        (e: Error) =>
          /is another host and the connection names no sslmode/.test(e.message) &&
          /write sslmode=disable in the URI itself/.test(e.message) &&
          !e.message.includes("plain-secret"),
      );
    }
    await withEnv({ PGSSLMODE: "disable" }, () =>
      assert.rejects(
        new ExternalTarget(`postgresql://lab:plain-secret@${made.address}:${port}/postgres`).start(SPEC_01),
        /sslmode=disable comes from the environment/,
      ),
    );
    assert.equal(connections, 0, "nothing was sent to the address");
    assert.equal(bytes, 0, "no byte reached the address");
    // prefer asks for TLS first: the listener sees the 8-byte SSLRequest and nothing more, then a refusal.
    await assert.rejects(
      new ExternalTarget(`postgresql://lab:plain-secret@${made.address}:${port}/postgres?sslmode=prefer`).start(
        SPEC_01,
      ),
      /Cannot reach|does not offer TLS/,
    );
  } finally {
    await new Promise((resolve) => listener.close(resolve));
    made.remove();
  }
});

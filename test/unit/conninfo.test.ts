/**
 * The connection-string reader against libpq's documented rules
 * (https://www.postgresql.org/docs/current/libpq-connect.html): URI and key=value forms,
 * precedence (connection string > service file > environment > defaults), percent-decoding,
 * quoting, the password file, and refusals of what the lab cannot honour.
 */
import { test } from "node:test";
import assert from "node:assert/strict";
import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import {
  isLoopbackHost,
  parseConnectionString,
  resolvePostgresSettings,
  type PostgresSettings,
} from "../../lib/targets/external/conninfo";
import { checkPlaintextPolicy } from "../../lib/targets/external/external-target";
import { libpqEnvironment, tlsPlan } from "../../lib/targets/external/tls-options";
import { redactUri } from "../../lib/targets/uri";

/** An empty home, so no ~/.pgpass or ~/.postgresql of the machine's takes part. */
function home(): string {
  return fs.mkdtempSync(path.join(os.tmpdir(), "dblab-conninfo-"));
}

const resolve = (text: string, env: NodeJS.ProcessEnv = {}): Promise<PostgresSettings> =>
  resolvePostgresSettings(text, { HOME: home(), ...env });

test("URI: user, password, host, port, database and query parameters, percent-decoded", async () => {
  const s = await resolve(
    "postgresql://al%40ice:p%2Bw%3Ad@db.example:6543/my%2Fdb?sslmode=verify-full&application_name=lab+run%20one",
  );
  assert.equal(s.user, "al@ice");
  assert.equal(s.password, "p+w:d");
  assert.equal(s.host, "db.example");
  assert.equal(s.port, 6543);
  assert.equal(s.database, "my/db");
  assert.equal(s.sslMode, "verify-full");
  assert.equal(s.sslModeSource, "connection string");
  // libpq decodes %XX only: "+" is a plus sign, not a space as in a form.
  assert.equal(s.applicationName, "lab+run one");
});

test("URI: IPv6 brackets, a socket directory as %2F host, defaults for port, user and database", async () => {
  const v6 = await resolve("postgresql://[::1]/x");
  assert.equal(v6.host, "::1");
  assert.equal(v6.port, 5432);
  const socket = await resolve("postgresql://%2Fvar%2Frun%2Fpostgresql/x");
  assert.equal(socket.host, "/var/run/postgresql");
  const bare = await resolve("postgresql://h");
  assert.equal(bare.user, os.userInfo().username, "user defaults to the OS user");
  assert.equal(bare.database, bare.user, "dbname defaults to the user");
  assert.equal(bare.sslMode, "prefer");
  assert.equal(bare.sslModeSource, "default");
});

test("URI: host and port as query parameters, ssl=true as sslmode=require", async () => {
  const s = await resolve("postgresql:///db?host=10.0.0.9&port=7000&ssl=true");
  assert.equal(s.host, "10.0.0.9");
  assert.equal(s.port, 7000);
  assert.equal(s.sslMode, "require");
});

test("key=value: spaces around =, single quotes, backslash escapes, empty value", () => {
  const m = parseConnectionString(
    String.raw`host = db.example port=5433 dbname='my db' password='it\'s \\ ok' application_name=a\ b options=''`,
  );
  assert.equal(m.get("host"), "db.example");
  assert.equal(m.get("port"), "5433");
  assert.equal(m.get("dbname"), "my db");
  assert.equal(m.get("password"), String.raw`it's \ ok`);
  assert.equal(m.get("application_name"), "a b");
  assert.equal(m.get("options"), "");
});

test("key=value: malformed input is refused with the reason", () => {
  assert.throws(() => parseConnectionString("host=h dbname"), /missing "=" after "dbname"/);
  assert.throws(() => parseConnectionString("host=h password='open"), /unterminated quoted value for "password"/);
  assert.throws(() => parseConnectionString("host=h colour=blue"), /invalid connection option "colour"/);
  assert.throws(() => parseConnectionString("postgresql://h/db?colour=blue"), /invalid URI query parameter "colour"/);
});

test("precedence: the connection string over the environment, the environment over the defaults", async () => {
  const env = {
    PGHOST: "env-host",
    PGPORT: "7777",
    PGUSER: "env-user",
    PGPASSWORD: "env-pass",
    PGDATABASE: "env-db",
    PGSSLMODE: "require",
    PGAPPNAME: "env-app",
    PGOPTIONS: "-c work_mem=64MB",
    PGCONNECT_TIMEOUT: "1",
  };
  const uri = await resolve(
    "postgresql://uri-user:uri-pass@uri-host:1111/uri-db?sslmode=verify-full&sslrootcert=system",
    env,
  );
  assert.deepEqual(
    [uri.host, uri.port, uri.user, uri.password, uri.database, uri.sslMode],
    ["uri-host", 1111, "uri-user", "uri-pass", "uri-db", "verify-full"],
  );
  assert.equal(uri.applicationName, "env-app", "what the URI leaves unset comes from the environment");
  assert.equal(uri.options, "-c work_mem=64MB");
  assert.equal(uri.connectTimeoutSeconds, 2, "libpq raises a connect_timeout of 1 to 2 s");
  const envOnly = await resolve("postgresql://", env);
  assert.deepEqual(
    [
      envOnly.host,
      envOnly.port,
      envOnly.user,
      envOnly.password,
      envOnly.database,
      envOnly.sslMode,
      envOnly.sslModeSource,
    ],
    ["env-host", 7777, "env-user", "env-pass", "env-db", "require", "environment"],
  );
  assert.equal(envOnly.passwordSource, "environment");
  const keywords = await resolve("dbname=kv-db", env);
  assert.equal(keywords.host, "env-host");
  assert.equal(keywords.database, "kv-db");
});

test("service file: PGSERVICE's section fills what the string leaves, above the environment", async () => {
  const dir = home();
  const file = path.join(dir, "services.conf");
  fs.writeFileSync(
    file,
    "# lab servers\n[other]\nhost=wrong\n\n[staging]\nhost=staging.example\nport=6000\nsslmode=verify-full\nsslrootcert=system\n",
  );
  const s = await resolve("dbname=x", { PGSERVICE: "staging", PGSERVICEFILE: file, PGHOST: "env-host", PGPORT: "1" });
  assert.equal(s.host, "staging.example");
  assert.equal(s.port, 6000);
  assert.equal(s.sslMode, "verify-full");
  assert.equal(s.sslModeSource, "service file");
  const named = await resolve("service=staging host=given", { PGSERVICEFILE: file });
  assert.equal(named.host, "given", "the connection string wins over its service");
  await assert.rejects(resolve("service=nope", { PGSERVICEFILE: file }), /definition of service "nope" not found/);
});

test("password file: PGPASSFILE supplies a matching entry, with wildcards and escapes, never over a given password", async () => {
  const dir = home();
  const file = path.join(dir, "pgpass");
  fs.writeFileSync(file, "other:5432:*:lab:wrong\ndb.example:*:*:lab:pa\\:ss\n", { mode: 0o600 });
  const s = await resolve("postgresql://lab@db.example:6000/x", { PGPASSFILE: file });
  assert.equal(s.password, "pa:ss");
  assert.equal(s.passwordSource, "password file");
  const given = await resolve("postgresql://lab:mine@db.example/x", { PGPASSFILE: file });
  assert.equal(given.password, "mine");
  const kv = await resolve(`host=db.example user=lab passfile=${file}`);
  assert.equal(kv.password, "pa:ss", "passfile= in the string names the file");
  const none = await resolve("postgresql://nobody@db.example/x", { PGPASSFILE: file });
  assert.equal(none.password, undefined);
  // libpq ignores a password file that others can read.
  fs.chmodSync(file, 0o644);
  const open = await resolve("postgresql://lab@db.example/x", { PGPASSFILE: file });
  assert.equal(open.password, undefined);
});

test("several hosts are refused: the lab measures one server", async () => {
  assert.throws(() => parseConnectionString("postgresql://a:5432,b:5433/db"), /names 2 hosts \(a, b\)/);
  await assert.rejects(resolve("host=a,b dbname=x"), /several hosts/);
});

test("settings the lab cannot honour are refused by name, not dropped", () => {
  for (const keyword of ["hostaddr", "gssencmode", "target_session_attrs", "sslcrl"]) {
    assert.throws(() => parseConnectionString(`host=h ${keyword}=x`), new RegExp(`"${keyword}" is not supported`));
  }
});

test("bad values: sslmode, port, missing files, sslrootcert=system with a weak mode", async () => {
  await assert.rejects(resolve("postgresql://h/x?sslmode=maybe"), /invalid sslmode "maybe"/);
  await assert.rejects(resolve("postgresql://h:99999/x"), /host part "h:99999" is malformed/);
  await assert.rejects(resolve("host=h port=99999"), /invalid port "99999"/);
  await assert.rejects(
    resolve("postgresql://h/x?sslrootcert=/nonexistent/ca.pem"),
    /root certificate file .* does not exist/,
  );
  await assert.rejects(resolve("postgresql://h/x?sslmode=require&sslrootcert=system"), /weak sslmode "require"/);
  await assert.rejects(resolve("postgresql:///x"), /names no host/);
});

test("TLS: sslmode maps to node-postgres options as libpq's modes behave", async () => {
  const dir = home();
  const ca = path.join(dir, "ca.pem");
  fs.writeFileSync(ca, "-----BEGIN CERTIFICATE-----\nnot checked here\n-----END CERTIFICATE-----\n");
  const plan = async (query: string) => tlsPlan(await resolve(`postgresql://db.example/x?${query}`));
  assert.equal((await plan("sslmode=disable")).ssl, false);
  const full = await plan(`sslmode=verify-full&sslrootcert=${ca}`);
  assert.equal(full.certificate, "chain and host name verified");
  assert.ok(full.ssl && full.ssl.rejectUnauthorized === true && full.ssl.checkServerIdentity === undefined);
  const chain = await plan(`sslmode=verify-ca&sslrootcert=${ca}`);
  assert.equal(chain.certificate, "chain verified, host name not checked");
  assert.ok(chain.ssl && chain.ssl.rejectUnauthorized === true && typeof chain.ssl.checkServerIdentity === "function");
  const encrypted = await plan("sslmode=require");
  assert.equal(encrypted.certificate, "not verified");
  assert.ok(encrypted.ssl && encrypted.ssl.rejectUnauthorized === false);
  // libpq: require with a root certificate present verifies the chain, as verify-ca.
  const requireWithCa = await plan(`sslmode=require&sslrootcert=${ca}`);
  assert.equal(requireWithCa.certificate, "chain verified, host name not checked");
  await assert.rejects(plan("sslmode=verify-full"), /needs the certificate of the CA/);
  const env = libpqEnvironment(
    await resolve(`postgresql://u:secret@db.example/x?sslmode=verify-ca&sslrootcert=${ca}&options=-c%20x%3D1`),
  );
  assert.deepEqual(env, { PGSSLMODE: "verify-ca", PGSSLROOTCERT: ca, PGOPTIONS: "-c x=1" });
  assert.ok(!JSON.stringify(env).includes("secret"), "no password in a child's libpq environment");
});

test("plaintext to another host is refused unless the connection string says sslmode=disable", async () => {
  const refused = /sslmode=disable in the URI itself/;
  assert.throws(() => checkPlaintextPolicy({ ...base(), host: "10.1.2.3", sslModeSource: "default" }), refused);
  await assert.doesNotReject(async () =>
    checkPlaintextPolicy(await resolve("postgresql://10.1.2.3/x?sslmode=disable")),
  );
  await assert.rejects(async () => checkPlaintextPolicy(await resolve("postgresql://10.1.2.3/x")), refused);
  await assert.rejects(
    async () => checkPlaintextPolicy(await resolve("postgresql://10.1.2.3/x", { PGSSLMODE: "disable" })),
    /comes from the environment/,
  );
  // prefer and require go on to the connection, where TLS must then be in use.
  await assert.doesNotReject(async () => checkPlaintextPolicy(await resolve("postgresql://10.1.2.3/x?sslmode=prefer")));
  await assert.doesNotReject(async () => checkPlaintextPolicy(await resolve("postgresql://127.0.0.1/x")));
  function base(): PostgresSettings {
    return {
      host: "127.0.0.1",
      port: 5432,
      user: "u",
      password: undefined,
      passwordSource: "none",
      database: "d",
      sslMode: "prefer",
      sslModeSource: "default",
      sslRootCert: undefined,
      sslCert: undefined,
      sslKey: undefined,
      sslMinProtocolVersion: undefined,
      sslMaxProtocolVersion: undefined,
      applicationName: undefined,
      connectTimeoutSeconds: undefined,
      options: undefined,
      clientEncoding: undefined,
      sslNegotiation: "postgres",
      channelBinding: undefined,
    };
  }
});

test("sslnegotiation and channel_binding: what node-postgres 8.23 supports passes through, the rest is refused", async () => {
  const direct = await resolve(
    "postgresql://db.example/x?sslmode=require&sslnegotiation=direct&channel_binding=prefer",
  );
  assert.equal(direct.sslNegotiation, "direct");
  assert.equal(direct.channelBinding, "prefer");
  const env = libpqEnvironment(direct);
  assert.equal(env.PGSSLNEGOTIATION, "direct");
  assert.equal(env.PGCHANNELBINDING, "prefer");
  // From the environment too, as libpq reads them.
  const fromEnv = await resolve("host=db.example sslmode=verify-full sslrootcert=system", {
    PGSSLNEGOTIATION: "direct",
    PGCHANNELBINDING: "disable",
  });
  assert.deepEqual([fromEnv.sslNegotiation, fromEnv.channelBinding], ["direct", "disable"]);
  const plain = await resolve("postgresql://db.example/x");
  assert.deepEqual([plain.sslNegotiation, plain.channelBinding], ["postgres", undefined]);
  assert.equal(libpqEnvironment(plain).PGSSLNEGOTIATION, undefined);

  await assert.rejects(
    resolve("postgresql://db.example/x?sslnegotiation=direct"),
    /weak sslmode "prefer" may not be used with sslnegotiation=direct/,
  );
  await assert.rejects(
    resolve("postgresql://db.example/x?sslmode=require&sslnegotiation=tls"),
    /invalid sslnegotiation "tls" \(postgres or direct\)/,
  );
  await assert.rejects(
    resolve("postgresql://db.example/x?sslmode=require&channel_binding=require"),
    /channel_binding=require cannot be honoured: node-postgres 8\.23 .*channel_binding=prefer/,
  );
  await assert.rejects(resolve("host=db.example channel_binding=maybe"), /invalid channel_binding "maybe"/);
});

test("the client options carry them: direct TLS only with TLS, channel binding only when preferred", async () => {
  const { postgresClientConfig } = await import("../../lib/targets/postgres-client");
  const c = { host: "h", port: 5432, user: "u", password: "p", database: "d" };
  const direct = postgresClientConfig({
    ...c,
    ssl: { rejectUnauthorized: true },
    sslNegotiation: "direct",
    channelBinding: true,
  });
  assert.equal(direct.sslnegotiation, "direct");
  assert.equal(direct.enableChannelBinding, true);
  const none = postgresClientConfig({ ...c, ssl: false, sslNegotiation: "direct" });
  assert.equal(none.sslnegotiation, undefined);
  assert.equal(none.enableChannelBinding, undefined);
});

test("loopback: sockets, localhost, 127/8 and ::1 only", () => {
  for (const h of ["/tmp", "localhost", "127.0.0.1", "127.9.9.9", "::1"]) assert.ok(isLoopbackHost(h), h);
  for (const h of ["10.231.53.2", "db.example", "::2", "128.0.0.1", "localhost.example"])
    assert.ok(!isLoopbackHost(h), h);
});

test("redaction: the key=value form's password too", () => {
  assert.equal(redactUri("host=h password=s3cret user=u"), "host=h password=*** user=u");
  assert.equal(redactUri("host=h password = 'a b\\' c' user=u"), "host=h password = *** user=u");
  assert.equal(redactUri("postgresql://u:s3cret@h/db?sslmode=require"), "postgresql://u:***@h/db?sslmode=require");
  assert.equal(
    redactUri("mongodb+srv://u:p%40x@c.example.net/?tls=true&tlsCertificateKeyFilePassword=k3y&tlsCAFile=/ca.pem"),
    "mongodb+srv://u:***@c.example.net/?tls=true&tlsCertificateKeyFilePassword=***&tlsCAFile=/ca.pem",
  );
  assert.equal(
    redactUri("mongodb://h/?authMechanism=MONGODB-AWS&authMechanismProperties=AWS_SESSION_TOKEN:t0ken"),
    "mongodb://h/?authMechanism=MONGODB-AWS&authMechanismProperties=***",
  );
});

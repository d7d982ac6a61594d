/**
 * A connection the server ends while the lab's client is idle (a dropped link, a killed backend) is
 * an 'error' event on the node-postgres client; without a listener it is an uncaught exception,
 * which in a kernel is one step from a dead kernel. Here the backends of 04's activity sampler and
 * REINDEX session are terminated between their queries: the process sees no uncaught exception,
 * the sampler's stop() reports the loss, and the REINDEX run records it as its error.
 */
import { test } from "node:test";
import assert from "node:assert/strict";
import { EmbeddedPostgresTarget } from "../../lib/targets/embedded/embedded-postgres";
import { withClient } from "../../lib/engines/postgres/connect";
import { ActivitySampler } from "../../lib/workloads/reindex-under-load/activity-sampler";
import { ReindexSession } from "../../lib/workloads/reindex-under-load/reindex-session";

test("04's sampler and REINDEX session survive their backends being terminated: no uncaught exception, the loss reported", async () => {
  const uncaught: unknown[] = [];
  const onUncaught = (error: unknown) => uncaught.push(error);
  process.on("uncaughtException", onUncaught);
  const server = await new EmbeddedPostgresTarget().start({ engine: "postgresql", name: "client-errors" });
  try {
    const reindex = await ReindexSession.open(server.connection);
    // A long interval: the sampler's connection is idle when its backend is terminated.
    const sampler = await ActivitySampler.start(server.connection, 60_000);
    await new Promise((r) => setTimeout(r, 200));
    await withClient(server.connection, (admin) =>
      admin.query(
        "SELECT pg_terminate_backend(pid) FROM pg_stat_activity WHERE application_name IN ('dblab-sampler', 'dblab-reindex')",
      ),
    );
    // The 'error' events arrive as the server closes the sockets.
    await new Promise((r) => setTimeout(r, 500));
    assert.deepEqual(uncaught, [], "no uncaught exception from the terminated clients");
    await assert.rejects(sampler.stop(), /terminat/i, "the sampler reports the lost connection");
    const timing = await reindex.run(["pg_class_oid_index"], false);
    assert.match(String(timing.error), /REINDEX INDEX pg_class_oid_index: /, "the REINDEX run records the loss");
    await reindex.close();
  } finally {
    process.off("uncaughtException", onUncaught);
    await server.stop();
  }
});

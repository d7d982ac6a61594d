/**
 * MongoDB's driver is loaded only by a run that uses a MongoDB server: every module a PostgreSQL-only
 * run loads (the lab, the watchdog with every engine's liveness probe, the readiness probes, the
 * targets, the session) leaves it out of the process, and a MongoDB probe loads it.
 */
import { test } from "node:test";
import assert from "node:assert/strict";

const mongoModules = (): string[] =>
  Object.keys(require.cache).filter((k) => /[\\/]node_modules[\\/]mongodb[\\/]/.test(k));

test("a PostgreSQL-only run's modules do not load the MongoDB driver; a MongoDB probe does", async () => {
  assert.deepEqual(mongoModules(), [], "nothing loaded the driver before the test");
  await import("../../lib/index");
  await import("../../lib/workloads/watchdog");
  await import("../../lib/engines/liveness");
  await import("../../lib/targets/readiness");
  await import("../../lib/targets/select");
  await import("../../lib/targets/external/external-target");
  await import("../../lib/experiments/session");
  assert.deepEqual(mongoModules(), [], "a PostgreSQL-only run's modules loaded the MongoDB driver");
  const { mongoProbe } = await import("../../lib/targets/readiness");
  // Port 1 on loopback refuses at once: the probe fails, after loading the driver.
  await assert.rejects(
    mongoProbe("mongodb://127.0.0.1:1/?directConnection=true", "127.0.0.1:1", { attemptTimeoutMs: 300 }).check(),
  );
  assert.ok(mongoModules().length > 0, "the MongoDB probe loads the driver");
});

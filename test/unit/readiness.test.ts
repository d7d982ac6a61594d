/**
 * The one readiness loop: it returns the first answer, gives up early when told to, and its
 * timeout error names the server and the last failure.
 */
import { test } from "node:test";
import assert from "node:assert/strict";
import { waitUntilReady, type ReadinessProbe } from "../../lib/targets/readiness";

/** A probe that fails `failures` times, then answers with `version`. */
function flakyProbe(failures: number, version = "1.2.3"): ReadinessProbe & { attempts: number } {
  const probe = {
    attempts: 0,
    describe: () => "TestDB at 127.0.0.1:1",
    async check(): Promise<string> {
      probe.attempts++;
      if (probe.attempts <= failures) throw new Error(`refused (attempt ${probe.attempts})`);
      return version;
    },
  };
  return probe;
}

test("waitUntilReady retries until the probe answers and returns its version", async () => {
  const probe = flakyProbe(3);
  assert.equal(await waitUntilReady(probe, { timeoutMs: 60_000, intervalMs: 1 }), "1.2.3");
  assert.equal(probe.attempts, 4);
});

test("waitUntilReady gives up in time, naming the server and the last error", async () => {
  const probe = flakyProbe(Number.POSITIVE_INFINITY);
  await assert.rejects(waitUntilReady(probe, { timeoutMs: 50, intervalMs: 5 }), (error: Error) => {
    assert.match(
      error.message,
      /^TestDB at 127\.0\.0\.1:1 did not become ready in time: Error: refused \(attempt \d+\)$/,
    );
    assert.ok(error.message.includes(`attempt ${probe.attempts})`), "the last attempt's error, not an earlier one");
    return true;
  });
});

test("waitUntilReady stops at once when abortIf throws, with abortIf's error", async () => {
  const probe = flakyProbe(Number.POSITIVE_INFINITY);
  let calls = 0;
  const abortIf = (): void => {
    if (++calls > 2) throw new Error("the server process exited with code 1");
  };
  await assert.rejects(waitUntilReady(probe, { timeoutMs: 60_000, intervalMs: 1, abortIf }), /exited with code 1/);
  assert.equal(probe.attempts, 2, "no attempt after abortIf threw");
});

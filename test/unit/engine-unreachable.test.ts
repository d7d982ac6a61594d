/**
 * An engine that did not answer is remembered for a minute (docker-client.ts recentlyUnreachable):
 * within it a removal gets a short bound and the ping that words an error is not sent again, where
 * the stop after a stall and the session's stop at the run's end would each wait 30 s for a vanished
 * host. An engine that answered with an error was reached.
 */
import { test } from "node:test";
import assert from "node:assert/strict";
import { noteIfUnreachable, recentlyUnreachable } from "../../lib/targets/docker/docker-client";

test("not reached: remembered for a minute, with the reason and ETIMEDOUT; then asked again", (t) => {
  let now = 1_000_000;
  t.mock.method(Date, "now", () => now);
  const where = "tcp://10.9.8.7:2376";
  assert.equal(recentlyUnreachable(where), undefined);
  noteIfUnreachable(where, Object.assign(new Error("connect ETIMEDOUT 10.9.8.7:2376"), { code: "ETIMEDOUT" }));
  const known = recentlyUnreachable(where);
  assert.ok(known);
  assert.equal((known as { code?: string }).code, "ETIMEDOUT");
  assert.match(known.message, /tcp:\/\/10\.9\.8\.7:2376 did not answer a moment ago: .*ETIMEDOUT/);
  assert.equal(recentlyUnreachable("unix:///var/run/docker.sock"), undefined, "another engine is not affected");
  now += 59_999;
  assert.ok(recentlyUnreachable(where), "59.999 s later: still");
  now += 1;
  assert.equal(recentlyUnreachable(where), undefined, "60 s later: asked again");
});

test("an engine that answered with an HTTP status (404, 409, 500) was reached: nothing remembered", () => {
  const where = "ssh://root@10.9.8.6";
  for (const statusCode of [404, 409, 500])
    noteIfUnreachable(where, Object.assign(new Error(`HTTP ${statusCode}`), { statusCode }));
  assert.equal(recentlyUnreachable(where), undefined);
});

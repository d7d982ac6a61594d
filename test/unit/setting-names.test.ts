/**
 * Server-setting names are checked in one place (lib/targets/settings.ts) for every target, and a
 * bad name is refused before anything starts.
 */
import { test } from "node:test";
import assert from "node:assert/strict";
import { PROFILES } from "../../lib/targets/docker/engine-profiles";
import { DockerTarget } from "../../lib/targets/docker/docker-target";
import { endpointFromHost } from "../../lib/targets/docker/endpoint";
import { settingsToArgs } from "../../lib/targets/settings";

const BAD = "shared_buffers=1GB -c fsync";
const MESSAGE = /"shared_buffers=1GB -c fsync" is not a valid server setting name/;

test("the same check refuses a bad setting name for embedded PostgreSQL and both Docker engines", () => {
  assert.throws(() => settingsToArgs({ [BAD]: 1 }), MESSAGE);
  assert.throws(() => PROFILES.postgresql.cmd({ [BAD]: 1 }), MESSAGE);
  assert.throws(() => PROFILES.mongodb.cmd({ [BAD]: 1 }), MESSAGE);
});

test("good names give the same PostgreSQL arguments in Docker as embedded", () => {
  const settings = { shared_buffers: "256MB", synchronous_commit: false, "auto_explain.log_min_duration": 0 };
  assert.deepEqual(PROFILES.postgresql.cmd(settings), ["postgres", ...settingsToArgs(settings)]);
  assert.deepEqual(settingsToArgs(settings), [
    "-c",
    "shared_buffers=256MB",
    "-c",
    "synchronous_commit=off",
    "-c",
    "auto_explain.log_min_duration=0",
  ]);
});

test("DockerTarget refuses a bad setting name before it looks for a daemon or an image", async () => {
  // An endpoint nothing listens on: reaching Docker would fail with a different message.
  const target = new DockerTarget({ endpoint: endpointFromHost("unix:///nonexistent/docker.sock", "test") });
  await assert.rejects(target.start({ engine: "postgresql", name: "bad-setting", settings: { [BAD]: 1 } }), MESSAGE);
});

import { test } from "node:test";
import assert from "node:assert/strict";
import type Docker from "dockerode";
import { MONGO_IMAGE, pullPolicyFromEnv, resolveImage } from "../../lib/targets/docker/images";

test("DBLAB_PULL: never by default, missing only when asked, anything else refused with the choices", () => {
  assert.equal(pullPolicyFromEnv({}), "never");
  assert.equal(pullPolicyFromEnv({ DBLAB_PULL: "" }), "never");
  assert.equal(pullPolicyFromEnv({ DBLAB_PULL: "never" }), "never");
  assert.equal(pullPolicyFromEnv({ DBLAB_PULL: "missing" }), "missing");
  assert.throws(
    () => pullPolicyFromEnv({ DBLAB_PULL: "always" }),
    /DBLAB_PULL must be one of never, missing, got "always"/,
  );
});

/** An engine without any image, which records whether it was asked to pull. */
function emptyEngine(): { docker: Docker; pulls: string[] } {
  const pulls: string[] = [];
  const notFound = Object.assign(new Error("no such image"), { statusCode: 404 });
  const fake = {
    getImage: () => ({ inspect: () => Promise.reject(notFound) }),
    pull: (image: string) => {
      pulls.push(image);
      return Promise.reject(new Error("registry unreachable"));
    },
  };
  return { docker: fake as unknown as Docker, pulls };
}

test("pull never: the engine is not asked to pull, and MongoDB's error says why and what to do", async () => {
  const { docker, pulls } = emptyEngine();
  await assert.rejects(
    resolveImage("mongodb", undefined, { docker, pull: "never" }),
    (e: Error) =>
      e.message.includes(`docker pull ${MONGO_IMAGE}`) &&
      /DBLAB_PULL=never, the default/.test(e.message) &&
      /DBLAB_PULL=missing/.test(e.message) &&
      /DBLAB_MONGODB_URI/.test(e.message),
  );
  assert.deepEqual(pulls, []);
});

test("no policy given and no DBLAB_PULL: the engine is not asked to pull", async () => {
  const saved = process.env.DBLAB_PULL;
  delete process.env.DBLAB_PULL;
  try {
    const { docker, pulls } = emptyEngine();
    await assert.rejects(resolveImage("mongodb", undefined, { docker }), /docker pull mongo:/);
    assert.deepEqual(pulls, []);
  } finally {
    if (saved !== undefined) process.env.DBLAB_PULL = saved;
  }
});

test("pull missing: the engine is asked once, and the failure is in the error", async () => {
  const { docker, pulls } = emptyEngine();
  await assert.rejects(resolveImage("mongodb", undefined, { docker, pull: "missing" }), /registry unreachable/);
  assert.deepEqual(pulls, [MONGO_IMAGE]);
});

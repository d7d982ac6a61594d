/**
 * sampleFrom's source is opened with the external target's rules: plaintext to another host is
 * refused before any socket is opened (a URI with no sslmode, or sslmode=disable from PGSSLMODE
 * rather than the URI). Sockets are intercepted, so even a regression sends nothing anywhere.
 */
import { test } from "node:test";
import assert from "node:assert/strict";
import fs from "node:fs";
import net from "node:net";
import os from "node:os";
import path from "node:path";
import { PlaintextRefusedError } from "../../lib/targets/external/external-target";
import type { StartedServer } from "../../lib/targets/types";
import { sampleFromSource, SourceError } from "../../lib/experiments/your-indexes/workload/sample";
import { withEnv } from "../support/env";

test("sampleFrom: plaintext to a non-loopback host is refused before connecting, without the password", async (t) => {
  const attempts: unknown[] = [];
  // Restored when the test ends (t.mock).
  t.mock.method(net.Socket.prototype, "connect", function (this: net.Socket, ...args: unknown[]) {
    attempts.push(args[0]);
    process.nextTick(() => this.destroy(new Error("test: no connection may be made")));
    return this;
  });
  const home = fs.mkdtempSync(path.join(os.tmpdir(), "dblab-sample-"));
  const server = {} as StartedServer; // never reached: the refusal comes first
  try {
    await withEnv({ HOME: home, PGSSLMODE: undefined, PGSERVICE: undefined, PGPASSFILE: undefined }, async () => {
      await assert.rejects(
        sampleFromSource("postgresql://reader:s3cret@10.1.2.3:5432/shop", ["orders"], 10, server, "t"),
        (e: unknown) =>
          e instanceof SourceError &&
          e.cause instanceof PlaintextRefusedError &&
          /names no sslmode/.test(e.message) &&
          !e.message.includes("s3cret"),
      );
      await withEnv({ PGSSLMODE: "disable" }, () =>
        assert.rejects(
          sampleFromSource("postgresql://reader:s3cret@10.1.2.3:5432/shop", ["orders"], 10, server, "t"),
          (e: unknown) => e instanceof SourceError && e.cause instanceof PlaintextRefusedError,
        ),
      );
    });
  } finally {
    fs.rmSync(home, { recursive: true, force: true });
  }
  assert.deepEqual(attempts, [], "no socket was opened");
});

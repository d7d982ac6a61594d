// test-tier: fast — delay proxies and an echo server on OS-chosen loopback ports; kills only its own child
import { test } from "node:test";
import assert from "node:assert/strict";
import { spawn } from "node:child_process";
import net from "node:net";
import path from "node:path";
import { median } from "simple-statistics";
import { calibrateLink, medianRtt } from "../../lib/network/calibrate";
import { DelayProxy } from "../../lib/network/delay-proxy";
import { pingClient, startEchoServer } from "../../lib/network/tcp-echo";
import { isProcessAlive, ownRecords } from "../../lib/runtime/resource-registry";

test("the proxy adds at least the delay it is asked for, keeps bytes in order and is registered while it runs", async (t) => {
  const echo = await startEchoServer();
  const proxy = await DelayProxy.start({ name: "test", targetHost: "127.0.0.1", targetPort: echo.port });
  try {
    assert.ok(proxy.pid && isProcessAlive(proxy.pid));
    assert.ok(
      ownRecords().some((r) => r.resource.type === "process" && r.resource.pid === proxy.pid),
      "registered for the reaper",
    );
    const direct = await pingClient("127.0.0.1", echo.port);
    const via = await pingClient("127.0.0.1", proxy.port);
    const zero = await medianRtt(via.probe, 200);
    await proxy.setOneWayDelay(0.5);
    const delayed = await via.probe(200);
    // Each way held ≥ 0.5 ms, so no round trip can be shorter than 1.0 ms, whatever the load.
    const shortest = Math.min(...delayed);
    assert.ok(shortest >= 1.0, `asked 1.0 ms of round trip; the shortest took ${shortest.toFixed(3)} ms`);
    const stats = await proxy.stats();
    assert.ok(stats.delivered >= 400, `each ping and pong delayed (${stats.delivered})`);
    assert.ok(stats.lateP50Us >= 0, `never delivered early (${stats.lateP50Us} µs late in the median)`);
    t.diagnostic(
      `added ${(median(delayed) - zero).toFixed(3)} ms for 1.0 asked; delivery ${stats.lateP50Us} µs late (p50)`,
    );

    // 2 MB through the delayed link, echoed back intact and in order; then a half-close arrives.
    const payload = Buffer.alloc(2 * 1024 * 1024);
    for (let i = 0; i < payload.length; i++) payload[i] = (i * 31) & 0xff;
    const socket = net.connect({ host: "127.0.0.1", port: proxy.port });
    const received: Buffer[] = [];
    let bytes = 0;
    await new Promise<void>((resolve, reject) => {
      socket.on("error", reject);
      socket.on("data", (c: Buffer) => {
        received.push(c);
        bytes += c.length;
        if (bytes >= payload.length) resolve();
      });
      socket.write(payload);
    });
    assert.ok(Buffer.concat(received).equals(payload), "bytes arrive unchanged and in order");
    socket.destroy();

    // The calibration reaches a target above the direct round trip, and says so below it.
    const base = await medianRtt(direct.probe, 200);
    const cal = await calibrateLink(proxy, via.probe, { targetRttMs: base + 0.6, baselineRttMs: base, samples: 150 });
    assert.equal(cal.mode, "delayed");
    // The calibration adds delay (never removes it) and reports what it reached; how close is the bench's.
    assert.ok(cal.oneWayDelayMs > 0 && cal.achievedRttMs > base, `reached ${cal.achievedRttMs} for ${base + 0.6}`);
    t.diagnostic(`calibration reached ${cal.achievedRttMs.toFixed(3)} ms for ${(base + 0.6).toFixed(3)}`);
    const below = await calibrateLink(proxy, via.probe, { targetRttMs: base / 2, baselineRttMs: base, samples: 50 });
    assert.equal(below.mode, "direct");
    assert.match(below.note, /at or below this machine's direct round trip/);
    direct.close();
    via.close();
  } finally {
    await proxy.close();
    await echo.close();
  }
  assert.ok(
    !ownRecords().some((r) => r.resource.type === "process" && r.resource.pid === proxy.pid),
    "unregistered on close",
  );
  assert.ok(!isProcessAlive(proxy.pid), "the proxy process is gone");
});

test("a proxy does not outlive the process that started it (kill -9)", async () => {
  const script = `
    const { DelayProxy } = require(${JSON.stringify(path.resolve(__dirname, "..", "..", "lib", "network", "delay-proxy.js"))});
    DelayProxy.start({ name: "orphan-test", targetHost: "127.0.0.1", targetPort: 9 }).then((p) => console.log("PID " + p.pid));
    setInterval(() => {}, 1000);`;
  const parent = spawn(process.execPath, ["-e", script], { stdio: ["ignore", "pipe", "inherit"] });
  const pid = await new Promise<number>((resolve, reject) => {
    parent.stdout.on("data", (c: Buffer) => {
      const m = /PID (\d+)/.exec(c.toString());
      if (m) resolve(Number(m[1]));
    });
    parent.once("exit", () => reject(new Error("parent exited before the proxy started")));
  });
  assert.ok(isProcessAlive(pid));
  parent.kill("SIGKILL");
  const deadline = Date.now() + 5000;
  while (isProcessAlive(pid) && Date.now() < deadline) await new Promise((r) => setTimeout(r, 50));
  assert.ok(!isProcessAlive(pid), "the proxy exits when its parent's IPC channel closes");
});

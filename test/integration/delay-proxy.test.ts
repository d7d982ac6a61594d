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

test("the proxy adds the delay it is asked for, keeps bytes in order and is registered while it runs", async () => {
  const echo = await startEchoServer();
  const proxy = await DelayProxy.start({ name: "test", targetHost: "127.0.0.1", targetPort: echo.port });
  try {
    assert.ok(proxy.pid && isProcessAlive(proxy.pid));
    assert.ok(ownRecords().some((r) => r.resource.type === "process" && r.resource.pid === proxy.pid), "registered for the reaper");
    const direct = await pingClient("127.0.0.1", echo.port);
    const via = await pingClient("127.0.0.1", proxy.port);
    const zero = await medianRtt(via.probe, 200);
    await proxy.setOneWayDelay(0.5);
    const delayed = await medianRtt(via.probe, 200);
    const added = delayed - zero;
    // Loose bounds: a shared 2-core machine; bench/delay-proxy.ts measures precision.
    assert.ok(added > 0.8 && added < 1.6, `asked 1.0 ms of round trip, added ${added.toFixed(3)} ms`);
    const stats = await proxy.stats();
    assert.ok(stats.delivered >= 400, `each ping and pong delayed (${stats.delivered})`);
    assert.ok(stats.lateP50Us < 200, `delivered on time in the median (${stats.lateP50Us} µs late)`);

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
    assert.ok(Math.abs(cal.achievedRttMs - (base + 0.6)) < 0.15, `reached ${cal.achievedRttMs} for ${base + 0.6}`);
    const below = await calibrateLink(proxy, via.probe, { targetRttMs: base / 2, baselineRttMs: base, samples: 50 });
    assert.equal(below.mode, "direct");
    assert.match(below.note, /at or below this machine's direct round trip/);
    direct.close();
    via.close();
  } finally {
    await proxy.close();
    await echo.close();
  }
  assert.ok(!ownRecords().some((r) => r.resource.type === "process" && r.resource.pid === proxy.pid), "unregistered on close");
  assert.ok(!isProcessAlive(proxy.pid!), "the proxy process is gone");
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

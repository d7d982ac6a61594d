import { test } from "node:test";
import assert from "node:assert/strict";
import { spawn } from "node:child_process";
import net from "node:net";
import path from "node:path";
import { median } from "simple-statistics";
import { calibrateLink, medianRtt } from "../lib/network/calibrate";
import { DelayProxy } from "../lib/network/delay-proxy";
import { LatenessRecorder } from "../lib/network/lateness";
import { detectNetem, netemCommands, netemDelay } from "../lib/network/netem";
import { nowNs, PreciseSleeper } from "../lib/network/precise-sleep";
import { pingClient, startEchoServer } from "../lib/network/tcp-echo";
import { isProcessAlive, ownRecords } from "../lib/runtime/resource-registry";

// No assertion below bounds a time from above: on a shared machine any such bound is a bet on
// the load (issue 15: "asked 1.0 ms of round trip, added 1.744 ms" with a browser starting beside
// it). Precision is `npm run bench`'s job (bench/delay-proxy.ts: delivery lateness p50/p99, the
// closed loop's error); these tests check what must hold under any load, and report the figures.
test("the precise sleeper never wakes early", (t) => {
  const sleeper = new PreciseSleeper();
  sleeper.calibrate(20);
  const late: number[] = [];
  for (let i = 0; i < 200; i++) {
    const due = nowNs() + BigInt(50_000 + (i % 5) * 100_000);
    sleeper.sleepUntil(due);
    late.push(Number(nowNs() - due) / 1000);
  }
  assert.ok(late.every((us) => us >= 0), "sleepUntil returned before its deadline");
  t.diagnostic(`median lateness ${median(late).toFixed(1)} µs (precision: npm run bench)`);
});

test("the lateness recorder summarises its most recent values", () => {
  const r = new LatenessRecorder(4);
  for (const v of [100, 1, 2, 3, 4]) r.record(v);
  const s = r.summary();
  assert.equal(s.count, 5);
  assert.equal(s.maxUs, 100);
  assert.equal(s.p50Us, 3, "percentiles cover the last 4 values");
});

test("netem: commands are built per link and detection says why not", () => {
  assert.equal(netemDelay(0.85), "850us");
  assert.equal(netemDelay(-1), "0us");
  const [cls, qdisc, toServer, fromServer] = netemCommands.link(1, "127.0.0.2", 5432, 0.5);
  assert.deepEqual(cls.slice(0, 8), ["class", "add", "dev", "lo", "parent", "1:", "classid", "1:11"]);
  assert.ok(qdisc.includes("netem") && qdisc.includes("500us"));
  assert.ok(toServer.join(" ").includes("match ip dst 127.0.0.2/32 match ip dport 5432 0xffff flowid 1:11"));
  assert.ok(fromServer.join(" ").includes("match ip src 127.0.0.2/32 match ip sport 5432 0xffff flowid 1:11"));
  assert.deepEqual(netemCommands.delay(1, 1.2).slice(-4), ["delay", "1200us", "limit", "100000"]);
  const support = detectNetem();
  assert.equal(typeof support.available, "boolean");
  assert.ok(support.reason.length > 10, "a reason a reader can act on");
});

test("the proxy adds at least the delay it is asked for, keeps bytes in order and is registered while it runs", async (t) => {
  const echo = await startEchoServer();
  const proxy = await DelayProxy.start({ name: "test", targetHost: "127.0.0.1", targetPort: echo.port });
  try {
    assert.ok(proxy.pid && isProcessAlive(proxy.pid));
    assert.ok(ownRecords().some((r) => r.resource.type === "process" && r.resource.pid === proxy.pid), "registered for the reaper");
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
    t.diagnostic(`added ${(median(delayed) - zero).toFixed(3)} ms for 1.0 asked; delivery ${stats.lateP50Us} µs late (p50)`);

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
  assert.ok(!ownRecords().some((r) => r.resource.type === "process" && r.resource.pid === proxy.pid), "unregistered on close");
  assert.ok(!isProcessAlive(proxy.pid!), "the proxy process is gone");
});

test("a proxy does not outlive the process that started it (kill -9)", async () => {
  const script = `
    const { DelayProxy } = require(${JSON.stringify(path.resolve(__dirname, "..", "lib", "network", "delay-proxy.js"))});
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

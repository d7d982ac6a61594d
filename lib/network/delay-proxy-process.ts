/**
 * The delay proxy's own process, so the benchmark's event loop, GC and CPU bursts cannot delay a
 * delivery: it connects each accepted connection to the target and holds each direction's bytes for
 * its one-way delay; it exits when the lab that forked it goes away.
 */
import fs from "node:fs";
import net from "node:net";
import os from "node:os";
import { AlarmClock } from "./clock";
import { DelayScheduler } from "./delay-lines";
import { PreciseSleeper } from "./precise-sleep";
import type { Envelope, ProxyReply, ProxyRequest, ProxyStartRequest } from "./protocol";
import { ignored } from "../runtime/debug";
import { errorMessage } from "../runtime/error-message";

let scheduler: DelayScheduler | undefined;
let server: net.Server | undefined;
let clock: AlarmClock | undefined;
const sockets = new Set<net.Socket>();

function reply(id: number, body: ProxyReply): void {
  process.send?.({ id, body } satisfies Envelope<ProxyReply>);
}

function applyNiceness(wanted: number): number | null {
  if (wanted === 0) return null;
  try {
    os.setPriority(0, wanted);
    return os.getPriority(0);
  } catch {
    return null; // not permitted without CAP_SYS_NICE: the reply says none was applied
  }
}

/**
 * Asks for 1 µs timer slack (Linux rounds sleeps up by 50 µs by default); inherited by the clock thread. Returns ns in
 * effect, null off Linux.
 */
function reduceTimerSlack(): number | null {
  const file = `/proc/${process.pid}/timerslack_ns`;
  try {
    fs.writeFileSync(file, "1000");
  } catch {
    // The sleeper's calibration absorbs the larger lateness.
  }
  try {
    return Number(fs.readFileSync(file, "utf8").trim());
  } catch {
    return null; // not Linux: unknown
  }
}

function track(socket: net.Socket): void {
  socket.setNoDelay(true);
  sockets.add(socket);
  socket.on("close", () => sockets.delete(socket));
}

async function start(request: ProxyStartRequest): Promise<ProxyReply> {
  const niceness = applyNiceness(request.niceness);
  const timerSlackNs = reduceTimerSlack();
  const sleeper = new PreciseSleeper();
  const waitLateNs = sleeper.calibrate(100);
  const s = new DelayScheduler(sleeper, BigInt(Math.round(request.blockWindowUs * 1000)));
  s.setDelays(request.upMs, request.downMs);
  clock = new AlarmClock(() => s.flush());
  s.attachClock(clock);
  scheduler = s;
  server = net.createServer({ allowHalfOpen: true, noDelay: true }, (client) => {
    track(client);
    const upstream = net.connect({
      host: request.targetHost,
      port: request.targetPort,
      allowHalfOpen: true,
      noDelay: true,
    });
    track(upstream);
    client.pause();
    upstream.once("connect", () => client.resume());
    const fail = () => {
      client.destroy();
      upstream.destroy();
    };
    client.on("error", fail);
    upstream.on("error", fail);
    s.connect("up", client, upstream);
    s.connect("down", upstream, client);
  });
  const listening = server;
  await new Promise<void>((resolve, reject) => {
    listening.once("error", reject);
    listening.listen(0, request.listenHost, () => resolve());
  });
  const address = server.address() as net.AddressInfo;
  return { type: "listening", port: address.port, waitLateUs: waitLateNs / 1000, niceness, timerSlackNs };
}

async function stop(code = 0): Promise<never> {
  for (const socket of sockets) socket.destroy();
  server?.close();
  await clock?.stop().catch(ignored("delay-proxy: stop the clock thread"));
  process.exit(code);
}

async function handle(request: ProxyRequest): Promise<ProxyReply> {
  switch (request.type) {
    case "start":
      return start(request);
    case "set-delay":
      if (!scheduler) throw new Error("not started");
      scheduler.setDelays(request.upMs, request.downMs);
      return { type: "ok" };
    case "stats": {
      if (!scheduler) throw new Error("not started");
      const stats = { ...scheduler.stats(), connections: sockets.size / 2, ...scheduler.delaysMs };
      if (request.reset) scheduler.resetStats();
      return { type: "stats", stats };
    }
    case "stop":
      setImmediate(() => void stop(0));
      return { type: "ok" };
  }
}

process.on("message", (message: Envelope<ProxyRequest>) => {
  handle(message.body)
    .then((body) => reply(message.id, body))
    .catch((error: unknown) => reply(message.id, { type: "error", message: errorMessage(error) }));
});
// The lab went away: nothing else would stop us.
process.on("disconnect", () => void stop(0));
for (const signal of ["SIGTERM", "SIGQUIT", "SIGINT", "SIGHUP"] as const) process.on(signal, () => void stop(0));

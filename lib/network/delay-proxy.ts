/**
 * The lab's handle on a delay proxy: forks delay-proxy-process.js, registers it for the reaper, talks to it over IPC.
 */
import { fork, type ChildProcess } from "node:child_process";
import path from "node:path";
import { processStartTicks } from "../runtime/resource-registry";
import { register, unregister } from "../runtime/resources";
import { installShutdownHooks } from "../runtime/shutdown";
import type { Envelope, ProxyReply, ProxyRequest, ProxyStats } from "./protocol";
import type { DelayLink, LinkStats } from "./types";
import { ignored } from "../runtime/debug";
import { handleErrors } from "../runtime/error-events";

export interface DelayProxyOptions {
  /** e.g. "client→primary". */
  readonly name: string;
  readonly targetHost: string;
  readonly targetPort: number;
  readonly listenHost?: string;
  readonly oneWayDelayMs?: number;
  /** Default 300 µs. */
  readonly blockWindowUs?: number;
  /** Default -10, so the proxy wins the CPU when it needs it. */
  readonly niceness?: number;
  readonly startTimeoutMs?: number;
}

export class DelayProxy implements DelayLink {
  readonly kind = "proxy" as const;
  private nextId = 1;
  private readonly waiting = new Map<number, { resolve: (r: ProxyReply) => void; reject: (e: Error) => void }>();
  private recordId?: string;
  private exited?: string;
  private stderr = "";
  private delayMs: number;
  port = 0;
  /** Atomics.wait lateness measured at start, µs, and the nice value it got. */
  waitLateUs = 0;
  niceness: number | null = null;
  timerSlackNs: number | null = null;

  private constructor(
    readonly name: string,
    readonly host: string,
    private readonly child: ChildProcess,
    delayMs: number,
  ) {
    this.delayMs = delayMs;
    child.on("message", (message: Envelope<ProxyReply>) => {
      const waiter = this.waiting.get(message.id);
      if (!waiter) return;
      this.waiting.delete(message.id);
      if (message.body.type === "error") waiter.reject(new Error(`delay proxy ${name}: ${message.body.message}`));
      else waiter.resolve(message.body);
    });
    // A send to a dead proxy fails its requests with the reason, not an uncaught exception.
    handleErrors(child, `delay proxy ${name}`, (error) => {
      for (const waiter of this.waiting.values()) waiter.reject(new Error(`delay proxy ${name}: ${error.message}`));
      this.waiting.clear();
    });
    child.stderr?.on("data", (chunk: Buffer) => {
      this.stderr = (this.stderr + chunk.toString("utf8")).slice(-4000);
    });
    child.once("exit", (code, signal) => {
      this.exited = `exited with ${signal ?? `code ${code}`}`;
      if (this.recordId) unregister(this.recordId);
      this.recordId = undefined;
      for (const waiter of this.waiting.values())
        waiter.reject(new Error(`delay proxy ${name} ${this.exited}: ${this.stderr.trim()}`));
      this.waiting.clear();
    });
  }

  static async start(options: DelayProxyOptions): Promise<DelayProxy> {
    installShutdownHooks();
    const child = fork(path.join(__dirname, "delay-proxy-process.js"), [], {
      // No inherited flags (--test, a debugger, tslab's).
      execArgv: [],
      // Own process group: a Stop must not end the proxy under a trial; it exits when our IPC channel closes.
      detached: true,
      stdio: ["ignore", "ignore", "pipe", "ipc"],
      serialization: "json",
    });
    const host = options.listenHost ?? "127.0.0.1";
    const proxy = new DelayProxy(options.name, host, child, options.oneWayDelayMs ?? 0);
    if (child.pid) {
      proxy.recordId = register({
        type: "process",
        pid: child.pid,
        pidStartTicks: processStartTicks(child.pid),
        description: `delay proxy ${options.name} pid ${child.pid} → ${options.targetHost}:${options.targetPort}`,
      });
    }
    try {
      const timeout = options.startTimeoutMs ?? 15_000;
      const reply = await Promise.race([
        proxy.request({
          type: "start",
          listenHost: host,
          targetHost: options.targetHost,
          targetPort: options.targetPort,
          upMs: proxy.delayMs,
          downMs: proxy.delayMs,
          blockWindowUs: options.blockWindowUs ?? 300,
          niceness: options.niceness ?? -10,
        }),
        new Promise<never>((_, reject) =>
          setTimeout(
            () => reject(new Error(`delay proxy ${options.name} did not start in ${timeout} ms`)),
            timeout,
          ).unref(),
        ),
      ]);
      if (reply.type !== "listening") throw new Error(`delay proxy ${options.name}: unexpected reply ${reply.type}`);
      proxy.port = reply.port;
      proxy.waitLateUs = reply.waitLateUs;
      proxy.niceness = reply.niceness;
      proxy.timerSlackNs = reply.timerSlackNs;
      return proxy;
    } catch (error) {
      await proxy.close();
      throw error;
    }
  }

  get pid(): number | undefined {
    return this.child.pid;
  }

  get oneWayDelayMs(): number {
    return this.delayMs;
  }

  private request(body: ProxyRequest): Promise<ProxyReply> {
    if (this.exited) return Promise.reject(new Error(`delay proxy ${this.name} ${this.exited}: ${this.stderr.trim()}`));
    const id = this.nextId++;
    return new Promise<ProxyReply>((resolve, reject) => {
      this.waiting.set(id, { resolve, reject });
      this.child.send({ id, body } satisfies Envelope<ProxyRequest>, (error) => {
        if (error) {
          this.waiting.delete(id);
          reject(error);
        }
      });
    });
  }

  /** Sets the one-way delay of both directions (half the round trip added). */
  async setOneWayDelay(ms: number): Promise<void> {
    if (!Number.isFinite(ms) || ms < 0) throw new Error(`one-way delay must be ≥ 0 ms, got ${ms}`);
    await this.request({ type: "set-delay", upMs: ms, downMs: ms });
    this.delayMs = ms;
  }

  async proxyStats(reset = false): Promise<ProxyStats> {
    const reply = await this.request({ type: "stats", reset });
    if (reply.type !== "stats") throw new Error(`delay proxy ${this.name}: unexpected reply ${reply.type}`);
    return reply.stats;
  }

  async stats(reset = false): Promise<LinkStats> {
    const s = await this.proxyStats(reset);
    return {
      delivered: s.lateness.count,
      lateP50Us: s.lateness.p50Us,
      lateP90Us: s.lateness.p90Us,
      lateP99Us: s.lateness.p99Us,
      lateMaxUs: s.lateness.maxUs,
      sleepLateUs: s.sleeper.lateUs,
      spinMs: s.sleeper.spinMs,
    };
  }

  async close(): Promise<void> {
    if (!this.exited) {
      const exited = new Promise<void>((resolve) => this.child.once("exit", () => resolve()));
      await this.request({ type: "stop" }).catch(ignored("delay-proxy: ask the proxy process to stop"));
      const timeout = new Promise<"timeout">((resolve) => setTimeout(() => resolve("timeout"), 3000).unref());
      if ((await Promise.race([exited, timeout])) === "timeout") this.child.kill("SIGKILL");
    }
    if (this.recordId) unregister(this.recordId);
    this.recordId = undefined;
  }
}

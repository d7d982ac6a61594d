/**
 * Linux netem on the loopback device, so nothing in user space sits in the data path: an HTB root on
 * `lo`, per link a netem class with filters on the server's address and port. Undone on close or by a
 * guard process; detection runs in a throwaway network namespace.
 */
import { fork, spawnSync, type ChildProcess } from "node:child_process";
import fs from "node:fs";
import path from "node:path";
import { processStartTicks } from "../runtime/resource-registry";
import { register, unregister } from "../runtime/resources";
import { installShutdownHooks } from "../runtime/shutdown";
import type { DelayLink, LinkStats } from "./types";
import { handleErrors } from "../runtime/error-events";

export interface NetemSupport {
  readonly available: boolean;
  readonly reason: string;
}

const TC_CANDIDATES = ["/usr/sbin/tc", "/sbin/tc", "/usr/bin/tc", "/bin/tc"];

export function findTc(): string | undefined {
  return TC_CANDIDATES.find((p) => fs.existsSync(p));
}

function run(cmd: string, args: readonly string[]): { ok: boolean; out: string } {
  const r = spawnSync(cmd, args, { encoding: "utf8", timeout: 10_000 });
  return { ok: r.status === 0, out: `${r.stdout ?? ""}${r.stderr ?? ""}${r.error ? r.error.message : ""}`.trim() };
}

/** `tc` argument lists, pure for unit tests. */
export const netemCommands = {
  root: (): string[][] => [["qdisc", "add", "dev", "lo", "root", "handle", "1:", "htb", "default", "0"]],
  link: (index: number, address: string, port: number, oneWayMs: number): string[][] => {
    const classId = `1:${index + 10}`;
    const handle = `${index + 10}:`;
    const match = (side: "dst" | "src") => [
      "filter",
      "add",
      "dev",
      "lo",
      "parent",
      "1:",
      "protocol",
      "ip",
      "prio",
      "1",
      "u32",
      "match",
      "ip",
      side,
      `${address}/32`,
      "match",
      "ip",
      side === "dst" ? "dport" : "sport",
      String(port),
      "0xffff",
      "flowid",
      classId,
    ];
    return [
      ["class", "add", "dev", "lo", "parent", "1:", "classid", classId, "htb", "rate", "100gbit", "quantum", "200000"],
      [
        "qdisc",
        "add",
        "dev",
        "lo",
        "parent",
        classId,
        "handle",
        handle,
        "netem",
        "delay",
        netemDelay(oneWayMs),
        "limit",
        "100000",
      ],
      match("dst"),
      match("src"),
    ];
  },
  delay: (index: number, oneWayMs: number): string[] => [
    "qdisc",
    "change",
    "dev",
    "lo",
    "parent",
    `1:${index + 10}`,
    "handle",
    `${index + 10}:`,
    "netem",
    "delay",
    netemDelay(oneWayMs),
    "limit",
    "100000",
  ],
  teardown: (): string[] => ["qdisc", "del", "dev", "lo", "root"],
};

export function netemDelay(ms: number): string {
  return `${Math.max(0, Math.round(ms * 1000))}us`;
}

let cached: NetemSupport | undefined;

/** Whether netem links can be made here, and if not, why. */
export function detectNetem(): NetemSupport {
  if (cached) return cached;
  cached = probe();
  return cached;
}

function probe(): NetemSupport {
  if (process.platform !== "linux")
    return { available: false, reason: `netem is Linux-only (this is ${process.platform})` };
  const tc = findTc();
  if (!tc) return { available: false, reason: "no `tc` binary (iproute2) on this machine" };
  if (typeof process.getuid === "function" && process.getuid() !== 0) {
    return { available: false, reason: "changing qdiscs needs root (CAP_NET_ADMIN); this process is not root" };
  }
  const current = run(tc, ["qdisc", "show", "dev", "lo"]);
  if (!current.ok) return { available: false, reason: `\`tc qdisc show dev lo\` failed: ${current.out}` };
  if (!/^qdisc noqueue /m.test(current.out)) {
    return {
      available: false,
      reason: `lo already has a queueing discipline (${current.out.split("\n")[0]}); the lab will not replace it`,
    };
  }
  const script = [netemCommands.root()[0], ...netemCommands.link(0, "127.0.0.1", 5432, 1)]
    .map((a) => `${tc} ${a.join(" ")}`)
    .join(" && ");
  const trial = run("unshare", ["--net", "sh", "-c", script]);
  if (!trial.ok) {
    const why = /unknown|No such file|not supported/i.test(trial.out)
      ? `the kernel has no netem (or HTB/u32) support: ${trial.out.split("\n")[0].replace(/\.$/, "")}`
      : `a trial in a scratch network namespace failed: ${trial.out.split("\n")[0]}`;
    return { available: false, reason: why };
  }
  return { available: true, reason: "netem works here (tried in a scratch network namespace)" };
}

/** Owns the qdiscs on `lo` for one run; a registered guard process deletes them if this process dies. */
export class NetemController {
  private links = 0;
  private guard?: ChildProcess;
  private guardRecord?: string;
  private closed = false;

  private constructor(private readonly tc: string) {}

  static async open(): Promise<NetemController> {
    const support = detectNetem();
    if (!support.available) throw new Error(`netem is not available: ${support.reason}`);
    installShutdownHooks();
    const tc = findTc();
    if (!tc) throw new Error("netem: tc was found a moment ago and is gone");
    const controller = new NetemController(tc);
    // detached: a Stop's SIGINT must not tear the qdiscs down under a trial.
    const guard = fork(path.join(__dirname, "netem-guard-process.js"), [controller.tc], {
      execArgv: [],
      stdio: ["ignore", "ignore", "ignore", "ipc"],
      detached: true,
    });
    controller.guard = guard;
    await new Promise<void>((resolve, reject) => {
      guard.once("message", () => resolve());
      guard.once("exit", (code) => reject(new Error(`netem guard exited early (${code})`)));
      // Later errors are logged: close() still removes the qdiscs itself.
      handleErrors(guard, "netem guard", (error) =>
        reject(new Error(`netem guard: ${error.message}`, { cause: error })),
      );
    });
    const pid = guard.pid;
    if (pid === undefined) throw new Error("netem guard has no pid");
    controller.guardRecord = register({
      type: "process",
      pid,
      pidStartTicks: processStartTicks(pid),
      description: `netem guard pid ${pid} (removes the qdiscs on lo)`,
    });
    try {
      controller.tcOrThrow(netemCommands.root()[0]);
    } catch (error) {
      await controller.close();
      throw error;
    }
    return controller;
  }

  tcOrThrow(args: readonly string[]): void {
    const r = run(this.tc, args);
    if (!r.ok) throw new Error(`tc ${args.join(" ")} failed: ${r.out}`);
  }

  /** A link for clients of `address:port`. */
  createLink(name: string, address: string, port: number): DelayLink {
    const index = this.links++;
    for (const args of netemCommands.link(index, address, port, 0)) this.tcOrThrow(args);
    let delay = 0;
    const setDelay = (ms: number): void => this.tcOrThrow(netemCommands.delay(index, ms));
    return {
      kind: "netem",
      name,
      host: address,
      port,
      get oneWayDelayMs() {
        return delay;
      },
      async setOneWayDelay(ms: number) {
        setDelay(ms);
        delay = ms;
      },
      async stats(): Promise<LinkStats | undefined> {
        return undefined;
      },
      async close() {
        // The qdiscs go with the root on the controller's close().
      },
    };
  }

  async close(): Promise<void> {
    if (this.closed) return;
    this.closed = true;
    run(this.tc, netemCommands.teardown());
    const guard = this.guard;
    if (guard && guard.exitCode === null) {
      const exited = new Promise<void>((resolve) => guard.once("exit", () => resolve()));
      guard.send("done");
      await Promise.race([exited, new Promise((r) => setTimeout(r, 3000).unref())]);
    }
    if (this.guardRecord) unregister(this.guardRecord);
  }
}

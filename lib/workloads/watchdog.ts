/**
 * A trial is stalled when, for max(60 s, 10 × the group's median trial), its server neither
 * progresses nor answers a liveness probe; the server is then killed (docs/fault-matrix.md).
 */
import { AsyncLocalStorage } from "node:async_hooks";
import fs from "node:fs";
import net from "node:net";
import { median } from "simple-statistics";
import { killTree } from "../runtime/reaper";
import { isProcessAlive } from "../runtime/resource-registry";
import type { Engine, StartedServer } from "../targets/types";
import { ignored } from "../runtime/debug";
import { ACTIVITY_MS, withActivity } from "./server-activity";
import { isDockerHostLoss, ServerLostError, StallError, TrialFailedError } from "./failures";
import { LIVENESS } from "../engines/liveness";
import { withTimeout } from "../runtime/timeout";
import { ENGINE_FACTS } from "../targets/engines";
import { errorMessage } from "../runtime/error-message";

export { isDockerHostLoss, StallError } from "./failures";

const MIN_BOUND_MS = 60_000;
const PEER_FACTOR = 10;

/** External servers are also watched over TCP, so a lost link is said at once (a frozen server still handshakes). */
const LINK_BOUND_MS = 20_000;
const LINK_UNREACHABLE_MS = 10_000;
const HANDSHAKE_MS = 4000;

export interface WatchdogOptions {
  readonly servers: ReadonlyMap<Engine, StartedServer>;
  readonly say?: (message: string) => void;
  /** Default DBLAB_STALL_SECONDS, else scaled from finished trials. */
  readonly boundMs?: number;
  readonly probe?: (server: StartedServer, timeoutMs: number) => Promise<void>;
  /** 0 = never. */
  readonly activityMs?: number;
  readonly link?: { readonly boundMs: number; readonly unreachableMs: number };
}

/** A bad value is refused before anything starts. */
export function stallBoundFromEnv(env: NodeJS.ProcessEnv = process.env): number | undefined {
  const raw = env.DBLAB_STALL_SECONDS;
  if (raw === undefined || raw === "") return undefined;
  const seconds = Number(raw);
  if (!Number.isFinite(seconds) || seconds <= 0) {
    throw new Error(`DBLAB_STALL_SECONDS must be a number of seconds > 0, got "${raw}"`);
  }
  return seconds * 1000;
}

function serverName(server: StartedServer): string {
  const d = server.description;
  return `the ${ENGINE_FACTS[server.engine].label} ${d.version} server (${d.kind}, ${d.address})`;
}

function seconds(ms: number): string {
  return ms < 10_000 ? (ms / 1000).toFixed(1) : String(Math.round(ms / 1000));
}

function capitalise(text: string): string {
  return text.charAt(0).toUpperCase() + text.slice(1);
}

export async function probeServer(server: StartedServer, timeoutMs: number): Promise<void> {
  const attempt = LIVENESS[server.engine](server, timeoutMs);
  try {
    await withTimeout(attempt.answered, timeoutMs, `no answer within ${timeoutMs} ms`);
  } finally {
    // Lost the race: already reported as the timeout.
    attempt.answered.catch(ignored("watchdog: the probe that lost its race"));
    // Not awaited: ending a connection to a frozen server waits as long as it does.
    attempt.close().catch(ignored("watchdog: close the probe's connection"));
  }
}

/** SIGKILL first: a stopped process acts on nothing else. */
async function stopStalled(server: StartedServer): Promise<string | undefined> {
  const pid = (server as { pid?: unknown }).pid;
  if (typeof pid === "number" && pid > 0) killTree(pid);
  try {
    await server.stop();
    return undefined;
  } catch (error) {
    return errorMessage(error);
  }
}

function seenOnlyThroughConnection(server: StartedServer): boolean {
  const pid = (server as { pid?: unknown }).pid;
  return (
    server.processGone === undefined &&
    server.network === undefined &&
    typeof pid !== "number" &&
    !server.connection.host.startsWith("/")
  );
}

export function tcpHandshake(host: string, port: number, timeoutMs = HANDSHAKE_MS): Promise<boolean> {
  return new Promise((resolve) => {
    const socket = net.connect({ host, port });
    const done = (ok: boolean) => {
      clearTimeout(timer);
      socket.destroy();
      resolve(ok);
    };
    const timer = setTimeout(() => done(false), timeoutMs);
    socket.once("connect", () => done(true));
    socket.once("error", () => done(false));
  });
}

function lostLink(
  server: StartedServer,
  what: string,
  bound: { readonly boundMs: number; readonly unreachableMs: number },
  silentMs: number,
  unreachableMs: number,
  watchedMs: number,
) {
  const c = server.connection;
  return new ServerLostError(
    `${capitalise(serverName(server))} stopped answering: the link to it is lost — no progress for ` +
      `${seconds(silentMs)} s and no TCP handshake with ${c.host}:${c.port} for ${seconds(unreachableMs)} s ` +
      `(watched for ${seconds(watchedMs)} s; bound ${seconds(bound.boundMs)} s of silence with the port ` +
      `unreachable for ${seconds(bound.unreachableMs)} s) while ${what}`,
  );
}

export class TrialWatchdog {
  private readonly durations = new Map<string, number[]>();
  private lastSign = 0;
  private lastTrialProgress = 0;
  private readonly reached = new WeakSet<StartedServer>();

  constructor(private readonly options: WatchdogOptions) {}

  progress(): void {
    this.lastSign = Date.now();
    this.lastTrialProgress = this.lastSign;
  }

  boundMs(group: string): number {
    const fixed = this.options.boundMs ?? stallBoundFromEnv();
    if (fixed !== undefined) return fixed;
    const peers = this.durations.get(group) ?? [...this.durations.values()].flat();
    return Math.max(MIN_BOUND_MS, peers.length ? PEER_FACTOR * median(peers) : 0);
  }

  /** Without a server for `engine` it only runs `run`. */
  async watch<T>(engine: Engine, what: string, run: () => Promise<T>, group = what): Promise<T> {
    const server = this.options.servers.get(engine);
    if (!server) return run();
    const bound = this.boundMs(group);
    // Quiet for a third of the bound: probe.
    const quietMs = Math.max(1, Math.round(bound / 3));
    const started = Date.now();
    this.lastSign = started;
    let stalled: ((error: StallError) => void) | undefined;
    const stall = new Promise<never>((_, reject) => (stalled = reject));
    let stallError: StallError | undefined;
    let stopping: Promise<void> | undefined;
    let probing = false;
    let warned = false;
    const linkWatched = seenOnlyThroughConnection(server);
    const link = this.options.link ?? { boundMs: LINK_BOUND_MS, unreachableMs: LINK_UNREACHABLE_MS };
    let handshaking = false;
    let unreachableSince: number | undefined;
    let lost: ((error: ServerLostError) => void) | undefined;
    const lostLinkPromise = new Promise<never>((_, reject) => (lost = reject));
    let lostError: ServerLostError | undefined;
    const checkLink = async (silentMs: number): Promise<void> => {
      if (handshaking || lostError) return;
      handshaking = true;
      const at = Date.now();
      try {
        const ok = await tcpHandshake(server.connection.host, server.connection.port);
        if (ok) {
          this.reached.add(server);
          unreachableSince = undefined;
          return;
        }
        // A port that never completed a handshake from here is no evidence of a lost link.
        if (!this.reached.has(server)) return;
        unreachableSince ??= at;
        const now = Date.now();
        const silent = now - this.lastSign;
        if (silent >= link.boundMs && now - unreachableSince >= link.unreachableMs && !stallError) {
          clearInterval(timer);
          lostError = lostLink(server, what, link, Math.max(silent, silentMs), now - unreachableSince, now - started);
          this.options.say?.(`⚠ lost: ${what} on ${serverName(server)}: the link to it is down`);
          lost?.(lostError);
        }
      } finally {
        handshaking = false;
      }
    };
    if (linkWatched) void checkLink(0);
    const check = async (): Promise<void> => {
      if (stallError || lostError) return;
      const silentMs = Date.now() - this.lastSign;
      if (linkWatched && silentMs >= Math.min(quietMs, link.boundMs / 4)) void checkLink(silentMs);
      else unreachableSince = undefined;
      if (silentMs >= bound) {
        clearInterval(timer);
        stallError = new StallError(
          `${capitalise(serverName(server))} stalled: no progress and no answer to a liveness probe on a separate connection ` +
            `for ${seconds(silentMs)} s (bound ${seconds(bound)} s; DBLAB_STALL_SECONDS overrides it) ` +
            `while ${what}; the server was stopped`,
        );
        this.options.say?.(`⚠ stalled: ${what} on ${serverName(server)}; stopping the server`);
        const error = stallError;
        stopping = stopStalled(server).then((failure) => {
          if (failure === undefined) return;
          error.message = error.message.replace(
            /; the server was stopped$/,
            `; it could not be stopped (${failure}): its record is kept for \`npm run clean\``,
          );
        });
        void stopping.then(() => stalled?.(error));
        return;
      }
      if (probing || silentMs < quietMs) return;
      probing = true;
      try {
        await (this.options.probe ?? probeServer)(server, quietMs);
        this.lastSign = Date.now();
      } catch {
        if (!warned) {
          warned = true;
          this.options.say?.(
            `⚠ ${capitalise(serverName(server))} has not answered for ${seconds(silentMs)} s while ${what}…`,
          );
        }
      } finally {
        probing = false;
      }
    };
    const timer = setInterval(
      () => void check(),
      Math.max(25, Math.min(linkWatched ? 2500 : 5000, Math.round(quietMs / 4))),
    );
    // Not unref'd: it must fire even when nothing else holds the event loop.
    const activityMs = this.options.activityMs;
    // Else a hung query's activity reads go on reconnecting to a dead host.
    const watching = new AbortController();
    const work =
      activityMs === 0
        ? run()
        : withActivity(server, this.options.say && ((line) => this.options.say?.(`${what}: ${line}`)), run, {
            intervalMs: activityMs,
            onAnswer: () => (this.lastSign = Date.now()),
            quiet: () => Date.now() - this.lastTrialProgress < (activityMs ?? ACTIVITY_MS),
            stop: watching.signal,
          });
    try {
      const result = await Promise.race([work, stall, lostLinkPromise]);
      // A trial that got through a stall has a meaningless duration.
      if (stallError) throw stallError;
      const list = this.durations.get(group) ?? [];
      list.push(Date.now() - started);
      this.durations.set(group, list);
      return result;
    } catch (error) {
      // The trial's own error is then a consequence of the kill.
      if (stallError) {
        await stopping;
        throw await explainDockerHostLoss(server, stallError);
      }
      if (lostError) throw lostError;
      throw await explainLoss(server, error, this.options.probe);
    } finally {
      clearInterval(timer);
      watching.abort();
      work.catch(ignored("watchdog: the trial's rejection after its stall"));
      lostLinkPromise.catch(ignored("watchdog: no lost link"));
    }
  }
}

/** A full disk (statfs) or the log's last PANIC/FATAL line, where a driver says only `write ECONNRESET`. */
export function explainServerLoss(server: StartedServer, error: unknown): unknown {
  if (!isConnectionLoss(error)) return error;
  const reasons: string[] = [];
  const directory = (server as { dataDirectory?: unknown }).dataDirectory;
  if (typeof directory === "string") {
    try {
      const fsStats = fs.statfsSync(directory);
      // A full disk, tmpfs included.
      if (fsStats.bavail * fsStats.bsize < 1024 * 1024) {
        reasons.push(`the disk of its data directory ${directory} is full (No space left on device)`);
      }
    } catch {
      // the directory went with the server
    }
  }
  const pid = (server as { pid?: unknown }).pid;
  if (typeof pid === "number" && pid > 0 && !isProcessAlive(pid)) reasons.push(`its process ${pid} is gone`);
  const logTail = (server as { logTail?: unknown }).logTail;
  if (typeof logTail === "function") {
    const text = String((logTail as (lines: number) => string).call(server, 50));
    const last = text
      .split("\n")
      .filter((l) => /\b(PANIC|FATAL):|No space left on device/.test(l))
      .at(-1);
    if (last) reasons.push(`its log says: ${last.trim()}`);
  }
  if (!reasons.length) return error;
  const message = errorMessage(error);
  return new ServerLostError(`${capitalise(serverName(server))} went away (${message}): ${reasons.join("; ")}`, {
    cause: error,
  });
}

/** Only here is an error's wording read; everything above is decided by type. */
function isConnectionLoss(error: unknown): boolean {
  if (error instanceof StallError) return true;
  const code = (error as { code?: unknown } | null)?.code;
  if (typeof code === "string") {
    // SQLSTATE class 57P: a backend told its postmaster is going.
    if (/^E(CONNRESET|PIPE|CONNREFUSED|HOSTUNREACH|TIMEDOUT)$|^57P0[123]$/.test(code)) return true;
  }
  // Server errors carry a SQLSTATE too (XX000), so the wording is read whatever the code.
  // A client that connects after the server died (pgbench between trials) hears only a refusal.
  return /Connection terminated|connection.*(closed|lost)|closed the connection|could not (receive|send) data (from|to) server|terminating connection|postmaster exit|backend died|connection error and is not queryable|Connection refused|no connection to the server|No space left on device/i.test(
    String(error),
  );
}

async function explainDockerHostLoss(server: StartedServer, error: unknown): Promise<unknown> {
  if (server.network === undefined) return error;
  if (!isConnectionLoss(error)) return error;
  const {
    dockerAvailable,
    dockerEndpoint,
    noteIfUnreachable,
    recentlyUnreachable,
    DockerHostGoneError,
    DockerHostLinkLostError,
  } = await import("../targets/docker/docker-client");
  const dockerHost = server.network.dockerHost;
  const remote = dockerHost !== undefined && dockerHost !== "this machine";
  // An ssh alias hides the host.
  const endpoint = dockerEndpoint();
  const label = dockerHost?.replace(/ \(ssh\)$/, "") ?? "";
  const hostPart = /\(([^()]+)\)$/.exec(label)?.[1] ?? label;
  const where = remote && !endpoint.includes(hostPart) ? `${endpoint} (${hostPart})` : endpoint;
  // So the session's stop fails at once.
  if (recentlyUnreachable(endpoint)) return new DockerHostGoneError(serverName(server), error, where);
  if (!(await dockerAvailable())) {
    noteIfUnreachable(endpoint, new Error("no answer to a ping"));
    return new DockerHostGoneError(serverName(server), error, where);
  }
  // "Connection terminated" alone would not say the SSH link dropped.
  const drop = (server as { linkDrop?: () => string | undefined }).linkDrop?.();
  if (remote && drop !== undefined)
    return new DockerHostLinkLostError(serverName(server), `${errorMessage(error)}; ${drop}`, where);
  return error;
}

/** Looked at for up to 3 s, since the connection breaks before the server is seen gone. */
async function explainLoss(
  server: StartedServer,
  error: unknown,
  probe: WatchdogOptions["probe"] = probeServer,
): Promise<unknown> {
  // A tool's words for a dead server vary.
  const loss = isConnectionLoss(error);
  if (seenOnlyThroughConnection(server) && !(error instanceof ServerLostError)) {
    const unanswered = await unansweredProbe(server, probe);
    if (unanswered !== undefined) {
      const message = errorMessage(error);
      return new ServerLostError(
        `${capitalise(serverName(server))} stopped answering, so the connection to it was lost (${message.trim()}): ${unanswered}`,
        { cause: error },
      );
    }
  }
  const graceMs = !loss ? 0 : /administrator command|shutting down/i.test(String(error)) ? 10_000 : 3000;
  const deadline = Date.now() + graceMs;
  for (;;) {
    if (loss) {
      const local = explainServerLoss(server, error);
      if (local !== error) return local;
      const engine = await explainDockerHostLoss(server, error);
      if (engine !== error) return engine;
    }
    const gone = await server.processGone?.();
    if (gone !== undefined) {
      const message = errorMessage(error);
      return new ServerLostError(`${capitalise(serverName(server))} went away (${message}): ${gone}`, { cause: error });
    }
    if (Date.now() >= deadline) return error;
    await new Promise((resolve) => setTimeout(resolve, 250));
  }
}

async function unansweredProbe(
  server: StartedServer,
  probe: NonNullable<WatchdogOptions["probe"]>,
): Promise<string | undefined> {
  const c = server.connection;
  const timeoutMs = 5000;
  try {
    await probe(server, timeoutMs);
    return undefined;
  } catch (error) {
    const handshake = await tcpHandshake(c.host, c.port);
    return (
      `no answer to a liveness probe within ${seconds(timeoutMs)} s (${errorMessage(error)})` +
      (handshake ? "" : ` and no TCP handshake with ${c.host}:${c.port}: the link to it is down`)
    );
  }
}

/** The first server whose loss explains an error thrown outside a watched trial names itself. */
export async function explainRunError(servers: ReadonlyMap<Engine, StartedServer>, error: unknown): Promise<unknown> {
  if (isDockerHostLoss(error) || error instanceof StallError) return error;
  if (error instanceof TrialFailedError) return error;
  for (const server of servers.values()) {
    const explained = await explainDockerHostLoss(server, error);
    if (explained !== error) return explained;
  }
  return error;
}

const current = new AsyncLocalStorage<TrialWatchdog>();

export function withWatchdog<T>(watchdog: TrialWatchdog, fn: () => Promise<T>): Promise<T> {
  return current.run(watchdog, fn);
}

export function watchTrial<T>(engine: Engine, what: string, run: () => Promise<T>, group?: string): Promise<T> {
  const watchdog = current.getStore();
  return watchdog ? watchdog.watch(engine, what, run, group) : run();
}

/** What a failed trial's cleanup may take. */
export function trialBoundMs(group = ""): number {
  return current.getStore()?.boundMs(group) ?? MIN_BOUND_MS;
}

export function noteProgress(): void {
  current.getStore()?.progress();
}

/**
 * Servers in Docker containers with CPU and memory limits, the port published on 127.0.0.1 only.
 *
 * Every container is recorded in the resource registry the moment it exists, so a crash between
 * create and stop still leaves a record the reaper can act on.
 */
import { randomBytes } from "node:crypto";
import net from "node:net";
import { PassThrough } from "node:stream";
import type Docker from "dockerode";
import { MongoClient } from "mongodb";
import { register, unregister } from "../../runtime/resource-registry";
import { freePort, randomPassword } from "../ports";
import { waitForPostgres } from "../readiness";
import type {
  ConnectionInfo,
  Engine,
  ExecResult,
  ResourceLimits,
  ServerDescription,
  ServerSettings,
  ServerSpec,
  StartedServer,
  Target,
} from "../types";
import { postgresUri, redactText } from "../uri";
import { dockerClient, LAB_LABEL, labLabels } from "./docker-client";
import { resolveImage, type ImageProgress, type ImageProgressCallback } from "./images";
import { ignored } from "../../runtime/debug";

const GiB = 1024 ** 3;

export interface DockerTargetOptions {
  /** CPUs per container (default 2); a spec's `limits.cpus` wins. */
  readonly cpus?: number;
  /** Memory per container in bytes (default 3 GiB); a spec's `limits.memoryBytes` wins. */
  readonly memoryBytes?: number;
  /** Size of /dev/shm (default 1 GiB, at most the memory limit): PostgreSQL's dynamic shared memory lives there. */
  readonly shmBytes?: number;
  /** How long start and restart may wait for the first answered query (default 120 s). */
  readonly readyTimeoutMs?: number;
  /** PostgreSQL: run the lab's stand-in image even where the official image is available. */
  readonly forceStandIn?: boolean;
  /**
   * How the lab reaches the server. "auto" (default; DBLAB_DOCKER_ROUTE): the container's bridge
   * address where the host can reach it (Linux), else the port published on 127.0.0.1 (Docker
   * Desktop). "published": always the published port, through docker-proxy.
   */
  readonly route?: DockerRoute;
  /**
   * Image pull/build progress: a line for people, and the event for progress bars. Byte counts
   * of a pull arrive at most once a second.
   */
  readonly onProgress?: (message: string, event: ImageProgress) => void;
}

export interface ExecOptions {
  /** `NAME=value` entries added to the command's environment. */
  readonly env?: readonly string[];
  /** User to run as (default: the image's user). */
  readonly user?: string;
}

/** How one engine runs in a container: credentials, command line, readiness, URI. */
interface EngineProfile {
  readonly port: number;
  readonly user: string;
  readonly database: string;
  /** Settings the engine always runs with unless the spec overrides them; recorded in the description. */
  readonly defaults: ServerSettings;
  env(password: string): string[];
  cmd(settings: ServerSettings): string[];
  uri(connection: ConnectionInfo): string;
  /** Resolves with the server's version once the final (not an init-time) server answers. */
  waitReady(connection: ConnectionInfo, check: () => void, timeoutMs: number): Promise<string>;
}

function settingValue(value: string | number | boolean): string {
  return typeof value === "boolean" ? (value ? "on" : "off") : String(value);
}

function checkSettingName(name: string): string {
  if (!/^[A-Za-z_][A-Za-z0-9_.]*$/.test(name)) throw new Error(`Invalid server setting name "${name}"`);
  return name;
}

const postgresProfile: EngineProfile = {
  port: 5432,
  user: "postgres",
  database: "postgres",
  defaults: {},
  env: (password) => [`POSTGRES_PASSWORD=${password}`],
  cmd: (settings) => [
    "postgres",
    ...Object.entries(settings).flatMap(([k, v]) => ["-c", `${checkSettingName(k)}=${settingValue(v)}`]),
  ],
  uri: postgresUri,
  // The official image's init-time server listens on the unix socket only (the stand-in uses
  // single-user mode), so an answered TCP query always comes from the final server.
  waitReady: (connection, check, timeoutMs) => waitForPostgres(connection, { check, timeoutMs }),
};

function mongoUri(c: ConnectionInfo): string {
  return `mongodb://${encodeURIComponent(c.user)}:${encodeURIComponent(c.password)}@${c.host}:${c.port}/?authSource=admin`;
}

interface CmdLineOpts {
  readonly parsed?: {
    readonly security?: { readonly authorization?: string };
    readonly processManagement?: { readonly fork?: boolean };
  };
}

async function waitForMongo(connection: ConnectionInfo, check: () => void, timeoutMs: number): Promise<string> {
  const deadline = Date.now() + timeoutMs;
  let lastError: unknown;
  while (Date.now() < deadline) {
    check();
    const client = new MongoClient(mongoUri(connection), {
      directConnection: true,
      serverSelectionTimeoutMS: 2000,
      connectTimeoutMS: 2000,
    });
    try {
      await client.connect();
      const admin = client.db("admin");
      await admin.command({ ping: 1 });
      // The official entrypoint's init-time mongod runs forked, without --auth, on the container's
      // own address, so it is reachable through the published port once the user exists.
      const opts = (await admin.command({ getCmdLineOpts: 1 })) as CmdLineOpts;
      if (opts.parsed?.processManagement?.fork || opts.parsed?.security?.authorization !== "enabled") {
        throw new Error("the image's init-time mongod is still running");
      }
      const info = (await admin.command({ buildInfo: 1 })) as { version?: string };
      return String(info.version);
    } catch (error) {
      lastError = error;
    } finally {
      await client.close().catch(ignored("docker: close the MongoDB probe client"));
    }
    await new Promise((resolve) => setTimeout(resolve, 200));
  }
  throw new Error(`MongoDB at ${connection.host}:${connection.port} did not become ready in time: ${String(lastError)}`);
}

/**
 * mongod options from settings: `wiredTigerCacheSizeGB` and any other option as
 * `--name value` (`true` gives a bare flag, `false` leaves it out); `setParameter.name` keys become
 * `--setParameter name=value`.
 */
function mongodArgs(settings: ServerSettings): string[] {
  const args = ["mongod"];
  for (const [key, value] of Object.entries(settings)) {
    checkSettingName(key);
    if (key.startsWith("setParameter.")) args.push("--setParameter", `${key.slice(13)}=${String(value)}`);
    else if (value === true) args.push(`--${key}`);
    else if (value !== false) args.push(`--${key}`, String(value));
  }
  return args;
}

const MONGO_USER = "lab";

const mongoProfile: EngineProfile = {
  port: 27017,
  user: MONGO_USER,
  database: "admin",
  // mongod would otherwise size its cache from the container's memory limit.
  defaults: { wiredTigerCacheSizeGB: 1 },
  env: (password) => [`MONGO_INITDB_ROOT_USERNAME=${MONGO_USER}`, `MONGO_INITDB_ROOT_PASSWORD=${password}`],
  cmd: mongodArgs,
  uri: mongoUri,
  waitReady: waitForMongo,
};

const PROFILES: Readonly<Record<Engine, EngineProfile>> = { postgresql: postgresProfile, mongodb: mongoProfile };

/** "17.6 (Debian 17.6-1.pgdg130+1)" → "17.6"; other strings pass through. */
function shortVersion(version: string): string {
  return /^\d+(\.\d+)*/.exec(version)?.[0] ?? version;
}

function progressLine(e: ImageProgress): string {
  const layer = e.layer ? `${e.layer}: ` : "";
  const share = e.total ? ` ${Math.round(((e.current ?? 0) / e.total) * 100)}%` : "";
  return `${e.image}: ${layer}${e.message}${share}`;
}

/** Adapts the caller's callback; pulls report every few KiB, which would flood a notebook. */
function progressAdapter(onProgress?: (message: string, event: ImageProgress) => void): ImageProgressCallback | undefined {
  if (!onProgress) return undefined;
  let lastByteReport = 0;
  return (event) => {
    if (event.total !== undefined) {
      const now = Date.now();
      if (now - lastByteReport < 1000) return;
      lastByteReport = now;
    }
    onProgress(progressLine(event), event);
  };
}

function containerName(spec: ServerSpec): string {
  const base = (spec.name ?? spec.engine).replace(/[^A-Za-z0-9_.-]/g, "-").slice(0, 40);
  return `db-write-lab-${base}-${randomBytes(3).toString("hex")}`;
}

function isNotFound(error: unknown): boolean {
  return (error as { statusCode?: number }).statusCode === 404;
}

/** Splits Docker's multiplexed log format (8-byte frame headers) into text. */
function demuxBuffer(buffer: Buffer): string {
  let out = "";
  let offset = 0;
  while (offset + 8 <= buffer.length && buffer[offset] <= 2 && buffer.readUInt16BE(offset + 1) === 0) {
    const size = buffer.readUInt32BE(offset + 4);
    out += buffer.subarray(offset + 8, offset + 8 + size).toString("utf8");
    offset += 8 + size;
  }
  return offset === 0 ? buffer.toString("utf8") : out;
}

async function logTail(container: Docker.Container, lines = 30): Promise<string> {
  try {
    const logs = await container.logs({ stdout: true, stderr: true, tail: lines, follow: false });
    return demuxBuffer(logs).trim();
  } catch (error) {
    ignored("docker: read the container's log")(error);
    return "(logs unavailable)";
  }
}

/**
 * Watches for the container exiting while a readiness loop runs: `check()` throws once it has,
 * so the loop stops at once instead of waiting out its timeout.
 */
function watchExit(container: Docker.Container): { check: () => void; dispose: () => void } {
  const abort = new AbortController();
  let exit: number | undefined;
  container
    .wait({ condition: "not-running", abortSignal: abort.signal })
    .then((result: { StatusCode?: number }) => {
      exit = result.StatusCode ?? -1;
    })
    .catch(ignored("docker: wait for the container to stop (dispose() aborts it)"));
  return {
    check: () => {
      if (exit !== undefined) throw new ContainerExited(exit);
    },
    dispose: () => abort.abort(),
  };
}

class ContainerExited extends Error {
  constructor(readonly exitCode: number) {
    super(`the container exited with code ${exitCode}`);
  }
}

async function waitReady(
  container: Docker.Container,
  profile: EngineProfile,
  connection: ConnectionInfo,
  timeoutMs: number,
): Promise<string> {
  const watch = watchExit(container);
  try {
    return await profile.waitReady(connection, watch.check, timeoutMs);
  } catch (error) {
    const reason = error instanceof ContainerExited ? error.message : redactText(String(error));
    const logs = await logTail(container);
    throw new Error(`Container ${container.id.slice(0, 12)} did not become ready: ${reason}\n--- last log lines ---\n${logs}`);
  } finally {
    watch.dispose();
  }
}

function publishedPort(info: Docker.ContainerInspectInfo, internal: number): number {
  const bindings = info.NetworkSettings.Ports?.[`${internal}/tcp`] ?? [];
  const binding = bindings.find((b) => b.HostIp === "127.0.0.1") ?? bindings[0];
  const port = Number(binding?.HostPort);
  if (!Number.isInteger(port) || port <= 0) {
    throw new Error(`Docker reported no host port for ${internal}/tcp of container ${info.Id.slice(0, 12)}`);
  }
  return port;
}

export const DOCKER_ROUTES = ["auto", "published"] as const;
export type DockerRoute = (typeof DOCKER_ROUTES)[number];

export function dockerRouteFromEnv(env: NodeJS.ProcessEnv = process.env): DockerRoute {
  const value = env.DBLAB_DOCKER_ROUTE ?? "auto";
  if (!(DOCKER_ROUTES as readonly string[]).includes(value)) {
    throw new Error(`DBLAB_DOCKER_ROUTE must be one of ${DOCKER_ROUTES.join(", ")}, got "${value}"`);
  }
  return value as DockerRoute;
}

/** Whether a TCP connection to host:port opens within timeoutMs. */
function tcpOpens(host: string, port: number, timeoutMs: number): Promise<boolean> {
  return new Promise((resolve) => {
    const socket = net.connect({ host, port });
    const done = (ok: boolean) => {
      socket.destroy();
      resolve(ok);
    };
    socket.setTimeout(timeoutMs, () => done(false));
    socket.once("connect", () => done(true));
    socket.once("error", () => done(false));
  });
}

/**
 * The container's bridge address, if the host reaches the server there. The published port goes
 * through docker-proxy, which copies every byte in user space: a SELECT 1 took ~250 µs that way
 * here and ~100 µs over the bridge (embedded PostgreSQL: ~110 µs), a difference that would land in
 * every round-trip-bound figure. Docker Desktop keeps the bridge inside its VM: there the check
 * fails and the published port is used. The bridge is reachable from this host (and its
 * containers) only, like the 127.0.0.1 binding.
 */
async function bridgeAddress(info: Docker.ContainerInspectInfo, internalPort: number): Promise<string | undefined> {
  const ip = Object.values(info.NetworkSettings.Networks ?? {}).find((n) => n.IPAddress)?.IPAddress;
  if (!ip) return undefined;
  return (await tcpOpens(ip, internalPort, 500)) ? ip : undefined;
}

export class DockerStartedServer implements StartedServer {
  readonly kind = "docker" as const;
  private stopping: Promise<void> | undefined;

  constructor(
    readonly id: string,
    readonly engine: Engine,
    private current: ConnectionInfo,
    private currentDescription: ServerDescription,
    private readonly container: Docker.Container,
    private readonly recordId: string,
    private readonly profile: EngineProfile,
    private readonly readyTimeoutMs: number,
    private readonly route: DockerRoute,
  ) {}

  /** Read it afresh after a restart: a container can come back with another bridge address. */
  get connection(): ConnectionInfo {
    return this.current;
  }

  get uri(): string {
    return this.profile.uri(this.current);
  }

  get description(): ServerDescription {
    return this.currentDescription;
  }

  /** Docker's container id (also `id`), for `docker logs` and the like. */
  get containerId(): string {
    return this.container.id;
  }

  async restart(): Promise<void> {
    if (this.stopping) throw new Error(`Container ${this.id.slice(0, 12)} was stopped; start a new server instead`);
    // Long enough for PostgreSQL's shutdown checkpoint after a write-heavy round (SIGINT first).
    await this.container.restart({ t: 120 });
    const info = await this.container.inspect();
    const port = publishedPort(info, this.profile.port);
    const published = this.currentDescription.publishedAddress;
    if (published !== undefined && published !== `127.0.0.1:${port}`) {
      throw new Error(`Container ${this.id.slice(0, 12)} came back on 127.0.0.1:${port} instead of ${published}`);
    }
    this.current = { ...this.current, host: "127.0.0.1", port };
    await waitReady(this.container, this.profile, this.current, this.readyTimeoutMs);
    await this.useBridgeIfReachable(info);
  }

  /** Switches to the bridge address where the host reaches it (see bridgeAddress). */
  async useBridgeIfReachable(info: Docker.ContainerInspectInfo): Promise<void> {
    const ip = this.route === "auto" ? await bridgeAddress(info, this.profile.port) : undefined;
    if (!ip) return;
    this.current = { ...this.current, host: ip, port: this.profile.port };
    this.currentDescription = { ...this.currentDescription, address: `${ip}:${this.profile.port}`, route: "bridge" };
  }

  stop(): Promise<void> {
    this.stopping ??= (async () => {
      try {
        await this.container.remove({ force: true, v: true });
      } catch (error) {
        if (!isNotFound(error)) {
          this.stopping = undefined; // keep the record, so a retry or the reaper can remove it
          throw error;
        }
      }
      unregister(this.recordId);
    })();
    return this.stopping;
  }

  /** Runs a command inside the container (e.g. pgbench in an official image) and collects its output. */
  async exec(cmd: string[], options: ExecOptions = {}): Promise<ExecResult> {
    const exec = await this.container.exec({
      Cmd: cmd,
      AttachStdout: true,
      AttachStderr: true,
      Env: options.env ? [...options.env] : undefined,
      User: options.user,
    });
    const stream = await exec.start({ hijack: true, stdin: false });
    const stdout: Buffer[] = [];
    const stderr: Buffer[] = [];
    const out = new PassThrough().on("data", (c: Buffer) => stdout.push(c));
    const err = new PassThrough().on("data", (c: Buffer) => stderr.push(c));
    dockerClient().modem.demuxStream(stream, out, err);
    await new Promise<void>((resolve, reject) => {
      stream.on("end", resolve);
      stream.on("close", resolve);
      stream.on("error", reject);
    });
    // The exit code can lag the end of the output by a moment.
    let info = await exec.inspect();
    for (let i = 0; info.Running && i < 100; i++) {
      await new Promise((resolve) => setTimeout(resolve, 50));
      info = await exec.inspect();
    }
    return {
      exitCode: info.ExitCode ?? -1,
      stdout: Buffer.concat(stdout).toString("utf8"),
      stderr: Buffer.concat(stderr).toString("utf8"),
    };
  }
}

export class DockerTarget implements Target {
  readonly kind = "docker" as const;

  constructor(private readonly options: DockerTargetOptions = {}) {}

  async start(spec: ServerSpec): Promise<DockerStartedServer> {
    const profile = PROFILES[spec.engine];
    const settings: ServerSettings = { ...profile.defaults, ...spec.settings };
    const limits: Required<ResourceLimits> = {
      cpus: spec.limits?.cpus ?? this.options.cpus ?? 2,
      memoryBytes: spec.limits?.memoryBytes ?? this.options.memoryBytes ?? 3 * GiB,
    };
    const readyTimeoutMs = this.options.readyTimeoutMs ?? 120_000;
    const route = this.options.route ?? dockerRouteFromEnv();
    const resolved = await resolveImage(spec.engine, progressAdapter(this.options.onProgress), {
      forceStandIn: this.options.forceStandIn,
    });

    const password = randomPassword();
    const name = containerName(spec);
    const { container, recordId } = await createAndStart(name, profile.port, {
      Image: resolved.image,
      Cmd: profile.cmd(settings),
      Env: profile.env(password),
      Labels: labLabels({ [`${LAB_LABEL}.engine`]: spec.engine, [`${LAB_LABEL}.name`]: spec.name ?? "" }),
      HostConfig: {
        NanoCpus: Math.round(limits.cpus * 1e9),
        Memory: limits.memoryBytes,
        // No swap on top of the limit: a swapping server would measure the disk, not the database.
        MemorySwap: limits.memoryBytes,
        ShmSize: Math.min(this.options.shmBytes ?? GiB, limits.memoryBytes),
        AutoRemove: false,
      },
    });

    try {
      const info = await container.inspect();
      const port = publishedPort(info, profile.port);
      const connection: ConnectionInfo = {
        host: "127.0.0.1",
        port,
        user: profile.user,
        password,
        database: profile.database,
      };
      const version = await waitReady(container, profile, connection, readyTimeoutMs);
      const description: ServerDescription = {
        engine: spec.engine,
        kind: "docker",
        version: shortVersion(version),
        source: resolved.image,
        standInImage: resolved.standIn,
        limits,
        settings,
        address: `127.0.0.1:${port}`,
        publishedAddress: `127.0.0.1:${port}`,
        route: "published port (docker-proxy)",
      };
      const server = new DockerStartedServer(container.id, spec.engine, connection, description, container, recordId, profile, readyTimeoutMs, route);
      await server.useBridgeIfReachable(info);
      return server;
    } catch (error) {
      await discard(container, recordId);
      throw error;
    }
  }
}

/** Removes a container the start gave up on; the record stays if Docker cannot remove it. */
async function discard(container: Docker.Container, recordId: string): Promise<void> {
  try {
    await container.remove({ force: true, v: true });
  } catch (error) {
    if (!isNotFound(error)) return;
  }
  unregister(recordId);
}

function isPortConflict(error: unknown): boolean {
  return /port is already allocated|address already in use/i.test(String(error));
}

/**
 * Creates (and registers at once) and starts a container whose port is published on 127.0.0.1.
 * The host port is picked here rather than by Docker (HostPort ""), because Docker picks a new
 * one at every restart, and restart() must keep the address callers already hold. Another
 * process may take the port between the pick and the start: then a new port and container.
 */
async function createAndStart(
  name: string,
  internalPort: number,
  options: Docker.ContainerCreateOptions,
): Promise<{ container: Docker.Container; recordId: string }> {
  const portKey = `${internalPort}/tcp`;
  for (let attempt = 1; ; attempt++) {
    const hostPort = await freePort();
    const container = await dockerClient().createContainer({
      ...options,
      name: attempt === 1 ? name : `${name}-${attempt}`,
      ExposedPorts: { [portKey]: {} },
      HostConfig: {
        ...options.HostConfig,
        // Loopback only: the generated password is the only guard.
        PortBindings: { [portKey]: [{ HostIp: "127.0.0.1", HostPort: String(hostPort) }] },
      },
    });
    const recordId = register({
      type: "docker-container",
      containerId: container.id,
      description: `container ${name} (${options.Image ?? "?"})`,
    });
    try {
      await container.start();
      return { container, recordId };
    } catch (error) {
      await discard(container, recordId);
      if (attempt < 5 && isPortConflict(error)) continue;
      throw error;
    }
  }
}

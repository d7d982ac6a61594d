/**
 * Servers in Docker containers with CPU and memory limits, on the engine the environment names. Each
 * container is recorded the moment it exists, so a crash before stop leaves a record for the reaper.
 */
import type Docker from "dockerode";
import { ignored } from "../../runtime/debug";
import { unregister } from "../../runtime/resource-registry";
import { checkEngine } from "../engines";
import { randomPassword } from "../ports";
import type {
  ConnectionInfo,
  Engine,
  ExecOptions,
  ExecResult,
  LinkTraffic,
  ResourceLimits,
  ServerNetwork,
  ServerSettings,
  ServerSpec,
  StartedServer,
  Target,
} from "../types";
import type { DockerServerDescription } from "./description";
import { execInContainer, isNotFound, removeByForce, waitReady } from "./container-io";
import { containerStorage } from "./storage";
import { containerName, createAndStart, discard } from "./create-container";
import {
  currentEndpoint,
  dockerClientFor,
  LAB_LABEL,
  labLabels,
  noteIfUnreachable,
  recentlyUnreachable,
  withDockerTimeout,
} from "./docker-client";
import { withTimeout } from "../../runtime/timeout";
import { dockerHostLabel, type DockerEndpoint } from "./endpoint";
import { PROFILES, shortVersion, type EngineProfile } from "./engine-profiles";
import {
  pullPolicyFromEnv,
  resolveImage,
  type ImageProgress,
  type ImageProgressCallback,
  type PullPolicy,
} from "./images";
import {
  bridgeAddress,
  dockerRouteFromEnv,
  placementFor,
  publishedPort,
  tcpConnectRttMs,
  type DockerRoute,
  type Placement,
} from "./routes";
import { sshDockerConnection, type SshTunnel } from "./ssh-docker-host";
import {
  goneOnRestart,
  leasedCreateOptions,
  leasedExitCode,
  leaseSecondsFromEnv,
  leaseTiming,
  leaseWorstCaseSeconds,
  LeaseRenewer,
} from "./lease";

export { DOCKER_ROUTES, dockerRouteFromEnv, type DockerRoute } from "./routes";

const GiB = 1024 ** 3;
/** Removal at the end, before its engine counts as unreachable. */
const STOP_TIMEOUT_MS = 30_000;
/** The same, on an engine that did not answer within the last minute. */
const RETRY_STOP_TIMEOUT_MS = 8_000;

/** Servers whose removal failed (engine unreachable): records kept, retried first by a resuming kernel. */
const abandoned = new Set<DockerStartedServer>();

export async function retryAbandonedStops(): Promise<number> {
  let removed = 0;
  for (const server of [...abandoned]) {
    try {
      await server.stop();
      removed++;
    } catch {
      // still unreachable: the record stays for the next try
    }
  }
  return removed;
}

export interface DockerTargetOptions {
  /** Default 2; a spec's `limits.cpus` wins. */
  readonly cpus?: number;
  /** Default 3 GiB; a spec's `limits.memoryBytes` wins. */
  readonly memoryBytes?: number;
  /** /dev/shm size (default 1 GiB, at most the memory limit): PostgreSQL's dynamic shared memory. */
  readonly shmBytes?: number;
  /** Wait for the first answered query on start and restart (default 120 s). */
  readonly readyTimeoutMs?: number;
  /** PostgreSQL: the stand-in image even where the official one is available. */
  readonly forceStandIn?: boolean;
  /** images.ts. */
  readonly pull?: PullPolicy;
  /** "auto" (DBLAB_DOCKER_ROUTE): the bridge address where reachable (Linux), else the published port. */
  readonly route?: DockerRoute;
  /** A line for people, and the event for progress bars. */
  readonly onProgress?: (message: string, event: ImageProgress) => void;
  readonly endpoint?: DockerEndpoint;
}

function progressLine(e: ImageProgress): string {
  const layer = e.layer ? `${e.layer}: ` : "";
  const share = e.total ? ` ${Math.round(((e.current ?? 0) / e.total) * 100)}%` : "";
  return `${e.image}: ${layer}${e.message}${share}`;
}

function progressAdapter(
  onProgress?: (message: string, event: ImageProgress) => void,
): ImageProgressCallback | undefined {
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

/** Opens the SSH tunnel where needed. */
async function reachPublished(
  endpoint: DockerEndpoint,
  placement: Placement,
  hostPort: number,
  tunnel: SshTunnel | undefined,
): Promise<{ host: string; port: number; tunnel?: SshTunnel; route: string }> {
  if (placement.reach === "ssh-tunnel" && endpoint.ssh) {
    const t = tunnel?.remotePort === hostPort ? tunnel : await sshDockerConnection(endpoint.ssh).tunnel(hostPort);
    if (tunnel && t !== tunnel) tunnel.close();
    return { host: "127.0.0.1", port: t.localPort, tunnel: t, route: "ssh-tunnel" };
  }
  if (placement.reach === "bind-address") return { host: placement.bindIp, port: hostPort, route: "bind-address" };
  return { host: "127.0.0.1", port: hostPort, route: "published port (docker-proxy)" };
}

/** SSH channel open, or TCP connect. */
async function dockerHostRttMs(endpoint: DockerEndpoint): Promise<number | undefined> {
  if (endpoint.local) return undefined;
  if (endpoint.ssh) return sshDockerConnection(endpoint.ssh).rttMs();
  const url = new URL(endpoint.host.replace(/^tcp:/, "https:"));
  return tcpConnectRttMs(url.hostname, Number(url.port || 2376));
}

export class DockerStartedServer implements StartedServer {
  readonly kind = "docker" as const;
  private stopping: Promise<void> | undefined;
  readonly linkTraffic?: () => LinkTraffic;
  /** Why the SSH link to the engine dropped since this server started, if it did. */
  readonly linkDrop?: () => string | undefined;
  private tunnelBase = { sent: 0, received: 0 };

  constructor(
    readonly id: string,
    readonly engine: Engine,
    private current: ConnectionInfo,
    private currentDescription: DockerServerDescription & ServerNetwork,
    private readonly container: Docker.Container,
    private readonly recordId: string,
    private readonly profile: EngineProfile,
    private readonly readyTimeoutMs: number,
    private readonly route: DockerRoute,
    private readonly endpoint: DockerEndpoint,
    private readonly placement: Placement,
    private tunnel: SshTunnel | undefined,
    /** remote engines: lease.ts. */
    private readonly lease?: LeaseRenewer,
  ) {
    if (endpoint.ssh) {
      const connection = sshDockerConnection(endpoint.ssh);
      const wireStart = connection.wireBytes();
      const since = Date.now();
      this.linkDrop = () => connection.droppedSince(since);
      this.linkTraffic = () => {
        const tunnel = this.tunnel?.bytes() ?? { sent: 0, received: 0 };
        const wire = connection.wireBytes();
        return {
          tunnelSent: this.tunnelBase.sent + tunnel.sent,
          tunnelReceived: this.tunnelBase.received + tunnel.received,
          wireSent: wire.sent - wireStart.sent,
          wireReceived: wire.received - wireStart.received,
        };
      };
    }
  }

  /** The bridge address can change on restart. */
  get connection(): ConnectionInfo {
    return this.current;
  }

  get uri(): string {
    return this.profile.uri(this.current);
  }

  get description(): DockerServerDescription {
    return this.currentDescription;
  }

  get network(): ServerNetwork {
    return { dockerHost: this.currentDescription.dockerHost, route: this.currentDescription.route };
  }

  /** Undefined while it runs or when the engine does not answer, else its exit. */
  readonly processGone = async (): Promise<string | undefined> => {
    if (this.stopping) return undefined;
    const its = `its container ${this.container.id.slice(0, 12)} on the Docker engine at ${this.endpoint.host}`;
    try {
      // Bounded: over a dropped ssh:// link an inspect would wait for the keepalives.
      const { State: state } = await withTimeout(this.container.inspect(), 5000, "inspect timed out");
      const oom = state.OOMKilled ? ", killed for memory (OOM)" : "";
      if (state.Running && !state.Restarting) {
        // A leased container outlives its server: the exit code is in a file.
        const code = this.lease ? await leasedExitCode(this.container) : undefined;
        return code === undefined ? undefined : `${its}: its server exited with code ${code}${oom}`;
      }
      return `${its} ${state.Status === "exited" ? "exited" : `is ${state.Status}`} with code ${state.ExitCode}${oom}`;
    } catch (error) {
      // A leased container ends itself once its lease lapses.
      if (this.lease && isNotFound(error)) return `${its} no longer exists: ${this.lease.describeGone()}`;
      ignored("docker: inspect a lost server's container")(error);
      return undefined;
    }
  };

  get containerId(): string {
    return this.container.id;
  }

  async restart(): Promise<void> {
    if (this.stopping) throw new Error(`Container ${this.id.slice(0, 12)} was stopped; start a new server instead`);
    // The new watcher counts from its own start (lease.ts): the lease holds from this request.
    const requestedAt = Date.now();
    // Long enough for the shutdown checkpoint after a write-heavy round.
    await this.container.restart({ t: 120 }).catch((error: unknown) => {
      if (this.lease && goneOnRestart(error)) {
        throw new Error(`Container ${this.id.slice(0, 12)} could not be restarted: ${this.lease.describeGone()}`, {
          cause: error,
        });
      }
      throw error;
    });
    this.lease?.rearmed(requestedAt);
    const info = await this.container.inspect();
    const port = publishedPort(info, this.profile.port, this.placement.bindIp);
    const published = this.currentDescription.publishedAddress;
    const now = `${this.placement.bindIp}:${port}`;
    if (published !== undefined && published !== now) {
      throw new Error(`Container ${this.id.slice(0, 12)} came back on ${now} instead of ${published}`);
    }
    const reach = await reachPublished(this.endpoint, this.placement, port, this.tunnel);
    if (this.tunnel && reach.tunnel !== this.tunnel) {
      const old = this.tunnel.bytes();
      this.tunnelBase = { sent: this.tunnelBase.sent + old.sent, received: this.tunnelBase.received + old.received };
    }
    this.tunnel = reach.tunnel;
    this.current = { ...this.current, host: reach.host, port: reach.port };
    const address = `${reach.host}:${reach.port}`;
    this.currentDescription = { ...this.currentDescription, address, route: reach.route };
    await waitReady(this.container, this.profile, this.current, this.readyTimeoutMs, this.lease !== undefined);
    await this.useBridgeIfReachable(info);
  }

  /** Only for an engine on this machine: a remote bridge address names something else here. */
  async useBridgeIfReachable(info: Docker.ContainerInspectInfo): Promise<void> {
    if (!this.endpoint.local || this.placement.reach !== "local") return;
    const ip = this.route === "auto" ? await bridgeAddress(info, this.profile.port) : undefined;
    if (!ip) return;
    this.current = { ...this.current, host: ip, port: this.profile.port };
    this.currentDescription = { ...this.currentDescription, address: `${ip}:${this.profile.port}`, route: "bridge" };
  }

  stop(): Promise<void> {
    this.stopping ??= (async () => {
      // No more renewals: should the removal fail, the lease removes the container within its bound.
      this.lease?.stop();
      const where = this.endpoint.host;
      try {
        // Bounded: a vanished host would hold the run's end for TCP's timeouts; an engine recently
        // unreachable gets a short bound, since one that came back answers a removal in under a second.
        const bound = recentlyUnreachable(where) ? RETRY_STOP_TIMEOUT_MS : STOP_TIMEOUT_MS;
        await withDockerTimeout(removeByForce(this.container), bound, where);
      } catch (error) {
        if (!isNotFound(error)) {
          noteIfUnreachable(where, error);
          this.stopping = undefined;
          abandoned.add(this);
          throw error;
        }
      }
      abandoned.delete(this);
      this.tunnel?.close();
      unregister(this.recordId);
    })();
    return this.stopping;
  }

  readonly exec = (cmd: string[], options: ExecOptions = {}): Promise<ExecResult> =>
    execInContainer(dockerClientFor(this.endpoint), this.container, cmd, options);
}

export class DockerTarget implements Target {
  readonly kind = "docker" as const;

  constructor(private readonly options: DockerTargetOptions = {}) {}

  async start(spec: ServerSpec): Promise<DockerStartedServer> {
    const profile = PROFILES[checkEngine(spec.engine)];
    const settings: ServerSettings = { ...profile.defaults, ...spec.settings };
    const cmd = profile.cmd(settings);
    const limits: Required<ResourceLimits> = {
      cpus: spec.limits?.cpus ?? this.options.cpus ?? 2,
      memoryBytes: spec.limits?.memoryBytes ?? this.options.memoryBytes ?? 3 * GiB,
    };
    const readyTimeoutMs = this.options.readyTimeoutMs ?? 120_000;
    const route = this.options.route ?? dockerRouteFromEnv();
    const pull = this.options.pull ?? pullPolicyFromEnv();
    const endpoint = this.options.endpoint ?? currentEndpoint();
    const placement = placementFor(endpoint);
    // Remote engines only: a vanished client would leave the container for good; here the next lab process reaps it.
    const timing = endpoint.local ? undefined : leaseTiming(leaseSecondsFromEnv());
    const docker = dockerClientFor(endpoint);
    const resolved = await resolveImage(spec.engine, progressAdapter(this.options.onProgress), {
      forceStandIn: this.options.forceStandIn,
      docker,
      pull,
    });

    const leased = timing ? await leasedCreateOptions(docker, resolved.image, timing) : undefined;
    const password = randomPassword();
    const name = containerName(spec);
    const armedAt = Date.now();
    const { container, recordId } = await createAndStart(docker, endpoint, placement, name, profile.port, {
      Image: resolved.image,
      ...(leased ? { Entrypoint: leased.Entrypoint } : {}),
      Cmd: cmd,
      Env: profile.env(password),
      Labels: labLabels({
        [`${LAB_LABEL}.engine`]: spec.engine,
        [`${LAB_LABEL}.name`]: spec.name ?? "",
        ...(spec.runId ? { [`${LAB_LABEL}.run-id`]: spec.runId } : {}),
      }),
      HostConfig: {
        NanoCpus: Math.round(limits.cpus * 1e9),
        Memory: limits.memoryBytes,
        // No swap: a swapping server would measure the disk, not the database.
        MemorySwap: limits.memoryBytes,
        ShmSize: Math.min(this.options.shmBytes ?? GiB, limits.memoryBytes),
        AutoRemove: leased?.AutoRemove ?? false,
      },
    });
    const lease = timing ? new LeaseRenewer(container, timing, armedAt) : undefined;
    lease?.start();

    let tunnel: SshTunnel | undefined;
    try {
      const info = await container.inspect();
      const port = publishedPort(info, profile.port, placement.bindIp);
      const reach = await reachPublished(endpoint, placement, port, undefined);
      tunnel = reach.tunnel;
      const connection: ConnectionInfo = {
        host: reach.host,
        port: reach.port,
        user: profile.user,
        password,
        database: profile.database,
      };
      const version = await waitReady(container, profile, connection, readyTimeoutMs, lease !== undefined);
      const storage = await containerStorage(
        (cmd, options) => execInContainer(docker, container, cmd, options),
        profile.dataDir,
      );
      const description: DockerServerDescription & ServerNetwork = {
        engine: spec.engine,
        kind: "docker",
        version: shortVersion(version),
        source: resolved.image,
        standInImage: resolved.standIn,
        limits,
        settings,
        address: `${reach.host}:${reach.port}`,
        publishedAddress: `${placement.bindIp}:${port}`,
        route: reach.route,
        dockerHost: dockerHostLabel(endpoint),
        dockerHostRttMs: await dockerHostRttMs(endpoint),
        ...(timing
          ? {
              lease: {
                boundSeconds: timing.boundSeconds,
                renewSeconds: timing.renewMs / 1000,
                worstCaseSeconds: leaseWorstCaseSeconds(timing),
              },
            }
          : {}),
        ...(storage
          ? { storage }
          : { storageUnmeasured: `the probe (sh and dd) could not run in the container at ${profile.dataDir}` }),
      };
      const server = new DockerStartedServer(
        container.id,
        spec.engine,
        connection,
        description,
        container,
        recordId,
        profile,
        readyTimeoutMs,
        route,
        endpoint,
        placement,
        tunnel,
        lease,
      );
      await server.useBridgeIfReachable(info);
      return server;
    } catch (error) {
      lease?.stop();
      tunnel?.close();
      await discard(container, recordId);
      throw error;
    }
  }
}

/**
 * A standby of an embedded primary on a Docker engine the user named over ssh:// (05's `hosts`),
 * streaming through `ssh -R` back to the primary (remote 127.0.0.1 only); it runs the stand-in image
 * from the primary's own binaries, since a byte-copied data directory needs the exact build.
 */
import fs from "node:fs";
import path from "node:path";
import { Readable } from "node:stream";
import { pack as tarPack } from "tar-stream";
import type Docker from "dockerode";
import { register, unregister } from "../../runtime/resources";
import type { ConnectionInfo, ServerNetwork, ServerSettings, StandbyHost, StartedServer } from "../types";
import type { DockerServerDescription } from "./description";
import { postgresUri } from "../uri";
import { settingsToArgs } from "../settings";
import { isNotFound, logTail, removeByForce } from "./container-io";
import { containerName } from "./create-container";
import { dockerClientFor, LAB_LABEL, labLabels } from "./docker-client";
import { endpointRef, dockerHostLabel, isDockerEndpoint, type DockerEndpoint } from "./endpoint";
import { resolveImage } from "./images";
import { randomRemotePort } from "./routes";
import { sshDockerConnection, type ReverseTunnel, type SshTunnel } from "./ssh-docker-host";
import { ignored } from "../../runtime/debug";
import { leasedCreateOptions, leasedExitCode, leaseSecondsFromEnv, leaseTiming, LeaseRenewer } from "./lease";

/** The stand-in image's postgres user: the data directory's owner in the container. */
const POSTGRES_UID = 999;
const PGDATA = "/var/lib/postgresql/standby";

/** Refuses, before anything starts, an engine replication could not reach back from. */
export function checkStandbyEngine(endpoint: DockerEndpoint): void {
  if (!endpoint.ssh) {
    throw new Error(
      `standbys on ${endpoint.host} need an ssh:// engine: replication reaches the primary on this machine ` +
        "back through the SSH connection (the lab opens no port of this machine to a network)",
    );
  }
}

/** A standby's host as the Docker engine it names; checked as above. */
export function standbyEngine(host: StandbyHost): DockerEndpoint {
  if (!isDockerEndpoint(host)) {
    throw new Error(`standbys on ${host.host}: not a Docker engine the lab resolved (see endpointFromHost)`);
  }
  checkStandbyEngine(host);
  return host;
}

/** The port on the engine's host that leads back to `localPort` on this machine's 127.0.0.1. */
export async function reverseTunnelTo(endpoint: DockerEndpoint, localPort: number): Promise<ReverseTunnel> {
  checkStandbyEngine(endpoint);
  const ssh = endpoint.ssh;
  if (!ssh) throw new Error("unreachable: checked above");
  return sshDockerConnection(ssh).reverseTunnel("127.0.0.1", localPort);
}

/** A tar of `directory` as `name/…`, owned by the container's postgres user. */
function tarOf(directory: string, name: string): Readable {
  const pack = tarPack();
  const walk = (dir: string, rel: string): void => {
    const st = fs.statSync(dir);
    pack.entry({ name: rel, type: "directory", mode: st.mode & 0o7777, uid: POSTGRES_UID, gid: POSTGRES_UID });
    for (const entry of fs.readdirSync(dir, { withFileTypes: true })) {
      const full = path.join(dir, entry.name);
      const r = `${rel}/${entry.name}`;
      if (entry.isDirectory()) walk(full, r);
      else if (entry.isFile()) {
        const mode = fs.statSync(full).mode & 0o7777;
        pack.entry({ name: r, mode, uid: POSTGRES_UID, gid: POSTGRES_UID }, fs.readFileSync(full));
      }
    }
  };
  walk(directory, name);
  pack.finalize();
  return Readable.from(pack);
}

export interface RemoteStandbyRequest {
  readonly name: string;
  readonly endpoint: DockerEndpoint;
  /** A prepared copy of the primary's data directory. */
  readonly dataDirectory: string;
  /** The primary's settings less the primary-only ones. */
  readonly settings: ServerSettings;
  /** A standby runs the primary's data, and so its password. */
  readonly credentials: ConnectionInfo;
  readonly version: string;
  /** The reverse tunnel, closed when the standby stops. */
  readonly tunnel: ReverseTunnel;
  readonly onProgress?: (message: string) => void;
}

export class RemoteStandby implements StartedServer {
  readonly kind = "docker" as const;
  readonly engine = "postgresql" as const;
  private stopped = false;

  constructor(
    readonly id: string,
    readonly standbyName: string,
    readonly connection: ConnectionInfo,
    readonly description: DockerServerDescription & ServerNetwork,
    private readonly container: Docker.Container,
    private readonly recordId: string,
    private readonly tunnels: readonly (ReverseTunnel | SshTunnel)[],
    /** Renewed while the lab holds the standby (lease.ts). */
    private readonly lease: LeaseRenewer,
  ) {}

  get uri(): string {
    return postgresUri(this.connection);
  }

  get network(): ServerNetwork {
    return { dockerHost: this.description.dockerHost, route: this.description.route };
  }

  logs(lines = 10): Promise<string> {
    return logTail(this.container, lines);
  }

  restart(): Promise<void> {
    return Promise.reject(new Error("a standby on a remote engine is not restarted; make a new one"));
  }

  async stop(): Promise<void> {
    if (this.stopped) return;
    this.stopped = true;
    this.lease.stop();
    try {
      await removeByForce(this.container);
      unregister(this.recordId);
    } catch (error) {
      // Gone already; otherwise the record stays for `npm run clean` and the lapsing lease removes the container.
      if (isNotFound(error)) unregister(this.recordId);
    } finally {
      for (const t of this.tunnels) t.close();
    }
  }
}

/** Creates, fills and starts the standby; resolves once it accepts read-only connections. */
export async function startRemoteStandby(r: RemoteStandbyRequest): Promise<RemoteStandby> {
  const ssh = r.endpoint.ssh;
  if (!ssh) throw new Error(`standby ${r.name}: ${r.endpoint.host} is not an ssh:// engine`);
  const docker = dockerClientFor(r.endpoint);
  const image = await resolveImage("postgresql", (e) => r.onProgress?.(`${r.name}: ${e.message}`), {
    forceStandIn: true,
    docker,
  });
  // Host network: the remote 127.0.0.1 is where the reverse tunnel listens.
  const port = randomRemotePort();
  const settings: ServerSettings = {
    ...r.settings,
    port,
    listen_addresses: "127.0.0.1",
    unix_socket_directories: "/var/run/postgresql",
    hot_standby: "on",
  };
  const name = containerName({ engine: "postgresql", name: `05-${r.name}` });
  const timing = leaseTiming(leaseSecondsFromEnv());
  const leased = await leasedCreateOptions(docker, image.image, timing);
  const container = await docker.createContainer({
    name,
    Image: image.image,
    Entrypoint: leased.Entrypoint,
    Cmd: ["postgres", ...settingsToArgs(settings)],
    Env: [`PGDATA=${PGDATA}`],
    Labels: labLabels({ [`${LAB_LABEL}.engine`]: "postgresql", [`${LAB_LABEL}.name`]: r.name }),
    HostConfig: { NetworkMode: "host", ShmSize: 256 * 2 ** 20, AutoRemove: leased.AutoRemove },
  });
  const recordId = register({
    type: "docker-container",
    containerId: container.id,
    description: `container ${name} (standby ${r.name}) on ${r.endpoint.host}`,
    ...endpointRef(r.endpoint),
  });
  // Before the start: the watcher counts from its own start.
  const lease = new LeaseRenewer(container, timing);
  let tunnel: SshTunnel | undefined;
  try {
    await container.putArchive(tarOf(r.dataDirectory, path.posix.basename(PGDATA)), {
      path: path.posix.dirname(PGDATA),
    });
    await container.start();
    lease.start();
    await waitAcceptingReads(container, r.name);
    tunnel = await sshDockerConnection(ssh).tunnel(port);
    const connection: ConnectionInfo = { ...r.credentials, host: "127.0.0.1", port: tunnel.localPort };
    const description: DockerServerDescription & ServerNetwork = {
      engine: "postgresql",
      kind: "docker",
      version: r.version,
      source: image.image,
      standInImage: image.standIn,
      settings,
      address: `127.0.0.1:${tunnel.localPort}`,
      publishedAddress: `127.0.0.1:${port} (host network)`,
      route: "ssh-tunnel",
      dockerHost: dockerHostLabel(r.endpoint),
      dockerHostRttMs: await sshDockerConnection(ssh).rttMs(),
    };
    return new RemoteStandby(
      container.id,
      r.name,
      connection,
      description,
      container,
      recordId,
      [r.tunnel, tunnel],
      lease,
    );
  } catch (error) {
    lease.stop();
    tunnel?.close();
    const logs = await logTail(container, 15);
    await removeByForce(container)
      .then(() => unregister(recordId))
      .catch(ignored("remote standby: remove after a failed start"));
    throw new Error(`standby ${r.name} on ${r.endpoint.host} did not start: ${String(error)}\n${logs}`, {
      cause: error,
    });
  }
}

async function waitAcceptingReads(container: Docker.Container, name: string, timeoutMs = 60_000): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  while (Date.now() < deadline) {
    const info = await container.inspect();
    if (!info.State.Running) throw new Error(`its container exited (${info.State.ExitCode})`);
    const code = await leasedExitCode(container);
    if (code !== undefined) throw new Error(`its server exited (${code})`);
    if (/ready to accept read-only connections/.test(await logTail(container, 50))) return;
    await new Promise((resolve) => setTimeout(resolve, 200));
  }
  throw new Error(`standby ${name} not accepting read-only connections after ${timeoutMs} ms`);
}

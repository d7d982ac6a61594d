/**
 * Which address the lab connects to for a container's server: this machine's bridge address (else
 * the port published on 127.0.0.1); ssh://: the remote 127.0.0.1 through an SSH tunnel; tcp:// TLS:
 * the address named in DBLAB_DOCKER_BIND.
 */
import net from "node:net";
import type Docker from "dockerode";
import type { DockerEndpoint } from "./endpoint";

export interface Placement {
  readonly bindIp: string;
  readonly reach: "local" | "ssh-tunnel" | "bind-address";
  /** The host port is picked here for a local engine; a remote one gets a random port, retried on conflict. */
  readonly pickLocalPort: boolean;
}

/** Where a container's port is published; throws where a database would be exposed on an unnamed network. */
export function placementFor(endpoint: DockerEndpoint, env: NodeJS.ProcessEnv = process.env): Placement {
  const bind = env.DBLAB_DOCKER_BIND;
  if (endpoint.kind === "tcp-tls" && !endpoint.local) {
    if (!bind) {
      throw new Error(
        `The Docker engine is ${endpoint.host} (${endpoint.source}), on another host over TCP: its databases ` +
          "would have to listen on a network interface there, so the lab will not start one until you name the " +
          "address to bind (DBLAB_DOCKER_BIND=<an address of that host that only you can reach>). " +
          "An ssh:// engine needs no such address: the lab reaches its databases through the SSH tunnel.",
      );
    }
    if (net.isIP(bind) === 0) {
      throw new Error(`DBLAB_DOCKER_BIND must be an IP address of the engine's host, got "${bind}"`);
    }
    return { bindIp: bind, reach: "bind-address", pickLocalPort: false };
  }
  if (bind) {
    const where =
      endpoint.kind === "ssh" ? "whose databases the lab reaches through the SSH tunnel" : "on this machine";
    throw new Error(
      `DBLAB_DOCKER_BIND is for a remote tcp:// engine with TLS; the engine here is ${endpoint.host} ` +
        `(${endpoint.source}), ${where}.`,
    );
  }
  if (endpoint.kind === "ssh") return { bindIp: "127.0.0.1", reach: "ssh-tunnel", pickLocalPort: false };
  return { bindIp: "127.0.0.1", reach: "local", pickLocalPort: true };
}

/** Random in 20000–59999, below Linux's ephemeral range. */
export function randomRemotePort(): number {
  return 20_000 + Math.floor(Math.random() * 40_000);
}

export function publishedPort(info: Docker.ContainerInspectInfo, internal: number, bindIp = "127.0.0.1"): number {
  const bindings = info.NetworkSettings.Ports?.[`${internal}/tcp`] ?? [];
  const binding = bindings.find((b) => b.HostIp === bindIp) ?? bindings[0];
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

export function tcpOpens(host: string, port: number, timeoutMs: number): Promise<boolean> {
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
 * The container's bridge address, if the host reaches the server there: the published port goes
 * through docker-proxy, which costs every round trip (docs/targets.md). Docker Desktop's bridge is
 * inside its VM, so there the check fails and the published port is used.
 */
export async function bridgeAddress(
  info: Docker.ContainerInspectInfo,
  internalPort: number,
): Promise<string | undefined> {
  const ip = Object.values(info.NetworkSettings.Networks ?? {}).find((n) => n.IPAddress)?.IPAddress;
  if (!ip) return undefined;
  return (await tcpOpens(ip, internalPort, 500)) ? ip : undefined;
}

export async function tcpConnectRttMs(host: string, port: number, samples = 5): Promise<number | undefined> {
  const times: number[] = [];
  for (let i = 0; i < samples; i++) {
    const started = process.hrtime.bigint();
    if (!(await tcpOpens(host, port, 2000))) return undefined;
    times.push(Number(process.hrtime.bigint() - started) / 1e6);
  }
  times.sort((a, b) => a - b);
  return times[Math.floor(times.length / 2)];
}

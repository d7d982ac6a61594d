/**
 * Which address the lab connects to for a container's server: its bridge address where this
 * host reaches it, else the published port.
 */
import net from "node:net";
import type Docker from "dockerode";

export function publishedPort(info: Docker.ContainerInspectInfo, internal: number): number {
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
export async function bridgeAddress(info: Docker.ContainerInspectInfo, internalPort: number): Promise<string | undefined> {
  const ip = Object.values(info.NetworkSettings.Networks ?? {}).find((n) => n.IPAddress)?.IPAddress;
  if (!ip) return undefined;
  return (await tcpOpens(ip, internalPort, 500)) ? ip : undefined;
}


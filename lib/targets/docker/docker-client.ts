/**
 * One dockerode client per engine and process. The engine is resolved like the Docker CLI does
 * (DOCKER_HOST, DOCKER_CONTEXT, the current context: see endpoint.ts), not by dockerode, which
 * reads DOCKER_HOST only and opens a new SSH connection for every request to an ssh:// engine.
 */
import fs from "node:fs";
import type http from "node:http";
import https from "node:https";
import os from "node:os";
import Docker from "dockerode";
import { stateRoot } from "../../runtime/resource-registry";
import { resolveEndpoint, type DockerEndpoint } from "./endpoint";
import { sshEngineConnection } from "./ssh-engine";

const clients = new Map<string, Docker>();

function read(file: string | undefined): Buffer | undefined {
  return file ? fs.readFileSync(file) : undefined;
}

/**
 * docker-modem starts from DOCKER_HOST's settings and lays the given options over them: with
 * DOCKER_HOST=ssh://… in the environment, `{ socketPath }` alone would still go over SSH. Every
 * field it would take from there is named here.
 */
const NOT_FROM_ENV = { host: undefined, port: undefined, protocol: "http", ca: undefined, cert: undefined, key: undefined } as const;

/** A client for an engine socket, whatever DOCKER_HOST says. */
export function socketClient(socketPath: string): Docker {
  return new Docker({ ...NOT_FROM_ENV, socketPath });
}

function createClient(endpoint: DockerEndpoint): Docker {
  switch (endpoint.kind) {
    case "unix":
      return socketClient(endpoint.host.slice("unix://".length) || "/var/run/docker.sock");
    case "npipe":
      return socketClient(endpoint.host.slice("npipe://".length) || "//./pipe/docker_engine");
    case "ssh": {
      if (!endpoint.ssh) throw new Error(`${endpoint.host}: no ssh target`);
      // Plain HTTP over channels of the engine's one SSH connection (ssh-engine.ts); the host
      // name below only fills the request line.
      const connection = sshEngineConnection(endpoint.ssh);
      // docker-modem passes `agent` to every request; @types/dockerode does not list it.
      const options: Docker.DockerOptions & { agent: http.Agent } = {
        ...NOT_FROM_ENV,
        protocol: "http",
        host: "docker-over-ssh",
        port: 80,
        agent: connection.agent,
      };
      return new Docker(options);
    }
    case "tcp":
    case "tcp-tls": {
      const url = new URL(endpoint.host.replace(/^tcp:/, "http:"));
      const tls = endpoint.tls;
      const port = Number(url.port || (tls ? 2376 : 2375));
      if (!tls) return new Docker({ ...NOT_FROM_ENV, protocol: "http", host: url.hostname, port });
      // An agent of our own: docker-modem does not pass rejectUnauthorized on, which a context's
      // SkipTLSVerify needs (as `docker --tls` without --tlsverify).
      const agent = new https.Agent({
        ca: read(tls.ca),
        cert: read(tls.cert),
        key: read(tls.key),
        rejectUnauthorized: tls.verify,
      });
      const options: Docker.DockerOptions & { agent: https.Agent } = {
        ...NOT_FROM_ENV,
        protocol: "https",
        host: url.hostname,
        port,
        agent,
      };
      return new Docker(options);
    }
  }
}

/** The client for `endpoint` (default: the engine the environment names, see endpoint.ts). */
export function dockerClientFor(endpoint: DockerEndpoint): Docker {
  let client = clients.get(endpoint.host);
  if (!client) {
    client = createClient(endpoint);
    clients.set(endpoint.host, client);
  }
  return client;
}

/** The engine the environment names now (DOCKER_HOST, DOCKER_CONTEXT, current context). */
export function currentEndpoint(): DockerEndpoint {
  return resolveEndpoint();
}

/** The client of the engine the environment names. Throws for an unusable engine address. */
export function dockerClient(): Docker {
  return dockerClientFor(currentEndpoint());
}

/** Rejects after `ms` with `message`; for calls that could otherwise wait on a dead engine forever. */
export function withTimeout<T>(promise: Promise<T>, ms: number, message: string): Promise<T> {
  let timer: NodeJS.Timeout | undefined;
  return Promise.race([
    promise,
    new Promise<never>((_, reject) => {
      timer = setTimeout(() => reject(new Error(message)), ms);
      timer.unref();
    }),
  ]).finally(() => clearTimeout(timer));
}

/**
 * True when a Docker daemon answers a ping within `timeoutMs`. An ssh:// engine gets longer by
 * default: the first ping includes the SSH handshake.
 */
export async function dockerAvailable(timeoutMs?: number): Promise<boolean> {
  try {
    const endpoint = currentEndpoint();
    const limit = timeoutMs ?? (endpoint.local ? 1500 : 10_000);
    await withTimeout(dockerClientFor(endpoint).ping(), limit, "timeout");
    return true;
  } catch {
    return false;
  }
}

/** Labels on everything the lab creates, so `npm run clean` can find it without records. */
export const LAB_LABEL = "io.db-write-lab";
export function labLabels(extra: Record<string, string> = {}): Record<string, string> {
  return {
    [LAB_LABEL]: "true",
    [`${LAB_LABEL}.owner-pid`]: String(process.pid),
    // On a remote engine shared by several machines, a pid alone does not say whose it is.
    [`${LAB_LABEL}.owner-host`]: os.hostname(),
    // Which lab state folder (DBLAB_STATE_DIR) holds its record: tells parallel labs' containers apart.
    [`${LAB_LABEL}.state-dir`]: stateRoot(),
    ...extra,
  };
}

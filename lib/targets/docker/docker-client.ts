/** One dockerode client per engine and process, the engine resolved as the Docker CLI does (endpoint.ts). */
import fs from "node:fs";
import type http from "node:http";
import https from "node:https";
import os from "node:os";
import Docker from "dockerode";
import { stateRoot } from "../../runtime/resource-registry";
import { ignored } from "../../runtime/debug";
import { setContainerRemover, type DockerContainerRecord } from "../../runtime/reaper";
import { endpointFromRef, resolveEndpoint, type DockerEndpoint } from "./endpoint";
import { sshDockerConnection } from "./ssh-docker-host";
import { DockerHostLossError } from "../errors";
import { withTimeout } from "../../runtime/timeout";
import { errorMessage } from "../../runtime/error-message";

const clients = new Map<string, Docker>();

function read(file: string | undefined): Buffer | undefined {
  return file ? fs.readFileSync(file) : undefined;
}

/** docker-modem lays options over DOCKER_HOST's settings, so every field it would take from there is named here. */
const NOT_FROM_ENV = {
  host: undefined,
  port: undefined,
  protocol: "http",
  ca: undefined,
  cert: undefined,
  key: undefined,
} as const;

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
      // Plain HTTP over channels of the engine's SSH connection; the host name only fills the request line.
      const connection = sshDockerConnection(endpoint.ssh);
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
      // Our own agent: docker-modem does not pass rejectUnauthorized on, which SkipTLSVerify needs.
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

export function dockerClientFor(endpoint: DockerEndpoint): Docker {
  let client = clients.get(endpoint.host);
  if (!client) {
    client = createClient(endpoint);
    clients.set(endpoint.host, client);
  }
  return client;
}

export function currentEndpoint(): DockerEndpoint {
  return resolveEndpoint();
}

export function dockerClient(): Docker {
  return dockerClientFor(currentEndpoint());
}

/** A daemon answers a ping within `timeoutMs` (longer by default for ssh://: the handshake). */
export async function dockerAvailable(timeoutMs?: number): Promise<boolean> {
  try {
    const endpoint = currentEndpoint();
    const limit = timeoutMs ?? (endpoint.local ? 1500 : 10_000);
    await withTimeout(dockerClientFor(endpoint).ping(), limit, "timeout");
    return true;
  } catch (error) {
    ignored("docker: ping the daemon")(error);
    return false;
  }
}

/** Labels on everything the lab creates, so `npm run clean` finds it without records. */
export const LAB_LABEL = "io.db-write-lab";
export function labLabels(extra: Record<string, string> = {}): Record<string, string> {
  return {
    [LAB_LABEL]: "true",
    [`${LAB_LABEL}.owner-pid`]: String(process.pid),
    // On an engine shared by several machines a pid alone does not say whose it is.
    [`${LAB_LABEL}.owner-host`]: os.hostname(),
    // The lab state folder holding its record: tells parallel labs' containers apart.
    [`${LAB_LABEL}.state-dir`]: stateRoot(),
    ...extra,
  };
}

export function dockerEndpoint(): string {
  try {
    return currentEndpoint().host;
  } catch {
    return process.env.DOCKER_HOST ?? "unix:///var/run/docker.sock";
  }
}

// Errors reaching the engine itself, not its answers: ENOENT (stopped daemon), ECONNRESET (died
// mid-request), ETIMEDOUT (withDockerTimeout).
const UNREACHABLE = new Set([
  "ENOENT",
  "ECONNREFUSED",
  "ECONNRESET",
  "EPIPE",
  "ETIMEDOUT",
  "EHOSTUNREACH",
  "ECONNABORTED",
]);

export function isDockerHostUnreachable(error: unknown): boolean {
  const code = (error as { code?: unknown } | null)?.code;
  return (
    typeof code === "string" && UNREACHABLE.has(code) && (error as { statusCode?: unknown }).statusCode === undefined
  );
}

export class DockerHostGoneError extends DockerHostLossError {
  override readonly name = "DockerHostGoneError";
  constructor(lost: string, cause: unknown, where = dockerEndpoint()) {
    super(`the Docker engine at ${where} went away; ${lost} was lost (${errorMessage(cause)})`, { cause });
  }
}

/** The link to a remote engine dropped under a server, but the engine answers again. */
export class DockerHostLinkLostError extends DockerHostLossError {
  override readonly name = "DockerHostLinkLostError";
  constructor(lost: string, cause: unknown, where: string) {
    super(
      `the connection to the Docker engine at ${where} dropped; ${lost} lost its connection ` +
        `(${errorMessage(cause)}); the engine answers again`,
      { cause },
    );
  }
}

/** Races a Docker call against a bound (a frozen daemon never answers); the timeout carries ETIMEDOUT. */
export async function withDockerTimeout<T>(call: Promise<T>, timeoutMs = 15_000, where = dockerEndpoint()): Promise<T> {
  try {
    return await withTimeout(
      call,
      timeoutMs,
      `the Docker engine at ${where} did not answer within ${timeoutMs / 1000} s`,
    );
  } catch (error) {
    if (error instanceof Error && error.message.startsWith(`the Docker engine at ${where} did not answer`)) {
      throw Object.assign(error, { code: "ETIMEDOUT" });
    }
    throw error;
  }
}

const REMOVE_TIMEOUT_MS = 30_000;
const unreachableEngines = new Map<string, { readonly reason: string; readonly at: number }>();
const UNREACHABLE_MEMORY_MS = 60_000;

/** The error for an engine that did not answer in the last minute, so it is not waited on again per removal. */
export function recentlyUnreachable(where: string): Error | undefined {
  const known = unreachableEngines.get(where);
  if (!known || Date.now() - known.at >= UNREACHABLE_MEMORY_MS) return undefined;
  return Object.assign(new Error(`the Docker engine at ${where} did not answer a moment ago: ${known.reason}`), {
    code: "ETIMEDOUT",
  });
}

export function noteIfUnreachable(where: string, error: unknown): void {
  if ((error as { statusCode?: number }).statusCode === undefined)
    unreachableEngines.set(where, { reason: errorMessage(error), at: Date.now() });
}

/** Removes a recorded container on the engine its record names, not today's; bounded by REMOVE_TIMEOUT_MS. */
export async function removeRecordedContainer(resource: DockerContainerRecord): Promise<void> {
  const docker = resource.dockerHost
    ? dockerClientFor(endpointFromRef({ dockerHost: resource.dockerHost, dockerContext: resource.dockerContext }))
    : dockerClient();
  const where = resource.dockerHost ?? dockerEndpoint();
  const known = recentlyUnreachable(where);
  if (known) throw known;
  const container = docker.getContainer(resource.containerId);
  try {
    await withDockerTimeout(container.remove({ force: true, v: true }), REMOVE_TIMEOUT_MS, where);
  } catch (error) {
    const status = (error as { statusCode?: number }).statusCode;
    if (status === 404) return;
    noteIfUnreachable(where, error);
    // 409 "removal … already in progress": the owner's own removal, cut short by its exit, still runs there.
    if (status !== 409) throw error;
    const deadline = Date.now() + 30_000;
    for (;;) {
      try {
        await withDockerTimeout(container.inspect(), REMOVE_TIMEOUT_MS, where);
      } catch (inspectError) {
        if ((inspectError as { statusCode?: number }).statusCode === 404) return;
        throw inspectError;
      }
      if (Date.now() > deadline) throw error;
      await new Promise((resolve) => setTimeout(resolve, 250));
    }
  }
}

// Loading this module lets the reaper remove containers (setContainerRemover).
setContainerRemover({
  remove: removeRecordedContainer,
  reasonKept: (resource, error) => {
    const where = resource.dockerHost ?? dockerEndpoint();
    return isDockerHostUnreachable(error)
      ? `the Docker engine at ${where} cannot be reached (${errorMessage(error)})`
      : `on the Docker engine at ${where}: ${errorMessage(error)}`;
  },
});

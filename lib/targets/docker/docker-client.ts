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
import { ignored } from "../../runtime/debug";
import { setContainerRemover, type DockerContainerRecord } from "../../runtime/reaper";
import { endpointFromRef, resolveEndpoint, type DockerEndpoint } from "./endpoint";
import { sshDockerConnection } from "./ssh-docker-host";
import { DockerHostLossError } from "../errors";
import { withTimeout } from "../../runtime/timeout";

const clients = new Map<string, Docker>();

function read(file: string | undefined): Buffer | undefined {
  return file ? fs.readFileSync(file) : undefined;
}

/**
 * docker-modem starts from DOCKER_HOST's settings and lays the given options over them: with
 * DOCKER_HOST=ssh://… in the environment, `{ socketPath }` alone would still go over SSH. Every
 * field it would take from there is named here.
 */
const NOT_FROM_ENV = {
  host: undefined,
  port: undefined,
  protocol: "http",
  ca: undefined,
  cert: undefined,
  key: undefined,
} as const;

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
      // Plain HTTP over channels of the engine's one SSH connection (ssh-docker-host.ts); the host
      // name below only fills the request line.
      const connection = sshDockerConnection(endpoint.ssh);
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
  } catch (error) {
    ignored("docker: ping the daemon")(error);
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

/** Where the engine the environment names is (DOCKER_HOST, DOCKER_CONTEXT, current context), for messages. */
export function dockerEndpoint(): string {
  try {
    return currentEndpoint().host;
  } catch {
    return process.env.DOCKER_HOST ?? "unix:///var/run/docker.sock"; // an unusable address: say what was given
  }
}

// Errors of the connection to the engine itself (socket missing, refused, dropped), not answers it
// gave: ENOENT is what a stopped daemon leaves (its socket is removed), ECONNRESET what a daemon
// dying mid-request leaves; ETIMEDOUT comes from withDockerTimeout below.
const UNREACHABLE = new Set([
  "ENOENT",
  "ECONNREFUSED",
  "ECONNRESET",
  "EPIPE",
  "ETIMEDOUT",
  "EHOSTUNREACH",
  "ECONNABORTED",
]);

/** True when `error` says the Docker engine could not be reached (rather than that it refused). */
export function isDockerHostUnreachable(error: unknown): boolean {
  const code = (error as { code?: unknown } | null)?.code;
  return (
    typeof code === "string" && UNREACHABLE.has(code) && (error as { statusCode?: unknown }).statusCode === undefined
  );
}

/** A one-line cause: "connect ENOENT /var/run/docker.sock" rather than a stack. */
export function errorText(error: unknown): string {
  return error instanceof Error ? error.message : String(error);
}

/** The error a user sees when the engine under a running server went away. */
export class DockerHostGoneError extends DockerHostLossError {
  override readonly name = "DockerHostGoneError";
  /**
   * `lost` names the server, e.g. "the PostgreSQL 17.6 server (docker, 172.17.0.2:5432)";
   * `where` the engine (default: the one the environment names), e.g. "ssh://lab (10.0.0.5)".
   */
  constructor(lost: string, cause: unknown, where = dockerEndpoint()) {
    super(`the Docker engine at ${where} went away; ${lost} was lost (${errorText(cause)})`, { cause });
  }
}

/** Said when the link to a remote engine dropped under a server but the engine answers again. */
export class DockerHostLinkLostError extends DockerHostLossError {
  override readonly name = "DockerHostLinkLostError";
  constructor(lost: string, cause: unknown, where: string) {
    super(
      `the connection to the Docker engine at ${where} dropped; ${lost} lost its connection ` +
        `(${errorText(cause)}); the engine answers again`,
      { cause },
    );
  }
}

/**
 * Races a Docker call against a bound: a daemon that is frozen (rather than stopped) never answers,
 * and a reaper or `npm run clean` must not wait on it forever. The timeout carries code ETIMEDOUT,
 * so isDockerHostUnreachable() reads it as the engine not answering.
 */
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

/** How long removing one container may take before its engine counts as unreachable (record kept). */
const REMOVE_TIMEOUT_MS = 30_000;
/**
 * Engines that did not answer in the last minute: their other records are kept at once rather
 * than after another wait each (a long-lived kernel asks again after that).
 */
const unreachableEngines = new Map<string, { readonly reason: string; readonly at: number }>();
const UNREACHABLE_MEMORY_MS = 60_000;

/**
 * The error for an engine that did not answer within the last minute, or undefined. Measured on a
 * tcp:// TLS engine whose host vanished: the stalled trial's removal waited its 30 s, the ping that
 * words the error 10 s more, and the session's own stop at the end another 30 s (82 s from the
 * stall to the error). Within the minute the ping is not sent again and a removal gets a short
 * bound (docker-target.ts); recorded containers are kept at once (removeRecordedContainer).
 */
export function recentlyUnreachable(where: string): Error | undefined {
  const known = unreachableEngines.get(where);
  if (!known || Date.now() - known.at >= UNREACHABLE_MEMORY_MS) return undefined;
  return Object.assign(new Error(`the Docker engine at ${where} did not answer a moment ago: ${known.reason}`), {
    code: "ETIMEDOUT",
  });
}

/** Notes that the engine at `where` was not reached (no HTTP status: SSH or TCP failed, or it timed out). */
export function noteIfUnreachable(where: string, error: unknown): void {
  if ((error as { statusCode?: number }).statusCode === undefined)
    unreachableEngines.set(where, { reason: errorText(error), at: Date.now() });
}

/**
 * Removes a recorded container on the engine its record names (a remote one over the same kind of
 * connection it was made with), not on whatever engine today's environment names. An engine that
 * does not answer is an error within REMOVE_TIMEOUT_MS; the reaper keeps the record for later.
 */
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
    // 409 "removal … already in progress": the owner's own removal, cut short by its exit, is
    // still running in the engine. Seen here after SIGTERM to `npm run reproduce` on the Docker
    // target: the detached reaper met it, kept the record, and a stale record stayed behind.
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

// Loading this module is what lets the reaper remove containers (see setContainerRemover).
setContainerRemover({
  remove: removeRecordedContainer,
  reasonKept: (resource, error) => {
    const where = resource.dockerHost ?? dockerEndpoint();
    return isDockerHostUnreachable(error)
      ? `the Docker engine at ${where} cannot be reached (${errorText(error)})`
      : `on the Docker engine at ${where}: ${errorText(error)}`;
  },
});

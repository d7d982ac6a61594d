/**
 * Which Docker engine the lab talks to, resolved as the Docker CLI does (dockerode reads DOCKER_HOST
 * only); tcp:// without TLS to another host is refused.
 */
import { createHash } from "node:crypto";
import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import { resolveSsh, type ResolvedSsh } from "./ssh-config";
import { errorMessage } from "../../runtime/error-message";

export type EndpointKind = "unix" | "npipe" | "ssh" | "tcp-tls" | "tcp";

export interface TlsFiles {
  readonly ca?: string;
  readonly cert?: string;
  readonly key?: string;
  /** False when the context says SkipTLSVerify (or DOCKER_TLS without DOCKER_TLS_VERIFY). */
  readonly verify: boolean;
}

export type SshTarget = ResolvedSsh;

export interface DockerEndpoint {
  /** DOCKER_HOST form, e.g. "ssh://root@10.0.0.5". */
  readonly host: string;
  readonly context?: string;
  readonly source: string;
  readonly kind: EndpointKind;
  /** Its bridge and its 127.0.0.1 are ours too. */
  readonly local: boolean;
  readonly ssh?: SshTarget;
  readonly tls?: TlsFiles;
}

/** Whether a host passed through a generic type (`StandbySpec.on`) is a resolved endpoint. */
export function isDockerEndpoint(host: { readonly host: string }): host is DockerEndpoint {
  const e = host as Partial<DockerEndpoint>;
  return typeof e.source === "string" && typeof e.kind === "string" && typeof e.local === "boolean";
}

const DEFAULT_SOCKET = "unix:///var/run/docker.sock";

export function dockerConfigDir(env: NodeJS.ProcessEnv = process.env): string {
  return env.DOCKER_CONFIG || path.join(os.homedir(), ".docker");
}

function isLoopback(hostname: string): boolean {
  const h = hostname.replace(/^\[|\]$/g, "");
  return h === "localhost" || h === "::1" || /^127\.\d+\.\d+\.\d+$/.test(h);
}

/** The engine named by a DOCKER_HOST-style address; throws for a form the lab cannot use. */
export function endpointFromHost(host: string, source: string, tls?: TlsFiles, context?: string): DockerEndpoint {
  const scheme = /^([a-z]+):\/\//.exec(host)?.[1];
  const base = { host, source, context };
  switch (scheme) {
    case "unix":
      return { ...base, kind: "unix", local: true };
    case "npipe":
      return { ...base, kind: "npipe", local: true };
    case "ssh": {
      let url: URL;
      try {
        url = new URL(host);
      } catch {
        throw new Error(`${source}: "${host}" is not an ssh://[user@]host[:port] address`);
      }
      if (!url.hostname || (url.pathname && url.pathname !== "/")) {
        throw new Error(`${source}: "${host}" is not an ssh://[user@]host[:port] address (no path allowed)`);
      }
      let ssh: SshTarget;
      try {
        ssh = resolveSsh({
          host: url.hostname.replace(/^\[|\]$/g, ""),
          user: decodeURIComponent(url.username) || undefined,
          port: url.port ? Number(url.port) : undefined,
        });
      } catch (error) {
        throw new Error(`${source} is ${host}: ${errorMessage(error)}`);
      }
      return { ...base, kind: "ssh", local: false, ssh };
    }
    case "tcp":
    case "http":
    case "https": {
      let url: URL;
      try {
        url = new URL(host.replace(/^tcp:/, "http:"));
      } catch {
        throw new Error(`${source}: "${host}" is not a tcp://host:port address`);
      }
      const local = isLoopback(url.hostname);
      if (tls || scheme === "https") return { ...base, kind: "tcp-tls", local, tls: tls ?? { verify: true } };
      if (!local) {
        throw new Error(
          `${source} is ${host}: a Docker engine over plain tcp:// (no TLS) to another host is refused, because ` +
            "anyone on that network can run containers there, and the lab's databases would be exposed with it. " +
            "Use ssh://user@host (the lab then tunnels to the database over SSH), or TLS " +
            "(DOCKER_TLS_VERIFY=1 and DOCKER_CERT_PATH, or a docker context with TLS).",
        );
      }
      return { ...base, kind: "tcp", local };
    }
    default:
      throw new Error(`${source}: "${host}" is not a Docker engine address (unix://, ssh://, tcp://, npipe://)`);
  }
}

interface ContextMeta {
  readonly Name?: string;
  readonly Endpoints?: { readonly docker?: { readonly Host?: string; readonly SkipTLSVerify?: boolean } };
}

function readJson<T>(file: string): T | undefined {
  let text: string;
  try {
    text = fs.readFileSync(file, "utf8");
  } catch {
    return undefined;
  }
  try {
    return JSON.parse(text) as T;
  } catch (error) {
    throw new Error(`${file} is not valid JSON: ${String(error)}`);
  }
}

export function contextDirName(name: string): string {
  return createHash("sha256").update(name).digest("hex");
}

function endpointFromContext(name: string, configDir: string, why: string): DockerEndpoint {
  if (name === "default") return defaultEndpoint(`${why} "default"`);
  const id = contextDirName(name);
  const metaFile = path.join(configDir, "contexts", "meta", id, "meta.json");
  const meta = readJson<ContextMeta>(metaFile);
  const source = `docker context "${name}" (${why})`;
  if (!meta) {
    throw new Error(`${source} does not exist: no ${metaFile} (docker context ls lists the contexts)`);
  }
  const docker = meta.Endpoints?.docker;
  if (!docker?.Host) throw new Error(`${source} has no docker endpoint in ${metaFile}`);
  const tlsDir = path.join(configDir, "contexts", "tls", id, "docker");
  const file = (f: string): string | undefined =>
    fs.existsSync(path.join(tlsDir, f)) ? path.join(tlsDir, f) : undefined;
  const tlsFiles = { ca: file("ca.pem"), cert: file("cert.pem"), key: file("key.pem") };
  const hasTls = Boolean(tlsFiles.ca || tlsFiles.cert) || docker.SkipTLSVerify === true;
  const tls = hasTls ? { ...tlsFiles, verify: docker.SkipTLSVerify !== true } : undefined;
  return endpointFromHost(docker.Host, source, tls, name);
}

function defaultEndpoint(source = "the default socket"): DockerEndpoint {
  return endpointFromHost(DEFAULT_SOCKET, source);
}

function tlsFromEnv(env: NodeJS.ProcessEnv): TlsFiles | undefined {
  const verify = Boolean(env.DOCKER_TLS_VERIFY);
  if (!verify && !env.DOCKER_TLS) return undefined;
  const dir = env.DOCKER_CERT_PATH || dockerConfigDir(env);
  const file = (f: string): string | undefined => (fs.existsSync(path.join(dir, f)) ? path.join(dir, f) : undefined);
  return { ca: file("ca.pem"), cert: file("cert.pem"), key: file("key.pem"), verify };
}

/** The engine the Docker CLI would use with this environment; throws for an unusable or unsafe one. */
export function resolveEndpoint(env: NodeJS.ProcessEnv = process.env): DockerEndpoint {
  if (env.DOCKER_HOST) return endpointFromHost(env.DOCKER_HOST, "DOCKER_HOST", tlsFromEnv(env));
  const configDir = dockerConfigDir(env);
  if (env.DOCKER_CONTEXT) return endpointFromContext(env.DOCKER_CONTEXT, configDir, "DOCKER_CONTEXT");
  const config = readJson<{ currentContext?: string }>(path.join(configDir, "config.json"));
  if (config?.currentContext) {
    return endpointFromContext(config.currentContext, configDir, `current context in ${configDir}/config.json`);
  }
  return defaultEndpoint();
}

export interface EndpointRef {
  readonly dockerHost: string;
  readonly dockerContext?: string;
}

export function endpointRef(endpoint: DockerEndpoint): EndpointRef {
  return endpoint.context
    ? { dockerHost: endpoint.host, dockerContext: endpoint.context }
    : { dockerHost: endpoint.host };
}

/** The engine a record names: its context read again, else the stored address. */
export function endpointFromRef(ref: EndpointRef, env: NodeJS.ProcessEnv = process.env): DockerEndpoint {
  if (ref.dockerContext) {
    try {
      const fromContext = endpointFromContext(ref.dockerContext, dockerConfigDir(env), "recorded");
      if (fromContext.host === ref.dockerHost) return fromContext;
    } catch {
      // The context was removed or changed since: use the stored address.
    }
  }
  const current = env.DOCKER_HOST === ref.dockerHost ? tlsFromEnv(env) : undefined;
  return endpointFromHost(ref.dockerHost, "recorded engine", current);
}

export function dockerHostLabel(endpoint: DockerEndpoint): string {
  if (endpoint.local) return "this machine";
  if (endpoint.ssh) return `${sshHostLabel(endpoint.ssh)} (ssh)`;
  return new URL(endpoint.host.replace(/^tcp:/, "https:")).host;
}

export function sshHostLabel(t: SshTarget): string {
  const where = `${t.host}${t.port === 22 ? "" : `:${t.port}`}`;
  return t.alias === t.host ? where : `${t.alias} (${where})`;
}

/**
 * ~/.ssh/config for ssh:// engines, read as OpenSSH does (the Docker CLI shells out to `ssh`; the
 * lab's ssh2 reads no config), by the `ssh-config` package. ProxyJump/ProxyCommand are refused, since
 * connecting directly would reach another place than `ssh`; `Match exec` is never run.
 */
import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import SSHConfig from "ssh-config";

/** The host (maybe an alias), and user and port if given. */
export interface SshAddress {
  readonly host: string;
  readonly user?: string;
  readonly port?: number;
}

export interface ResolvedSsh {
  readonly alias: string;
  /** HostName from the config, else the alias. */
  readonly host: string;
  readonly user: string;
  readonly port: number;
  /** Expanded; empty: OpenSSH's defaults. */
  readonly identityFiles: readonly string[];
  /** Only identityFiles are offered, not the agent's keys. */
  readonly identitiesOnly: boolean;
  /** The known_hosts lookup name instead of host and port. */
  readonly hostKeyAlias?: string;
  /** Expanded (default ~/.ssh/known_hosts). */
  readonly knownHostsFiles?: readonly string[];
}

export interface SshConfigOptions {
  /** Default ~/.ssh/config, /etc/ssh/ssh_config. */
  readonly files?: readonly string[];
  readonly home?: string;
  readonly localUser?: string;
}

export function defaultSshConfigFiles(home = os.homedir()): string[] {
  return [path.join(home, ".ssh", "config"), "/etc/ssh/ssh_config"];
}

function first(value: string | string[] | undefined): string | undefined {
  return Array.isArray(value) ? value[0] : value;
}

function all(value: string | string[] | undefined): string[] {
  if (value === undefined) return [];
  return Array.isArray(value) ? value : [value];
}

/** OpenSSH's tokens in HostName and file names. */
function expand(text: string, tokens: Record<string, string>, home: string): string {
  const withHome = text === "~" ? home : text.startsWith("~/") ? path.join(home, text.slice(2)) : text;
  return withHome.replace(/%(.)/g, (whole, c: string) => (c === "%" ? "%" : (tokens[c] ?? whole)));
}

function parsePort(raw: string, file: string, alias: string): number {
  const port = Number(raw);
  if (!Number.isInteger(port) || port < 1 || port > 65_535) {
    throw new Error(`${file}: Port "${raw}" for host ${alias} is not a port number`);
  }
  return port;
}

/** The settings for `address` as `ssh` would take them; throws before connecting for a config the lab cannot honour. */
export function resolveSsh(address: SshAddress, options: SshConfigOptions = {}): ResolvedSsh {
  const home = options.home ?? os.homedir();
  const localUser = options.localUser ?? os.userInfo().username;
  const files = options.files ?? defaultSshConfigFiles(home);
  // All files in order: OpenSSH takes the first value any gives.
  const computed: Record<string, string | string[]> = {};
  let sourceOf: Record<string, string> = {};
  for (const file of files) {
    let text: string;
    try {
      text = fs.readFileSync(file, "utf8");
    } catch {
      continue;
    }
    let parsed: SSHConfig;
    try {
      parsed = SSHConfig.parse(text);
    } catch (error) {
      throw new Error(`${file} could not be read as an ssh config: ${String(error)}`);
    }
    const values = parsed.compute(address.user ? { Host: address.host, User: address.user } : { Host: address.host }, {
      ignoreCase: true,
      matchExec: false,
    });
    for (const [key, value] of Object.entries(values)) {
      if (key === "host" || key === "match") continue;
      if (key === "identityfile" || key === "userknownhostsfile") {
        computed[key] = [...all(computed[key]), ...all(value)];
      } else if (!(key in computed)) {
        computed[key] = value;
        sourceOf = { ...sourceOf, [key]: file };
      }
    }
  }
  for (const key of ["proxyjump", "proxycommand"]) {
    const value = first(computed[key]);
    if (value !== undefined && value.toLowerCase() !== "none") {
      throw new Error(
        `${sourceOf[key]}: host ${address.host} is reached through ${key === "proxyjump" ? "ProxyJump" : "ProxyCommand"} ` +
          `${value}, which the lab's SSH connection does not support; name a host it can reach directly ` +
          "(e.g. forward a port with `ssh -L` and use ssh://user@127.0.0.1:port)",
      );
    }
  }
  const hostName = first(computed.hostname);
  const host = hostName ? expand(hostName, { h: address.host }, home) : address.host;
  const user = address.user ?? first(computed.user) ?? localUser;
  const portText = first(computed.port);
  const port = address.port ?? (portText ? parsePort(portText, sourceOf.port, address.host) : 22);
  const tokens = { d: home, u: localUser, r: user, h: host };
  const identityFiles = [...new Set(all(computed.identityfile).map((f) => expand(f, tokens, home)))];
  const knownHosts = all(computed.userknownhostsfile)
    .flatMap((v) => v.split(/\s+/))
    .filter((v) => v && v.toLowerCase() !== "none")
    .map((f) => expand(f, tokens, home));
  const hostKeyAlias = first(computed.hostkeyalias);
  return {
    alias: address.host,
    host,
    user,
    port,
    identityFiles,
    identitiesOnly: first(computed.identitiesonly)?.toLowerCase() === "yes",
    ...(hostKeyAlias ? { hostKeyAlias } : {}),
    ...(knownHosts.length ? { knownHostsFiles: knownHosts } : {}),
  };
}

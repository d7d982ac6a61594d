/**
 * ~/.ssh/config for ssh:// engines, read as OpenSSH reads it: the Docker CLI shells out to `ssh`,
 * so `DOCKER_HOST=ssh://myalias` with `Host myalias / HostName / User / Port / IdentityFile` works
 * there, and must work here (the lab's connection is ssh2, which reads no config of its own).
 *
 * Parsed by the `ssh-config` package (Host patterns with `*`, `?` and `!`, first value wins, as
 * OpenSSH), not by hand. Read from ~/.ssh/config, then /etc/ssh/ssh_config (OpenSSH's order).
 * Keys used: HostName, User, Port, IdentityFile (with `~` and %d %u %r %h %%), IdentitiesOnly,
 * HostKeyAlias, UserKnownHostsFile. A user or port in the address wins over the file, as
 * `ssh -l`/`-p` do. A host that needs a jump host or a proxy command (ProxyJump, ProxyCommand)
 * is refused with that reason: the lab would otherwise connect directly, to another place than
 * `ssh` would. `Match exec` blocks are never run (they would run shell commands).
 */
import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import SSHConfig from "ssh-config";

/** What the address names: the host (maybe an alias), and user and port if it gave them. */
export interface SshAddress {
  readonly host: string;
  readonly user?: string;
  readonly port?: number;
}

/** Where the lab connects for an ssh:// engine, after ~/.ssh/config. */
export interface ResolvedSsh {
  /** The name in the address (an alias, or the host itself). */
  readonly alias: string;
  /** HostName from the config, else the alias. */
  readonly host: string;
  readonly user: string;
  readonly port: number;
  /** IdentityFile entries, expanded; empty: OpenSSH's defaults (~/.ssh/id_ed25519, id_ecdsa, id_rsa). */
  readonly identityFiles: readonly string[];
  /** IdentitiesOnly yes: the agent's keys are not offered, only identityFiles. */
  readonly identitiesOnly: boolean;
  /** HostKeyAlias: the name the host key is looked up under in known_hosts, instead of host and port. */
  readonly hostKeyAlias?: string;
  /** UserKnownHostsFile entries, expanded (default ~/.ssh/known_hosts). */
  readonly knownHostsFiles?: readonly string[];
}

export interface SshConfigOptions {
  /** Config files in order (default ~/.ssh/config, /etc/ssh/ssh_config). */
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

/** OpenSSH's tokens in HostName (%h, %%) and in file names (~, %d, %u, %r, %h, %%). */
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

/**
 * The connection settings for `address` as `ssh` would take them. Throws, before anything
 * connects, for a config the lab cannot honour (a proxy or jump host, a bad port).
 */
export function resolveSsh(address: SshAddress, options: SshConfigOptions = {}): ResolvedSsh {
  const home = options.home ?? os.homedir();
  const localUser = options.localUser ?? os.userInfo().username;
  const files = options.files ?? defaultSshConfigFiles(home);
  // One parse of all files in order: OpenSSH takes the first value any of them gives.
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

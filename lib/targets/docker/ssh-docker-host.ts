/**
 * One ssh2 connection per remote engine for both the Docker API (`docker system dial-stdio` channels,
 * as the CLI) and the database tunnels; docker-modem's transport reconnects per request. Config, keys
 * and known_hosts as OpenSSH reads them; a host key is never accepted blindly.
 */
import { createHmac } from "node:crypto";
import fs from "node:fs";
import http from "node:http";
import net from "node:net";
import os from "node:os";
import path from "node:path";
import type { Duplex } from "node:stream";
import { Client, utils as sshUtils, type AnyAuthMethod, type TcpConnectionDetails } from "ssh2";
import { sshHostLabel, type SshTarget } from "./endpoint";
import { ignored } from "../../runtime/debug";

/** Connect plus handshake, before the engine counts as unreachable. */
const READY_TIMEOUT_MS = 10_000;
const KEEPALIVE_MS = 10_000;

function sshTargetLabel(t: SshTarget): string {
  return `${t.user}@${sshHostLabel(t)}`;
}

// known_hosts

/** The known_hosts name: HostKeyAlias, else "host" on port 22, "[host]:port" otherwise. */
export function knownHostsName(t: Pick<SshTarget, "host" | "port" | "hostKeyAlias">): string {
  if (t.hostKeyAlias) return t.hostKeyAlias;
  return t.port === 22 ? t.host : `[${t.host}]:${t.port}`;
}

function globMatch(pattern: string, name: string): boolean {
  const source = pattern
    .replace(/[.+^${}()|[\]\\]/g, "\\$&")
    .replace(/\*/g, ".*")
    .replace(/\?/g, ".");
  return new RegExp(`^${source}$`, "i").test(name);
}

/** One known_hosts host field against `name` (plain, wildcard, negated or hashed). */
function hostFieldMatches(field: string, name: string): boolean {
  if (field.startsWith("|1|")) {
    const [, , salt, hash] = field.split("|");
    if (!salt || !hash) return false;
    return createHmac("sha1", Buffer.from(salt, "base64")).update(name).digest("base64") === hash;
  }
  let matched = false;
  for (const pattern of field.split(",")) {
    if (pattern.startsWith("!")) {
      if (globMatch(pattern.slice(1), name)) return false;
    } else if (globMatch(pattern, name)) {
      matched = true;
    }
  }
  return matched;
}

export function knownHostsFiles(t?: Pick<SshTarget, "knownHostsFiles">): string[] {
  return [...(t?.knownHostsFiles ?? [path.join(os.homedir(), ".ssh", "known_hosts")]), "/etc/ssh/ssh_known_hosts"];
}

/** "ok", "mismatch" (only other keys listed, or @revoked) or "unknown". */
export function checkKnownHost(
  t: Pick<SshTarget, "host" | "port" | "hostKeyAlias" | "knownHostsFiles">,
  key: Buffer,
  files = knownHostsFiles(t),
): "ok" | "mismatch" | "unknown" {
  const name = knownHostsName(t);
  let listed = false;
  for (const file of files) {
    let text: string;
    try {
      text = fs.readFileSync(file, "utf8");
    } catch {
      continue;
    }
    for (const raw of text.split("\n")) {
      const line = raw.trim();
      if (!line || line.startsWith("#")) continue;
      const fields = line.split(/\s+/);
      let marker: string | undefined;
      if (fields[0].startsWith("@")) marker = fields.shift();
      if (marker === "@cert-authority" || fields.length < 3) continue;
      if (!hostFieldMatches(fields[0], name)) continue;
      const same = Buffer.from(fields[2], "base64").equals(key);
      if (marker === "@revoked") {
        if (same) return "mismatch";
        continue;
      }
      listed = true;
      if (same) return "ok";
    }
  }
  return listed ? "mismatch" : "unknown";
}

// keys

export function identityFiles(t: Pick<SshTarget, "identityFiles">): string[] {
  if (t.identityFiles.length) return [...t.identityFiles];
  return ["id_ed25519", "id_ecdsa", "id_rsa"].map((name) => path.join(os.homedir(), ".ssh", name));
}

function authMethods(t: SshTarget): AnyAuthMethod[] {
  const methods: AnyAuthMethod[] = [];
  if (process.env.SSH_AUTH_SOCK && !t.identitiesOnly) {
    methods.push({ type: "agent", username: t.user, agent: process.env.SSH_AUTH_SOCK });
  }
  for (const file of identityFiles(t)) {
    let text: Buffer;
    try {
      text = fs.readFileSync(file);
    } catch {
      continue;
    }
    const parsed = sshUtils.parseKey(text);
    // An encrypted key needs the agent's passphrase: skipped, as `ssh -o BatchMode` would.
    if (parsed instanceof Error) continue;
    methods.push({ type: "publickey", username: t.user, key: text });
  }
  return methods;
}

// the connection

export interface SshTunnel {
  readonly localPort: number;
  readonly remotePort: number;
  bytes(): { readonly sent: number; readonly received: number };
  close(): void;
}

export interface ReverseTunnel {
  readonly remotePort: number;
  close(): void;
}

export class SshDockerConnection {
  private client: Client | undefined;
  private connecting: Promise<Client> | undefined;
  private socket: net.Socket | undefined;
  /** Open channels: the socket keeps the process alive only while one is open. */
  private open = 0;
  private closedRead = 0;
  private closedWritten = 0;
  private drops: { readonly at: number; readonly reason: string }[] = [];
  private closing = false;
  readonly agent: http.Agent;

  constructor(readonly target: SshTarget) {
    this.agent = new http.Agent();
    const create = (_options: unknown, callback: (error: Error | null, socket?: Duplex) => void): undefined => {
      this.exec("docker system dial-stdio").then(
        (stream) => callback(null, stream),
        (error: Error) => callback(error),
      );
      return undefined;
    };
    (this.agent as unknown as { createConnection: typeof create }).createConnection = create;
  }

  get label(): string {
    return sshTargetLabel(this.target);
  }

  private hold(delta: number): void {
    this.open += delta;
    if (this.open > 0) this.socket?.ref();
    else this.socket?.unref();
  }

  private track(stream: Duplex): Duplex {
    this.hold(1);
    let released = false;
    const release = (): void => {
      if (released) return;
      released = true;
      this.hold(-1);
    };
    stream.once("close", release);
    stream.once("error", release);
    return stream;
  }

  /** The connected client, (re)connecting within READY_TIMEOUT_MS. */
  connect(): Promise<Client> {
    if (this.client) return Promise.resolve(this.client);
    this.connecting ??= this.open_().finally(() => {
      this.connecting = undefined;
    });
    return this.connecting;
  }

  private open_(): Promise<Client> {
    const t = this.target;
    const methods = authMethods(t);
    if (methods.length === 0) {
      return Promise.reject(
        new Error(
          `No SSH key for ${this.label}: start an SSH agent (SSH_AUTH_SOCK) with the key, or put an unencrypted ` +
            `key at ${identityFiles(t).join(", ")} (IdentityFile in ~/.ssh/config), as for \`ssh\` and \`docker -H ssh://…\`.`,
        ),
      );
    }
    return new Promise<Client>((resolve, reject) => {
      let hostKeyProblem: string | undefined;
      const client = new Client();
      const socket = net.connect({ host: t.host, port: t.port });
      this.socket = socket;
      socket.setNoDelay(true);
      const timer = setTimeout(() => {
        const limit = READY_TIMEOUT_MS / 1000;
        fail(new Error(`SSH to ${this.label}: no answer within ${limit} s (host down or unreachable?)`));
      }, READY_TIMEOUT_MS);
      const fail = (error: Error): void => {
        clearTimeout(timer);
        client.end();
        socket.destroy();
        if (this.socket === socket) this.socket = undefined;
        reject(error);
      };
      client.once("ready", () => {
        clearTimeout(timer);
        this.client = client;
        this.watch(client, socket);
        socket.unref();
        if (this.open > 0) socket.ref();
        resolve(client);
      });
      client.on("error", (error: Error) => {
        if (this.client !== client) {
          const reason = hostKeyProblem ?? error.message;
          fail(new Error(`SSH to ${this.label} failed: ${reason}`));
        }
      });
      client.once("close", () => {
        if (this.client === client) this.client = undefined;
        if (this.socket === socket) this.socket = undefined;
      });
      let socketError: string | undefined;
      socket.once("error", (error: Error) => (socketError = error.message));
      socket.once("close", () => {
        this.closedRead += socket.bytesRead;
        this.closedWritten += socket.bytesWritten;
        if (this.client === client && !this.closing) {
          this.drops.push({ at: Date.now(), reason: socketError ?? "the connection closed" });
        }
      });
      client.connect({
        sock: socket,
        username: t.user,
        authHandler: methods,
        readyTimeout: READY_TIMEOUT_MS,
        // ssh2's keepalive timer is not unref'd and would keep every script alive: see watch().
        keepaliveInterval: 0,
        hostVerifier: (key: Buffer) => {
          const verdict = checkKnownHost(t, key);
          if (verdict === "ok") return true;
          const name = knownHostsName(t);
          hostKeyProblem =
            verdict === "unknown"
              ? `the host key of ${name} is not in ${knownHostsFiles(t).join(" or ")}; connect once with ` +
                `\`ssh ${t.alias}\` to check and accept it (the lab never accepts a host key by itself)`
              : `the host key of ${name} does NOT match the one in known_hosts (a changed host, or someone in ` +
                "between): refusing to connect";
          return false;
        },
      });
    });
  }

  /**
   * A dead link is noticed within ~2 × KEEPALIVE_MS instead of TCP's minutes: the socket is destroyed,
   * every channel fails, the next use reconnects. The timer is unref'd.
   */
  private watch(client: Client, socket: net.Socket): void {
    let outstanding = 0;
    const timer = setInterval(() => {
      if (this.open === 0) return;
      if (outstanding >= 2) {
        socket.destroy(new Error(`SSH to ${this.label}: no answer to keepalives for ${(2 * KEEPALIVE_MS) / 1000} s`));
        return;
      }
      outstanding++;
      client.forwardOut("127.0.0.1", 0, "127.0.0.1", 1, (_error, channel) => {
        outstanding = 0;
        channel?.close();
      });
    }, KEEPALIVE_MS);
    timer.unref();
    client.once("close", () => clearInterval(timer));
  }

  exec(command: string): Promise<Duplex> {
    return this.request((client, done) => client.exec(command, (error, channel) => done(error, channel)), command);
  }

  forward(host: string, port: number): Promise<Duplex> {
    return this.request(
      (client, done) => client.forwardOut("127.0.0.1", 0, host, port, (error, channel) => done(error, channel)),
      `tunnel to ${host}:${port}`,
    );
  }

  /** Opens a channel, holding the process alive from the request on. */
  private async request(
    open: (client: Client, done: (error: Error | undefined, channel: Duplex | undefined) => void) => void,
    what: string,
  ): Promise<Duplex> {
    this.hold(1);
    try {
      const client = await this.connect();
      return await new Promise<Duplex>((resolve, reject) => {
        open(client, (error, channel) => {
          if (error || !channel) reject(new Error(`SSH to ${this.label}: ${what}: ${error?.message ?? "no channel"}`));
          else resolve(this.track(channel));
        });
      });
    } finally {
      this.hold(-1);
    }
  }

  /** A listener on this host's 127.0.0.1 forwarded to the remote 127.0.0.1:remotePort (`ssh -L`). */
  async tunnel(remotePort: number): Promise<SshTunnel> {
    await this.connect();
    const sockets = new Set<net.Socket>();
    let sent = 0;
    let received = 0;
    const server = net.createServer((local) => {
      sockets.add(local);
      // A client resetting its end makes this socket emit ECONNRESET, uncaught without a listener.
      local.on("error", ignored("ssh tunnel: the local client's connection failed"));
      local.on("data", (chunk: Buffer) => (sent += chunk.length));
      local.setNoDelay(true);
      local.once("close", () => sockets.delete(local));
      local.pause();
      this.forward("127.0.0.1", remotePort).then(
        (remote) => {
          // The client may have given up meanwhile: drain the channel so ssh2 can close it.
          const drop = (): void => {
            remote.destroy();
            remote.resume();
          };
          if (local.destroyed) {
            drop();
            return;
          }
          remote.on("error", (error: Error) => {
            ignored("ssh tunnel: the channel failed")(error);
            local.destroy();
          });
          remote.on("data", (chunk: Buffer) => (received += chunk.length));
          local.pipe(remote).pipe(local);
          remote.once("close", () => local.destroy());
          local.once("close", drop);
          local.resume();
        },
        () => local.destroy(),
      );
    });
    await new Promise<void>((resolve, reject) => {
      server.once("error", reject);
      server.listen(0, "127.0.0.1", resolve);
    });
    server.unref();
    const address = server.address();
    if (address === null || typeof address === "string") throw new Error("tunnel listener has no port");
    return {
      localPort: address.port,
      remotePort,
      bytes: () => ({ sent, received }),
      close: () => {
        server.close();
        for (const s of sockets) s.destroy();
      },
    };
  }

  /**
   * A listener on the remote 127.0.0.1 whose connections come back to localHost:localPort here
   * (`ssh -R`): how a standby there reaches a primary here with no port open to any network.
   */
  async reverseTunnel(localHost: string, localPort: number): Promise<ReverseTunnel> {
    const client = await this.connect();
    const remotePort = await new Promise<number>((resolve, reject) =>
      client.forwardIn("127.0.0.1", 0, (error, port) =>
        error ? reject(new Error(`SSH to ${this.label}: reverse tunnel: ${error.message}`)) : resolve(port),
      ),
    );
    const streams = new Set<Duplex>();
    const onConnection = (details: TcpConnectionDetails, accept: () => Duplex, reject: () => void): void => {
      if (details.destPort !== remotePort) return;
      if (closed) return reject();
      const channel = accept();
      // Released once, not on the channel's "close", which a dead peer may never cause.
      this.hold(1);
      const local = net.connect({ host: localHost, port: localPort });
      local.setNoDelay(true);
      streams.add(channel);
      streams.add(local);
      let ended = false;
      const end = (): void => {
        if (ended) return;
        ended = true;
        local.destroy();
        channel.destroy();
        channel.resume();
        streams.delete(channel);
        streams.delete(local);
        this.hold(-1);
      };
      local.once("error", end);
      local.once("close", end);
      channel.once("close", end);
      channel.once("error", end);
      channel.pipe(local).pipe(channel);
    };
    let closed = false;
    client.on("tcp connection", onConnection);
    this.hold(1);
    return {
      remotePort,
      close: () => {
        if (closed) return;
        closed = true;
        client.removeListener("tcp connection", onConnection);
        client.unforwardIn("127.0.0.1", remotePort, () => undefined);
        for (const s of streams) s.destroy();
        this.hold(-1);
      },
    };
  }

  /** Wire bytes of this process's SSH connections to the host: where a streamed data set would show. */
  wireBytes(): { readonly sent: number; readonly received: number } {
    const live = this.socket;
    return {
      sent: this.closedWritten + (live?.bytesWritten ?? 0),
      received: this.closedRead + (live?.bytesRead ?? 0),
    };
  }

  async rttMs(samples = 5): Promise<number> {
    this.hold(1);
    try {
      return await this.measureRtt(await this.connect(), samples);
    } finally {
      this.hold(-1);
    }
  }

  private async measureRtt(client: Client, samples: number): Promise<number> {
    const times: number[] = [];
    for (let i = 0; i < samples; i++) {
      const started = process.hrtime.bigint();
      // sshd refuses port 1 at once: one round trip, no work.
      await new Promise<void>((resolve) => {
        client.forwardOut("127.0.0.1", 0, "127.0.0.1", 1, (_error, channel) => {
          channel?.close();
          resolve();
        });
      });
      times.push(Number(process.hrtime.bigint() - started) / 1e6);
    }
    times.sort((a, b) => a - b);
    return times[Math.floor(times.length / 2)];
  }

  droppedSince(since: number): string | undefined {
    return this.drops.filter((d) => d.at >= since).at(-1)?.reason;
  }

  close(): void {
    this.closing = true;
    this.client?.end();
    this.client = undefined;
    this.socket?.destroy();
    this.socket = undefined;
    this.closing = false;
  }
}

const connections = new Map<string, SshDockerConnection>();

/** The process's one connection to that host, connected lazily. */
export function sshDockerConnection(t: SshTarget): SshDockerConnection {
  // The alias too: two aliases of one host may differ in keys or known_hosts.
  const key = `${sshTargetLabel(t)} ${JSON.stringify(t)}`;
  let c = connections.get(key);
  if (!c) {
    c = new SshDockerConnection(t);
    connections.set(key, c);
  }
  return c;
}

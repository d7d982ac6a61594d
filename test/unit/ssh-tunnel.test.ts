/**
 * The SSH tunnel's listener when either end fails: a client that resets its connection, or a
 * channel that errors, ends that one connection and never the process (an unhandled socket error
 * is an uncaught exception: 03-linkdrop-ssh saw "read ECONNRESET" so). The SSH channel is stood
 * in for by a TCP connection to a local server; the tunnel's own code is the product's.
 */
import { test } from "node:test";
import assert from "node:assert/strict";
import net from "node:net";
import type { Duplex } from "node:stream";
import type { Client } from "ssh2";
import { SshDockerConnection } from "../../lib/targets/docker/ssh-docker-host";

class LoopbackChannels extends SshDockerConnection {
  readonly channels: net.Socket[] = [];
  constructor(private readonly port: number) {
    super({ alias: "test", host: "127.0.0.1", port: 22, user: "nobody", identityFiles: [], identitiesOnly: true });
  }
  override connect(): Promise<Client> {
    return Promise.resolve({} as Client);
  }
  override forward(): Promise<Duplex> {
    const socket = net.connect({ host: "127.0.0.1", port: this.port });
    this.channels.push(socket);
    return new Promise((resolve) => socket.once("connect", () => resolve(socket)));
  }
}

interface Far {
  readonly port: number;
  /** The connections the far end took, for the tunnel's side to be seen at work. */
  readonly accepted: net.Socket[];
  close(): void;
}

async function listen(onConnection: (s: net.Socket) => void): Promise<Far> {
  const accepted: net.Socket[] = [];
  const server = net.createServer((s) => {
    accepted.push(s);
    s.on("error", () => undefined);
    onConnection(s);
  });
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  const address = server.address();
  if (address === null || typeof address === "string") throw new Error("no port");
  return {
    port: address.port,
    accepted,
    close: () => {
      server.close();
      for (const s of accepted) s.destroy();
    },
  };
}

const closed = (s: net.Socket): Promise<void> =>
  s.destroyed ? Promise.resolve() : new Promise((resolve) => s.once("close", () => resolve()));

test("a client that resets its tunnelled connection ends that connection, not the process", async () => {
  const uncaught: unknown[] = [];
  const onUncaught = (e: unknown) => uncaught.push(e);
  process.on("uncaughtException", onUncaught);
  // The far end floods the client, so that the client's reset finds bytes unread (ECONNRESET).
  const far = await listen((s) => {
    const flood = setInterval(() => s.write(Buffer.alloc(64 * 1024)), 5);
    s.once("close", () => clearInterval(flood));
  });
  const ssh = new LoopbackChannels(far.port);
  const tunnel = await ssh.tunnel(far.port);
  try {
    const client = net.connect({ host: "127.0.0.1", port: tunnel.localPort });
    client.on("error", () => undefined);
    await new Promise<void>((resolve) => client.once("data", () => resolve()));
    client.write("hello");
    client.pause();
    await new Promise((r) => setTimeout(r, 50));
    client.resetAndDestroy();
    const channel = ssh.channels[0];
    assert.ok(channel);
    await closed(channel);
    await new Promise((r) => setTimeout(r, 100));
    assert.deepEqual(uncaught.map(String), [], "no uncaught exception");
    // The listener still serves a new connection.
    const again = net.connect({ host: "127.0.0.1", port: tunnel.localPort });
    again.on("error", () => undefined);
    await new Promise<void>((resolve) => again.once("data", () => resolve()));
    again.destroy();
  } finally {
    tunnel.close();
    far.close();
    process.removeListener("uncaughtException", onUncaught);
  }
});

test("a channel that fails ends its client's connection, not the process", async () => {
  const uncaught: unknown[] = [];
  const onUncaught = (e: unknown) => uncaught.push(e);
  process.on("uncaughtException", onUncaught);
  const far = await listen(() => undefined);
  const ssh = new LoopbackChannels(far.port);
  const tunnel = await ssh.tunnel(far.port);
  try {
    const client = net.connect({ host: "127.0.0.1", port: tunnel.localPort });
    client.on("error", () => undefined);
    // Data through both ways: the tunnel has joined the client to its channel.
    client.write("ping");
    for (let i = 0; i < 100 && far.accepted.length === 0; i++) await new Promise((r) => setTimeout(r, 20));
    await new Promise<void>((resolve) => far.accepted[0]?.once("data", () => resolve()));
    const channel = ssh.channels[0];
    assert.ok(channel);
    channel.destroy(new Error("the link is gone"));
    await closed(client);
    await new Promise((r) => setTimeout(r, 100));
    assert.deepEqual(uncaught.map(String), [], "no uncaught exception");
  } finally {
    tunnel.close();
    far.close();
    process.removeListener("uncaughtException", onUncaught);
  }
});

/**
 * A TCP echo server and a ping-pong client: the purest round trip there is, for measuring what a
 * delay link adds without a database in the way (the bench and the tests use it).
 */
import net from "node:net";
import type { RttProbe } from "./calibrate";

export interface EchoServer {
  readonly port: number;
  close(): Promise<void>;
}

export async function startEchoServer(host = "127.0.0.1"): Promise<EchoServer> {
  const sockets = new Set<net.Socket>();
  const server = net.createServer({ noDelay: true }, (socket) => {
    sockets.add(socket);
    socket.on("close", () => sockets.delete(socket));
    socket.on("error", () => socket.destroy());
    socket.on("data", (chunk) => socket.write(chunk));
  });
  await new Promise<void>((resolve, reject) => {
    server.once("error", reject);
    server.listen(0, host, () => resolve());
  });
  return {
    port: (server.address() as net.AddressInfo).port,
    close: () =>
      new Promise<void>((resolve) => {
        for (const s of sockets) s.destroy();
        server.close(() => resolve());
      }),
  };
}

export interface PingClient {
  readonly probe: RttProbe;
  close(): void;
}

/** Connects and returns a probe that sends `size` bytes and waits for all of them back, n times. */
export async function pingClient(host: string, port: number, size = 64): Promise<PingClient> {
  const socket = net.connect({ host, port, noDelay: true });
  await new Promise<void>((resolve, reject) => {
    socket.once("connect", () => resolve());
    socket.once("error", reject);
  });
  const payload = Buffer.alloc(size, 0x61);
  let pending: ((t: bigint) => void) | undefined;
  let received = 0;
  socket.on("data", (chunk: Buffer) => {
    received += chunk.length;
    if (received >= size && pending) {
      const done = pending;
      pending = undefined;
      received -= size;
      done(process.hrtime.bigint());
    }
  });
  const once = () =>
    new Promise<number>((resolve) => {
      const start = process.hrtime.bigint();
      pending = (end) => resolve(Number(end - start) / 1e6);
      socket.write(payload);
    });
  return {
    probe: async (n: number) => {
      const out: number[] = [];
      for (let i = 0; i < n; i++) out.push(await once());
      return out;
    },
    close: () => socket.destroy(),
  };
}

/**
 * The simplest proxy there is, in a process of its own: bytes read from one socket are written to
 * the other, nothing else. It is the yardstick for the delay proxy's own cost at 0 ms: whatever the
 * bare pipe costs too (two socket hops, a process wake-up each way) is this machine's, not the
 * delay proxy's.
 */
import { fork } from "node:child_process";
import net from "node:net";

export interface BarePipe {
  readonly port: number;
  close(): Promise<void>;
}

export async function startBarePipe(targetPort: number): Promise<BarePipe> {
  const child = fork(__filename, ["--child", String(targetPort)], { stdio: ["ignore", "inherit", "inherit", "ipc"] });
  const port = await new Promise<number>((resolve, reject) => {
    child.once("message", (m: { port: number }) => resolve(m.port));
    child.once("error", reject);
    child.once("exit", (code) => reject(new Error(`bare pipe process exited with ${code}`)));
  });
  return {
    port,
    close: async () => {
      if (child.exitCode !== null) return;
      const exited = new Promise((resolve) => child.once("exit", resolve));
      child.disconnect();
      await exited;
    },
  };
}

if (require.main === module && process.argv.includes("--child")) {
  const targetPort = Number(process.argv[process.argv.indexOf("--child") + 1]);
  const server = net.createServer({ noDelay: true }, (client) => {
    const upstream = net.connect({ host: "127.0.0.1", port: targetPort, noDelay: true });
    client.pipe(upstream).pipe(client);
    const fail = () => {
      client.destroy();
      upstream.destroy();
    };
    client.on("error", fail);
    upstream.on("error", fail);
  });
  server.listen(0, "127.0.0.1", () => process.send?.({ port: (server.address() as net.AddressInfo).port }));
  process.on("disconnect", () => process.exit(0));
}

/**
 * The simplest proxy there is, in a process of its own: bytes read from one socket are written to
 * the other, nothing else. It is the yardstick for the delay proxy's own cost at 0 ms: whatever the
 * bare pipe costs too (two socket hops, a process wake-up each way) is this machine's, not the
 * delay proxy's.
 */
import net from "node:net";
import { forkChildServer, type ChildServer } from "./child-server";

export function startBarePipe(targetPort: number): Promise<ChildServer> {
  return forkChildServer(__filename, ["--child", String(targetPort)]);
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

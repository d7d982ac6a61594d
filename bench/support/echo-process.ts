/**
 * The bench's echo server in a process of its own, as a database server is: then the direct round
 * trip pays the same process wake-ups a client pays to reach PostgreSQL, and "the proxy's own cost"
 * is what the proxy adds to that, not the difference to an echo that runs in the client's own event
 * loop and never sleeps (on this VM each sleeping process's wake-up costs tens of µs).
 */
import { startEchoServer, type EchoServer } from "../../lib/network/tcp-echo";
import { forkChildServer } from "./child-server";

export function startEchoProcess(): Promise<EchoServer> {
  return forkChildServer(__filename, ["--child"]);
}

if (require.main === module && process.argv.includes("--child")) {
  void startEchoServer().then((echo) => {
    process.send?.({ port: echo.port });
    // The bench went away (or closed us): nothing else would stop this process.
    process.on("disconnect", () => void echo.close().then(() => process.exit(0)));
  });
}

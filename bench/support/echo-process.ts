/**
 * The bench's echo server in a process of its own, as a database server is: then the direct round
 * trip pays the same process wake-ups a client pays to reach PostgreSQL, and "the proxy's own cost"
 * is what the proxy adds to that, not the difference to an echo that runs in the client's own event
 * loop and never sleeps (on this VM each sleeping process's wake-up costs tens of µs).
 */
import { fork } from "node:child_process";
import { startEchoServer, type EchoServer } from "../../lib/network/tcp-echo";

export async function startEchoProcess(): Promise<EchoServer> {
  const child = fork(__filename, ["--child"], { stdio: ["ignore", "inherit", "inherit", "ipc"] });
  const port = await new Promise<number>((resolve, reject) => {
    child.once("message", (m: { port: number }) => resolve(m.port));
    child.once("error", reject);
    child.once("exit", (code) => reject(new Error(`echo server process exited with ${code}`)));
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
  void startEchoServer().then((echo) => {
    process.send?.({ port: echo.port });
    // The bench went away (or closed us): nothing else would stop this process.
    process.on("disconnect", () => void echo.close().then(() => process.exit(0)));
  });
}

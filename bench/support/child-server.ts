/** Forks a module that listens on a loopback port and reports it over IPC ({ port }); closing disconnects it. */
import { fork } from "node:child_process";

export interface ChildServer {
  readonly port: number;
  close(): Promise<void>;
}

export async function forkChildServer(file: string, args: readonly string[]): Promise<ChildServer> {
  const child = fork(file, [...args], { stdio: ["ignore", "inherit", "inherit", "ipc"] });
  const port = await new Promise<number>((resolve, reject) => {
    child.once("message", (m: { port: number }) => resolve(m.port));
    child.once("error", reject);
    child.once("exit", (code) => reject(new Error(`${file} exited with ${code} before listening`)));
  });
  return {
    port,
    close: async () => {
      if (child.exitCode !== null) return;
      const exited = new Promise((resolve) => child.once("exit", resolve));
      // The child exits when its IPC channel goes (see its "disconnect" handler).
      child.disconnect();
      await exited;
    },
  };
}

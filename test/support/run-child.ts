/**
 * One notebook's run in a process of its own, as a notebook or an `npm run reproduce` would be:
 * what the load tests start several of at once.
 */
import { spawn } from "node:child_process";
import path from "node:path";

export interface ChildRun {
  readonly notebook: string;
  readonly target: string;
  readonly runId: string;
  readonly directory: string;
  readonly trials: number;
  readonly ok: number;
  readonly keys: readonly string[];
  /** The kind of every server the run used, as its metadata records it. */
  readonly serverKinds: readonly string[];
  readonly seconds: number;
}

const build = path.resolve(__dirname, "..", "..");

/** Runs `experiment.run` of `notebook` (a folder of lib/experiments) at `profile` on `target`. */
export function runInChild(
  notebook: string,
  profile: string,
  target: "embedded" | "docker" | "external",
  env: NodeJS.ProcessEnv,
): Promise<ChildRun> {
  const script = `
    const { experiment } = require(${JSON.stringify(path.join(build, "lib/experiments", notebook))});
    const began = Date.now();
    const profile = ${JSON.stringify(profile)};
    experiment.run(experiment.params(profile, { target: ${JSON.stringify(target)} }), { profile }).then(
      (run) => {
        const trials = run.trials;
        console.log("RESULT " + JSON.stringify({
          notebook: ${JSON.stringify(notebook)}, target: ${JSON.stringify(target)},
          runId: run.metadata.runId, directory: run.directory, trials: trials.length,
          ok: trials.filter((t) => t.status === "ok").length, keys: trials.map((t) => t.key),
          serverKinds: run.metadata.servers.map((s) => s.kind),
          seconds: (Date.now() - began) / 1000,
        }));
        process.exit(0);
      },
      (error) => { console.error("FAILED " + (error && error.stack || error)); process.exit(1); },
    );`;
  return new Promise((resolve, reject) => {
    const child = spawn(process.execPath, ["-e", script], { env, stdio: ["ignore", "pipe", "pipe"] });
    let out = "";
    let err = "";
    child.stdout.on("data", (d: Buffer) => (out += d.toString()));
    child.stderr.on("data", (d: Buffer) => (err += d.toString()));
    child.on("exit", (code) => {
      const line = out.split("\n").find((l) => l.startsWith("RESULT "));
      if (code === 0 && line) resolve(JSON.parse(line.slice("RESULT ".length)) as ChildRun);
      else reject(new Error(`${notebook} on ${target} ended with ${code}:\n${err.slice(-3000)}\n${out.slice(-2000)}`));
    });
  });
}

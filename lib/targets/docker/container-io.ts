/**
 * Talking to a running container: its log (Docker's multiplexed frames), exits noticed while a
 * readiness loop waits, commands run inside it.
 */
import { ignored } from "../../runtime/debug";
import { PassThrough } from "node:stream";
import type Docker from "dockerode";
import type { ConnectionInfo, ExecOptions, ExecResult } from "../types";
import { redactText } from "../uri";
import { waitUntilReady } from "../readiness";
import type { EngineProfile } from "./engine-profiles";
import { leasedExitCode } from "./lease";

export function isNotFound(error: unknown): boolean {
  return (error as { statusCode?: number }).statusCode === 404;
}

/** Docker's 409 "removal of container … is already in progress" (another removal, AutoRemove's say). */
export function isRemovalInProgress(error: unknown): boolean {
  return (error as { statusCode?: number }).statusCode === 409 && /already in progress/i.test(String(error));
}

/**
 * Removes a container by force, with its volumes. Where its engine is removing it already (a
 * leased container, created with AutoRemove, that stopped just before), waits until it is gone,
 * so that nobody lists it after this resolved; at most `waitMs`, then the 409 is thrown.
 */
export async function removeByForce(container: Docker.Container, waitMs = 30_000): Promise<void> {
  try {
    await container.remove({ force: true, v: true });
  } catch (error) {
    if (isNotFound(error)) return;
    if (!isRemovalInProgress(error)) throw error;
    for (const deadline = Date.now() + waitMs; Date.now() < deadline;) {
      await new Promise((resolve) => setTimeout(resolve, 250));
      try {
        await container.inspect();
      } catch (inspectError) {
        if (isNotFound(inspectError)) return;
        throw inspectError;
      }
    }
    throw error;
  }
}

/** Splits Docker's multiplexed log format (8-byte frame headers) into text. */
function demuxBuffer(buffer: Buffer): string {
  let out = "";
  let offset = 0;
  while (offset + 8 <= buffer.length && buffer[offset] <= 2 && buffer.readUInt16BE(offset + 1) === 0) {
    const size = buffer.readUInt32BE(offset + 4);
    out += buffer.subarray(offset + 8, offset + 8 + size).toString("utf8");
    offset += 8 + size;
  }
  return offset === 0 ? buffer.toString("utf8") : out;
}

export async function logTail(container: Docker.Container, lines = 30): Promise<string> {
  try {
    const logs = await container.logs({ stdout: true, stderr: true, tail: lines, follow: false });
    return demuxBuffer(logs).trim();
  } catch {
    return "(logs unavailable)";
  }
}

/**
 * Watches for the container exiting while a readiness loop runs: `check()` throws once it has,
 * so the loop stops at once instead of waiting out its timeout. A leased container (lease.ts)
 * stays up after its server exits, with the exit code in a file: that file is read once a second.
 */
function watchExit(container: Docker.Container, leased: boolean): { check: () => void; dispose: () => void } {
  const abort = new AbortController();
  let exit: number | undefined;
  container
    .wait({ condition: "not-running", abortSignal: abort.signal })
    .then((result: { StatusCode?: number }) => {
      exit ??= result.StatusCode ?? -1;
    })
    .catch(ignored("docker: wait for the container to stop (dispose() aborts it)"));
  const poll = leased
    ? setInterval(() => {
        void leasedExitCode(container).then((code) => {
          if (code !== undefined) exit ??= code;
        });
      }, 1000)
    : undefined;
  return {
    check: () => {
      if (exit !== undefined) throw new ContainerExited(exit);
    },
    dispose: () => {
      abort.abort();
      if (poll) clearInterval(poll);
    },
  };
}

class ContainerExited extends Error {
  constructor(readonly exitCode: number) {
    super(`the container exited with code ${exitCode}`);
  }
}

export async function waitReady(
  container: Docker.Container,
  profile: EngineProfile,
  connection: ConnectionInfo,
  timeoutMs: number,
  leased = false,
): Promise<string> {
  const watch = watchExit(container, leased);
  try {
    return await waitUntilReady(profile.probe(connection), {
      timeoutMs,
      intervalMs: profile.readyIntervalMs,
      abortIf: watch.check,
    });
  } catch (error) {
    const reason = error instanceof ContainerExited ? error.message : redactText(String(error));
    const logs = await logTail(container);
    throw new Error(
      `Container ${container.id.slice(0, 12)} did not become ready: ${reason}\n--- last log lines ---\n${logs}`,
    );
  } finally {
    watch.dispose();
  }
}

/** Runs a command inside the container (e.g. pgbench in an official image) and collects its output. */
export async function execInContainer(
  docker: Docker,
  container: Docker.Container,
  cmd: string[],
  options: ExecOptions = {},
): Promise<ExecResult> {
  const exec = await container.exec({
    Cmd: cmd,
    AttachStdout: true,
    AttachStderr: true,
    Env: options.env ? [...options.env] : undefined,
    User: options.user,
  });
  const stream = await exec.start({ hijack: true, stdin: false });
  const stdout: Buffer[] = [];
  const stderr: Buffer[] = [];
  const out = new PassThrough().on("data", (c: Buffer) => stdout.push(c));
  const err = new PassThrough().on("data", (c: Buffer) => stderr.push(c));
  docker.modem.demuxStream(stream, out, err);
  await new Promise<void>((resolve, reject) => {
    stream.on("end", resolve);
    stream.on("close", resolve);
    stream.on("error", reject);
  });
  // The exit code can lag the end of the output by a moment.
  let info = await exec.inspect();
  for (let i = 0; info.Running && i < 100; i++) {
    await new Promise((resolve) => setTimeout(resolve, 50));
    info = await exec.inspect();
  }
  return {
    exitCode: info.ExitCode ?? -1,
    stdout: Buffer.concat(stdout).toString("utf8"),
    stderr: Buffer.concat(stderr).toString("utf8"),
  };
}

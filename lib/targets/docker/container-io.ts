/** A running container: its log, its exit while a readiness loop waits, commands inside it. */
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

/** Docker's 409 "removal of container … is already in progress". */
export function isRemovalInProgress(error: unknown): boolean {
  return (error as { statusCode?: number }).statusCode === 409 && /already in progress/i.test(String(error));
}

/** Removes a container by force; where its engine is removing it already, waits (≤ `waitMs`) until gone. */
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

const LOGS_UNAVAILABLE = "(logs unavailable)";

function lastLines(text: string, lines: number): string {
  return text.trim().split("\n").slice(-lines).join("\n");
}

/** Undefined when its engine has none (it is gone). */
async function readLogTail(container: Docker.Container, lines: number): Promise<string | undefined> {
  try {
    const logs = await container.logs({ stdout: true, stderr: true, tail: lines, follow: false });
    return demuxBuffer(logs).trim();
  } catch {
    return undefined;
  }
}

export async function logTail(container: Docker.Container, lines = 30): Promise<string> {
  return (await readLogTail(container, lines)) ?? LOGS_UNAVAILABLE;
}

const FOLLOW_CAP_BYTES = 1024 ** 2;

/** A container's log, collected as it prints, so a leased container its engine removed still has it for the message. */
class LogFollower {
  private readonly chunks: Buffer[] = [];
  private bytes = 0;
  private readonly ended: Promise<void>;

  private constructor(private readonly stream: NodeJS.ReadableStream) {
    stream.on("data", (chunk: Buffer) => {
      // Whole frames only (headers must stay aligned), so at the cap the follower stops collecting.
      if (this.bytes + chunk.length > FOLLOW_CAP_BYTES) return;
      this.chunks.push(chunk);
      this.bytes += chunk.length;
    });
    this.ended = new Promise((resolve) => {
      stream.once("end", () => resolve());
      stream.once("close", () => resolve());
      stream.once("error", () => resolve());
    });
  }

  static async start(container: Docker.Container): Promise<LogFollower | undefined> {
    try {
      return new LogFollower(await container.logs({ stdout: true, stderr: true, follow: true }));
    } catch {
      return undefined;
    }
  }

  /** Once the stream ended or after `waitMs`, so the last lines before an exit arrive. */
  async tail(lines: number, waitMs = 2000): Promise<string | undefined> {
    let timer: NodeJS.Timeout | undefined;
    await Promise.race([this.ended, new Promise((resolve) => (timer = setTimeout(resolve, waitMs)))]);
    clearTimeout(timer);
    if (this.bytes === 0) return undefined;
    return lastLines(demuxBuffer(Buffer.concat(this.chunks)), lines);
  }

  close(): void {
    const response = this.stream as NodeJS.ReadableStream & {
      destroy?: () => void;
      socket?: { resume?: () => void };
    };
    response.destroy?.();
    // Over ssh:// ssh2 releases the channel's hold on the connection only once its data is read: drain it.
    response.socket?.resume?.();
  }
}

/** Watches for the container exiting while a readiness loop runs (a leased one: its exit-code file, once a second). */
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

const READY_LOG_LINES = 30;

export async function waitReady(
  container: Docker.Container,
  profile: EngineProfile,
  connection: ConnectionInfo,
  timeoutMs: number,
  leased = false,
): Promise<string> {
  const watch = watchExit(container, leased);
  const follower = leased ? await LogFollower.start(container) : undefined;
  try {
    return await waitUntilReady(profile.probe(connection), {
      timeoutMs,
      intervalMs: profile.readyIntervalMs,
      abortIf: watch.check,
    });
  } catch (error) {
    const reason = error instanceof ContainerExited ? error.message : redactText(String(error));
    const logs =
      (await readLogTail(container, READY_LOG_LINES)) ?? (await follower?.tail(READY_LOG_LINES)) ?? LOGS_UNAVAILABLE;
    throw new Error(
      `Container ${container.id.slice(0, 12)} did not become ready: ${reason}\n--- last log lines ---\n${logs}`,
    );
  } finally {
    watch.dispose();
    follower?.close();
  }
}

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

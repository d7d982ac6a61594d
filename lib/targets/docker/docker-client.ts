/**
 * One dockerode client per process. dockerode reads DOCKER_HOST (and DOCKER_TLS_VERIFY /
 * DOCKER_CERT_PATH) itself, so a remote engine works without code here.
 */
import Docker from "dockerode";
import { ignored } from "../../runtime/debug";

let client: Docker | undefined;

export function dockerClient(): Docker {
  client ??= new Docker();
  return client;
}

/** True when a Docker daemon answers a ping within `timeoutMs`. */
export async function dockerAvailable(timeoutMs = 1500): Promise<boolean> {
  try {
    await Promise.race([
      dockerClient().ping(),
      new Promise((_, reject) => setTimeout(() => reject(new Error("timeout")), timeoutMs).unref()),
    ]);
    return true;
  } catch (error) {
    ignored("docker: ping the daemon")(error);
    return false;
  }
}

/** Labels on everything the lab creates, so `npm run clean` can find it without records. */
export const LAB_LABEL = "io.db-write-lab";
export function labLabels(extra: Record<string, string> = {}): Record<string, string> {
  return { [LAB_LABEL]: "true", [`${LAB_LABEL}.owner-pid`]: String(process.pid), ...extra };
}

/** Where dockerode connects: DOCKER_HOST when set, else the default socket (as docker-modem does). */
export function dockerEndpoint(): string {
  return process.env.DOCKER_HOST ?? "unix:///var/run/docker.sock";
}

// Errors of the connection to the engine itself (socket missing, refused, dropped), not answers it
// gave: ENOENT is what a stopped daemon leaves (its socket is removed), ECONNRESET what a daemon
// dying mid-request leaves; ETIMEDOUT comes from withEngineTimeout below.
const UNREACHABLE = new Set(["ENOENT", "ECONNREFUSED", "ECONNRESET", "EPIPE", "ETIMEDOUT", "EHOSTUNREACH", "ECONNABORTED"]);

/** True when `error` says the Docker engine could not be reached (rather than that it refused). */
export function isEngineUnreachable(error: unknown): boolean {
  const code = (error as { code?: unknown } | null)?.code;
  return typeof code === "string" && UNREACHABLE.has(code) && (error as { statusCode?: unknown }).statusCode === undefined;
}

/** A one-line cause: "connect ENOENT /var/run/docker.sock" rather than a stack. */
export function errorText(error: unknown): string {
  return error instanceof Error ? error.message : String(error);
}

/** The error a user sees when the engine under a running server went away. */
export class DockerEngineGoneError extends Error {
  override readonly name = "DockerEngineGoneError";
  /** `lost` names the server, e.g. "the PostgreSQL 17.6 server (docker, 172.17.0.2:5432)". */
  constructor(lost: string, cause: unknown) {
    super(`the Docker engine at ${dockerEndpoint()} went away; ${lost} was lost (${errorText(cause)})`, { cause });
  }
}

/**
 * Races a Docker call against a bound: a daemon that is frozen (rather than stopped) never answers,
 * and a reaper or `npm run clean` must not wait on it forever.
 */
export async function withEngineTimeout<T>(call: Promise<T>, timeoutMs = 15_000): Promise<T> {
  let timer: NodeJS.Timeout | undefined;
  const timeout = new Promise<never>((_, reject) => {
    timer = setTimeout(() => {
      const error = new Error(`the Docker engine at ${dockerEndpoint()} did not answer within ${timeoutMs / 1000} s`);
      reject(Object.assign(error, { code: "ETIMEDOUT" }));
    }, timeoutMs);
    timer.unref();
  });
  try {
    return await Promise.race([call, timeout]);
  } finally {
    clearTimeout(timer);
  }
}

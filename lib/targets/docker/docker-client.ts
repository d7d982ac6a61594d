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

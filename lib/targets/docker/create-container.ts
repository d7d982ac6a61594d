/**
 * Creating a container: registered the moment it exists, started with a published port, created
 * again on another port when the picked one was taken meanwhile.
 */
import { randomBytes } from "node:crypto";
import type Docker from "dockerode";
import { register, unregister } from "../../runtime/resources";
import { freePort } from "../ports";
import { runTag } from "../run-names";
import type { ServerSpec } from "../types";
import { isNotFound, removeByForce } from "./container-io";
import { endpointRef, type DockerEndpoint } from "./endpoint";
import { randomRemotePort, type Placement } from "./routes";

export function containerName(spec: ServerSpec): string {
  const base = (spec.name ?? spec.engine).replace(/[^A-Za-z0-9_.-]/g, "-").slice(0, 40);
  // The run's id, so that runs at once on one engine are told apart by name as well as by label.
  const run = spec.runId ? `-${runTag(spec.runId).replace(/_/g, "-")}` : "";
  return `db-write-lab-${base}${run}-${randomBytes(3).toString("hex")}`;
}

/** Removes a container the start gave up on; the record stays if Docker cannot remove it. */
export async function discard(container: Docker.Container, recordId: string): Promise<void> {
  try {
    await removeByForce(container);
  } catch (error) {
    if (!isNotFound(error)) return;
  }
  unregister(recordId);
}

function isPortConflict(error: unknown): boolean {
  return /port is already allocated|address already in use/i.test(String(error));
}

/**
 * Creates, registers and starts a container with its port published on the placement's address. The
 * host port is picked here, not by Docker (which re-picks at every restart), so restart() keeps the
 * address; a port taken meanwhile gets a new port and container.
 */
export async function createAndStart(
  docker: Docker,
  endpoint: DockerEndpoint,
  placement: Placement,
  name: string,
  internalPort: number,
  options: Docker.ContainerCreateOptions,
): Promise<{ container: Docker.Container; recordId: string }> {
  const portKey = `${internalPort}/tcp`;
  for (let attempt = 1; ; attempt++) {
    const hostPort = placement.pickLocalPort ? await freePort() : randomRemotePort();
    const container = await docker.createContainer({
      ...options,
      name: attempt === 1 ? name : `${name}-${attempt}`,
      ExposedPorts: { [portKey]: {} },
      HostConfig: {
        ...options.HostConfig,
        // Loopback unless the user named an address: the generated password is the only guard.
        PortBindings: { [portKey]: [{ HostIp: placement.bindIp, HostPort: String(hostPort) }] },
      },
    });
    const recordId = register({
      type: "docker-container",
      containerId: container.id,
      description: `container ${name} (${options.Image ?? "?"})${endpoint.local ? "" : ` on ${endpoint.host}`}`,
      ...endpointRef(endpoint),
    });
    try {
      await container.start();
      return { container, recordId };
    } catch (error) {
      await discard(container, recordId);
      if (attempt < 8 && isPortConflict(error)) continue;
      throw error;
    }
  }
}

/**
 * What the results record about a server in a container: the Docker host and route, in the same flat `servers[]`
 * object.
 */
import type { ServerDescription } from "../types";

export interface ContainerFacts {
  /** On the Docker host (127.0.0.1 there unless DBLAB_DOCKER_BIND). */
  readonly publishedAddress?: string;
  /** "bridge", "published port (docker-proxy)", "ssh-tunnel" or "bind-address". */
  readonly route?: string;
  /** The Docker host ("this machine", or its name) and its round trip. */
  readonly dockerHost?: string;
  readonly dockerHostRttMs?: number;
  /**
   * A remote container's lease (lease.ts): kept ≥ `boundSeconds` after the last renewal, gone ≤ `worstCaseSeconds`
   * after.
   */
  readonly lease?: { readonly boundSeconds: number; readonly renewSeconds: number; readonly worstCaseSeconds: number };
}

export type DockerServerDescription = ServerDescription & ContainerFacts;

/**
 * A description as stored; older runs called the Docker host `engineHost`/`engineRttMs`, which `containerFacts` reads
 * too.
 */
export type StoredServerDescription = ServerDescription &
  ContainerFacts & { readonly engineHost?: string; readonly engineRttMs?: number };

/** The container's facts (its limits were enforced), else undefined. */
export function containerFacts(d: StoredServerDescription): ContainerFacts | undefined {
  if (d.kind !== "docker") return undefined;
  const dockerHost = d.dockerHost ?? d.engineHost;
  const dockerHostRttMs = d.dockerHostRttMs ?? d.engineRttMs;
  return {
    ...(d.publishedAddress !== undefined ? { publishedAddress: d.publishedAddress } : {}),
    ...(d.route !== undefined ? { route: d.route } : {}),
    ...(dockerHost !== undefined ? { dockerHost } : {}),
    ...(dockerHostRttMs !== undefined ? { dockerHostRttMs } : {}),
    ...(d.lease !== undefined ? { lease: d.lease } : {}),
  };
}

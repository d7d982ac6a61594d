/**
 * What the results record about a server in a container beyond any server's `ServerDescription`:
 * which Docker host ran it and how the lab reached it. Kept in the same flat object (metadata.json's
 * `servers[]`), so runs recorded before and after read alike; readers ask `containerFacts`, not
 * the kind of target.
 */
import type { ServerDescription } from "../types";

export interface ContainerFacts {
  /** The port as published on the Docker host (127.0.0.1 there unless DBLAB_DOCKER_BIND). */
  readonly publishedAddress?: string;
  /**
   * How the lab reaches the server: "bridge", "published port (docker-proxy)", "ssh-tunnel" (the
   * remote 127.0.0.1 through the engine's SSH connection) or "bind-address" (the named one).
   */
  readonly route?: string;
  /** Which Docker host ran the container ("this machine", or its name), and its round trip to this client. */
  readonly dockerHost?: string;
  readonly dockerHostRttMs?: number;
  /**
   * On a remote Docker host, the container's lease (lease.ts): kept at least `boundSeconds` after
   * the lab's last successful renewal (renewed every `renewSeconds`), and gone at most
   * `worstCaseSeconds` after it once the lab stops renewing.
   */
  readonly lease?: { readonly boundSeconds: number; readonly renewSeconds: number; readonly worstCaseSeconds: number };
}

/** A container's description as the docker target writes it. */
export type DockerServerDescription = ServerDescription & ContainerFacts;

/**
 * A description as stored: any server's, with a container's facts where it ran in one. Runs
 * recorded before the Docker host had its own name called it the engine (`engineHost`,
 * `engineRttMs`); `containerFacts` reads both.
 */
export type StoredServerDescription = ServerDescription &
  ContainerFacts & { readonly engineHost?: string; readonly engineRttMs?: number };

/**
 * The container's facts when the server ran in a container (its CPU and memory limits were then
 * enforced, not only recorded), else undefined.
 */
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

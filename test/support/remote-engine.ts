/**
 * `remote-engine.sh up` for the tests that need a Docker engine on another host (a network
 * namespace with its own dockerd and sshd): runs it and reads the variables it prints, or the
 * reason it cannot run here (exit 2: not root, no iproute2, no dockerd …).
 */
import { spawnSync } from "node:child_process";

export interface RemoteDockerHostVars {
  readonly address: string;
  readonly dockerHost: string;
  /** HOME with the client key and known_hosts for that address. */
  readonly home: string;
  /** The engine's socket, for the test's own checks (the lab never uses it). */
  readonly socket: string;
  /** The same engine's tcp:// listener with TLS, and the client's certificates. */
  readonly tlsHost: string;
  readonly certPath: string;
  /** The namespace, where a firewall rule makes the host vanish without a word (no RST), as a dead VM does. */
  readonly ns: string;
}

export function remoteDockerHostUp(
  script: string,
  dir: string,
  env: NodeJS.ProcessEnv,
): { readonly engine: RemoteDockerHostVars } | { readonly unavailable: string } {
  const out = spawnSync("bash", [script, "up", dir], { env, encoding: "utf8", timeout: 120_000 });
  if (out.status === 2) return { unavailable: out.stderr.trim() };
  if (out.status !== 0) throw new Error(`remote-engine.sh up failed (${out.status}): ${out.stderr}`);
  const vars = Object.fromEntries(
    out.stdout
      .trim()
      .split("\n")
      .map((l) => l.split("=", 2) as [string, string]),
  );
  return {
    engine: {
      address: vars.DBLAB_REMOTE_ADDRESS,
      dockerHost: vars.DBLAB_REMOTE_DOCKER_HOST,
      home: vars.DBLAB_REMOTE_HOME,
      socket: vars.DBLAB_REMOTE_SOCKET.replace(/^unix:\/\//, ""),
      tlsHost: vars.DBLAB_REMOTE_TLS_HOST,
      certPath: vars.DBLAB_REMOTE_CERT_PATH,
      ns: vars.DBLAB_REMOTE_NS,
    },
  };
}

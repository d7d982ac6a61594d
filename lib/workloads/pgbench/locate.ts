/**
 * Where pgbench comes from: this machine (DBLAB_PGBENCH, PATH, the newest /usr/lib/postgresql/<major>/bin),
 * else the pgbench inside a docker target's image, run with `docker exec`.
 */
import { spawnSync } from "node:child_process";
import fs from "node:fs";
import path from "node:path";
import type { StartedServer } from "../../targets/types";
import { ignored } from "../../runtime/debug";

/** A server that can run a command beside itself (`StartedServer.exec`: a container). */
export type ExecCapableServer = StartedServer & { readonly exec: NonNullable<StartedServer["exec"]> };

export type PgbenchRunner =
  | { readonly kind: "host"; readonly path: string; readonly version: string }
  | {
      readonly kind: "container";
      readonly server: ExecCapableServer;
      readonly version: string;
      /** The server's port inside the container. */
      readonly port: number;
    };

const CONTAINER_PORT = 5432;

export class PgbenchNotFoundError extends Error {
  override readonly name = "PgbenchNotFoundError";
}

function hostVersion(file: string): string | undefined {
  const r = spawnSync(file, ["--version"], { encoding: "utf8", timeout: 10_000 });
  if (r.status !== 0) return undefined;
  return /pgbench \(PostgreSQL\) ([\d.]+)/.exec(r.stdout)?.[1] ?? r.stdout.trim();
}

function onPath(name: string): string | undefined {
  for (const dir of (process.env.PATH ?? "").split(path.delimiter)) {
    if (!dir) continue;
    const file = path.join(dir, name);
    try {
      fs.accessSync(file, fs.constants.X_OK);
      return file;
    } catch {
      // not here
    }
  }
  return undefined;
}

/** Newest major first. */
function debianLayout(tool = "pgbench"): string[] {
  const root = "/usr/lib/postgresql";
  if (!fs.existsSync(root)) return [];
  return fs
    .readdirSync(root)
    .filter((d) => /^\d+(\.\d+)?$/.test(d))
    .sort((a, b) => Number(b) - Number(a))
    .map((d) => path.join(root, d, "bin", tool))
    .filter((f) => fs.existsSync(f));
}

/** The host's pgbench, or undefined; DBLAB_PGBENCH, when set, must work. */
export function findHostPgbench(): { path: string; version: string } | undefined {
  const forced = process.env.DBLAB_PGBENCH;
  if (forced) {
    const version = hostVersion(forced);
    if (!version)
      throw new PgbenchNotFoundError(`DBLAB_PGBENCH=${forced} does not run (\`${forced} --version\` failed)`);
    return { path: forced, version };
  }
  for (const candidate of [onPath("pgbench"), ...debianLayout()]) {
    if (!candidate) continue;
    const version = hostVersion(candidate);
    if (version) return { path: candidate, version };
  }
  return undefined;
}

/**
 * Another client tool (psql, pg_dump): beside the host's pgbench (same version), else PATH, else the newest Debian
 * layout.
 */
export function findHostClientTool(tool: string): string | undefined {
  const pgbench = findHostPgbench();
  const beside = pgbench ? path.join(path.dirname(pgbench.path), tool) : undefined;
  for (const candidate of [beside, onPath(tool), ...debianLayout(tool)]) {
    if (candidate && fs.existsSync(candidate)) return candidate;
  }
  return undefined;
}

function isExecCapable(server: StartedServer): server is ExecCapableServer {
  return typeof server.exec === "function";
}

/** Picks how to run pgbench against `server`; throws PgbenchNotFoundError with what to install. */
export async function locatePgbench(server: StartedServer): Promise<PgbenchRunner> {
  // On a remote engine the image's own pgbench runs beside the server, so the tunnel's round trip is not
  // charged to every statement (docs/targets.md); the stand-in image has none, so then the host's.
  const dockerHost = server.network?.dockerHost;
  const remote = dockerHost !== undefined && dockerHost !== "this machine";
  const host = findHostPgbench();
  if (host && (!remote || process.env.DBLAB_PGBENCH)) return { kind: "host", ...host };
  if (isExecCapable(server)) {
    const r = await server.exec(["pgbench", "--version"]).catch(ignored("pgbench --version in the container"));
    if (r && r.exitCode === 0) {
      return {
        kind: "container",
        server,
        version: /([\d.]+)/.exec(r.stdout)?.[1] ?? r.stdout.trim(),
        port: CONTAINER_PORT,
      };
    }
  }
  if (host) return { kind: "host", ...host };
  throw new PgbenchNotFoundError(
    "pgbench not found: install the PostgreSQL client tools (e.g. `apt-get install postgresql-client` or " +
      "`brew install libpq`), put pgbench on PATH or set DBLAB_PGBENCH to its path" +
      (isExecCapable(server) ? "; the docker image in use has no pgbench either" : ""),
  );
}

export function describeRunner(runner: PgbenchRunner): string {
  return runner.kind === "host" ? `host ${runner.path}` : `container ${runner.server.id.slice(0, 12)}`;
}

/**
 * Where a database runs: one `StartedServer` interface over Docker, embedded and external targets,
 * so a notebook never branches on the kind. What only some servers can do is an optional capability.
 */

import type { ConnectionOptions as TlsConnectionOptions } from "node:tls";

import type { DiskNeed } from "./disk-need";
import type { Engine } from "./engines";

export { ENGINES, type Engine } from "./engines";
export type TargetKind = "embedded" | "docker" | "external";
export const TARGET_KINDS: readonly TargetKind[] = ["embedded", "docker", "external"];

/** Server settings as `name = value` (PostgreSQL: `-c name=value`). */
export type ServerSettings = Readonly<Record<string, string | number | boolean>>;

export interface ResourceLimits {
  /** CPUs the container may use (docker only; recorded for every kind). */
  readonly cpus?: number;
  /** Memory limit in bytes (docker only). */
  readonly memoryBytes?: number;
}

export interface ServerSpec {
  readonly engine: Engine;
  /** PostgreSQL GUCs; MongoDB mongod options such as `wiredTigerCacheSizeGB`. */
  readonly settings?: ServerSettings;
  readonly limits?: ResourceLimits;
  /** Short name for logs and labels, e.g. "01-pg". */
  readonly name?: string;
  /** What the experiment asks of the server beyond its own database (the external pre-flight checks it). */
  readonly uses?: ServerUses;
  /** The run's results folder name, carried in database and container names (run-names.ts). */
  readonly runId?: string;
}

export interface ServerUses {
  /** Who asks, as the pre-flight names it, e.g. "01 index write cost". */
  readonly notebook: string;
  /** The notebook's estimate of the data directory's peak size (the embedded target checks it). */
  readonly disk?: DiskNeed;
  readonly extensions?: readonly ExtensionUse[];
  /** Sessions open at once at the peak, the lab's own included. */
  readonly clients?: number;
  /** Databases the workload creates beside the lab's own, as suffixes of `databasePrefix`. */
  readonly databases?: readonly string[];
  /** A temporary replication slot is used (needs REPLICATION and wal_level ≥ replica). */
  readonly walHold?: { readonly measures: string };
}

export interface ExtensionUse {
  readonly name: string;
  /** Must be in shared_preload_libraries. */
  readonly preload?: boolean;
  /** Without it the notebook cannot run at all. */
  readonly required?: boolean;
  /** What the notebook loses without it. */
  readonly measures: string;
}

/** How to reach a server; `password` is never printed (see `redactUri`). */
export interface ConnectionInfo {
  readonly host: string;
  readonly port: number;
  readonly user: string;
  readonly password: string;
  readonly database: string;
  /** TLS as node-postgres's `ssl` option takes it; absent: plaintext. See `postgresClientConfig`. */
  readonly ssl?: false | TlsConnectionOptions;
  /** libpq's environment for pgbench/psql to make the same connection; never the password. */
  readonly libpqEnvironment?: Readonly<Record<string, string>>;
  /** application_name for the workload's sessions. */
  readonly applicationName?: string;
  /** libpq `options`, e.g. "-c search_path=x". */
  readonly options?: string;
  readonly connectTimeoutSeconds?: number;
  /** sslnegotiation=direct (server ≥ 17). */
  readonly sslNegotiation?: "postgres" | "direct";
  /** channel_binding=prefer. */
  readonly channelBinding?: boolean;
}

/** How the lab's own session reached the server (pg_stat_ssl). */
export interface TransportSecurity {
  /** The sslmode in force and where it came from. */
  readonly sslMode: string;
  readonly sslModeSource: string;
  readonly tls: boolean;
  readonly version?: string;
  readonly cipher?: string;
  /** What was checked of the server's certificate. */
  readonly certificate:
    "chain and host name verified" | "chain verified, host name not checked" | "not verified" | "none";
}

/** What the results' metadata records about a server; no credentials. */
export interface ServerDescription {
  readonly engine: Engine;
  readonly kind: TargetKind;
  /** As reported by the server, e.g. "17.6". */
  readonly version: string;
  /** Image (docker), binary package (embedded) or redacted URI (external). */
  readonly source: string;
  /** The docker image is the lab's locally built stand-in. */
  readonly standInImage?: boolean;
  readonly limits?: ResourceLimits;
  readonly settings?: ServerSettings;
  readonly address: string;
  /** Storage under the data directory (filesystem, device, measured fsync). */
  readonly storage?: {
    readonly path: string;
    readonly fsType: string;
    readonly device: string;
    readonly fsyncMs?: number;
    readonly fsyncProbe?: string;
  };
  /** Why `storage` is absent. */
  readonly storageUnmeasured?: string;
  /** External PostgreSQL: TLS in use and what was verified. */
  readonly transport?: TransportSecurity;
}

/** How a command runs in the server's environment (`StartedServer.exec`). */
export interface ExecOptions {
  readonly env?: readonly string[];
  /** Default: the image's user. */
  readonly user?: string;
}

/** Where a server's engine runs and how the lab reaches it (`StartedServer.network`). */
export interface ServerNetwork {
  /** "this machine", or the engine's host as the run header shows it. */
  readonly dockerHost: string;
  /** e.g. "bridge", "ssh-tunnel", "bind-address". */
  readonly route: string;
}

export interface ExecResult {
  readonly exitCode: number;
  readonly stdout: string;
  readonly stderr: string;
}

export interface StartedServer {
  readonly id: string;
  readonly engine: Engine;
  readonly kind: TargetKind;
  readonly connection: ConnectionInfo;
  /** Includes the password: for drivers only, never printed. */
  readonly uri: string;
  readonly description: ServerDescription;
  /** On a shared (external) server: the start of every database name this run makes (run-names.ts). */
  readonly databasePrefix?: string;
  /** Restart the server process with the same data and settings; external targets throw. */
  restart(): Promise<void>;
  /** Stop the server and remove what the lab created. Idempotent. */
  stop(): Promise<void>;
  /** Present when the lab can run streaming-replication standbys of this server. */
  readonly replication?: ReplicationCapability;
  /** Present where the lab carries the link itself (ssh tunnel): the bytes that crossed it. */
  readonly linkTraffic?: () => LinkTraffic;
  /**
   * Present where the lab can see the server's process from outside (a container): undefined while
   * it runs, else how it ended, so a lost connection is blamed on the server.
   */
  readonly processGone?: () => Promise<string | undefined>;
  /** Present where a command can run beside the server, in its environment (a container). */
  readonly exec?: (cmd: string[], options?: ExecOptions) => Promise<ExecResult>;
  /** Present where an engine the lab drives runs the server (docker). */
  readonly network?: ServerNetwork;
}

/** Bytes over the link to a remote engine's host since the server started. */
export interface LinkTraffic {
  /** Database tunnel payload: sent and received. */
  readonly tunnelSent: number;
  readonly tunnelReceived: number;
  /** The SSH connection on the wire (encrypted, everything to that host from this process). */
  readonly wireSent: number;
  readonly wireReceived: number;
}

/** One standby to make of a primary. */
export interface StandbySpec {
  /** application_name on the primary and in synchronous_standby_names, e.g. "s1". */
  readonly name: string;
  /** Where the standby connects to the primary (a delay link, or the primary itself). */
  readonly upstreamHost: string;
  readonly upstreamPort: number;
  /** Run it on this other host (it reaches the primary through that host's SSH; `upstream*` unused). */
  readonly on?: StandbyHost;
}

/** Another host to run a standby on. */
export interface StandbyHost {
  /** e.g. "ssh://root@10.0.0.5". */
  readonly host: string;
}

export interface StandbyOptions {
  /** Default 60 s. */
  readonly streamingTimeoutMs?: number;
  /** Default: the OS temp directory. */
  readonly baseDir?: string;
}

export interface ReplicationCapability {
  /** Makes standbys (the primary restarts meanwhile) and waits until each streams; on failure removes them. */
  startStandbys(specs: readonly StandbySpec[], options?: StandbyOptions): Promise<StartedServer[]>;
}

/** A server that can be a replication primary: see `StartedServer.replication`. */
export type ReplicationPrimary = StartedServer & { readonly replication: ReplicationCapability };

export function canReplicate(server: StartedServer): server is ReplicationPrimary {
  return server.replication !== undefined;
}

export interface Target {
  readonly kind: TargetKind;
  start(spec: ServerSpec): Promise<StartedServer>;
}

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
  /** Bytes (docker only). */
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
  /** e.g. "01 index write cost". */
  readonly notebook: string;
  /** The notebook's estimate of the data directory's peak size. */
  readonly disk?: DiskNeed;
  readonly extensions?: readonly ExtensionUse[];
  /** Sessions at the peak, the lab's own included. */
  readonly clients?: number;
  /** Suffixes of `databasePrefix` the workload creates. */
  readonly databases?: readonly string[];
  /** Needs REPLICATION and wal_level ≥ replica. */
  readonly walHold?: { readonly measures: string };
}

export interface ExtensionUse {
  readonly name: string;
  /** Must be in shared_preload_libraries. */
  readonly preload?: boolean;
  /** Without it the notebook cannot run at all. */
  readonly required?: boolean;
  readonly measures: string;
}

/** How to reach a server; `password` is never printed (see `redactUri`). */
export interface ConnectionInfo {
  readonly host: string;
  readonly port: number;
  readonly user: string;
  readonly password: string;
  readonly database: string;
  /** node-postgres's `ssl`; absent: plaintext. */
  readonly ssl?: false | TlsConnectionOptions;
  /** For pgbench/psql to make the same connection; never the password. */
  readonly libpqEnvironment?: Readonly<Record<string, string>>;
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
  readonly sslMode: string;
  readonly sslModeSource: string;
  readonly tls: boolean;
  readonly version?: string;
  readonly cipher?: string;
  readonly certificate:
    "chain and host name verified" | "chain verified, host name not checked" | "not verified" | "none";
}

/** No credentials. */
export interface ServerDescription {
  readonly engine: Engine;
  readonly kind: TargetKind;
  readonly version: string;
  /** Image, binary package or redacted URI. */
  readonly source: string;
  readonly standInImage?: boolean;
  readonly limits?: ResourceLimits;
  readonly settings?: ServerSettings;
  readonly address: string;
  readonly storage?: {
    readonly path: string;
    readonly fsType: string;
    readonly device: string;
    readonly fsyncMs?: number;
    readonly fsyncProbe?: string;
  };
  /** Why `storage` is absent. */
  readonly storageUnmeasured?: string;
  readonly transport?: TransportSecurity;
}

export interface ExecOptions {
  readonly env?: readonly string[];
  readonly user?: string;
}

export interface ServerNetwork {
  readonly dockerHost: string;
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
  /** Includes the password: never printed. */
  readonly uri: string;
  readonly description: ServerDescription;
  /** On a shared server: the start of every database name this run makes. */
  readonly databasePrefix?: string;
  /** Same data and settings; external targets throw. */
  restart(): Promise<void>;
  /** Removes what the lab created. Idempotent. */
  stop(): Promise<void>;
  readonly replication?: ReplicationCapability;
  /** Where the lab carries the link (ssh tunnel): the bytes that crossed it. */
  readonly linkTraffic?: () => LinkTraffic;
  /** Where the process is visible from outside (a container): how it ended, undefined while it runs. */
  readonly processGone?: () => Promise<string | undefined>;
  /** Run a command beside the server (a container). */
  readonly exec?: (cmd: string[], options?: ExecOptions) => Promise<ExecResult>;
  readonly network?: ServerNetwork;
}

export interface LinkTraffic {
  readonly tunnelSent: number;
  readonly tunnelReceived: number;
  /** The SSH connection on the wire (encrypted, everything to that host). */
  readonly wireSent: number;
  readonly wireReceived: number;
}

export interface StandbySpec {
  /** e.g. "s1", as in synchronous_standby_names. */
  readonly name: string;
  /** A delay link, or the primary itself. */
  readonly upstreamHost: string;
  readonly upstreamPort: number;
  /** Run it on this other host (reaching the primary through its SSH; `upstream*` unused). */
  readonly on?: StandbyHost;
}

export interface StandbyHost {
  /** e.g. "ssh://root@10.0.0.5". */
  readonly host: string;
}

export interface StandbyOptions {
  readonly streamingTimeoutMs?: number;
  readonly baseDir?: string;
}

export interface ReplicationCapability {
  /** Makes standbys (the primary restarts meanwhile) and waits until each streams. */
  startStandbys(specs: readonly StandbySpec[], options?: StandbyOptions): Promise<StartedServer[]>;
}

export type ReplicationPrimary = StartedServer & { readonly replication: ReplicationCapability };

export function canReplicate(server: StartedServer): server is ReplicationPrimary {
  return server.replication !== undefined;
}

export interface Target {
  readonly kind: TargetKind;
  start(spec: ServerSpec): Promise<StartedServer>;
}

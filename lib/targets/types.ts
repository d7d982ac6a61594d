/**
 * One `StartedServer` interface over Docker, embedded and external targets, so a notebook never
 * branches on the kind; what only some servers can do is an optional capability.
 */

import type { ConnectionOptions as TlsConnectionOptions } from "node:tls";

import type { DiskNeed } from "./disk-need";
import type { Engine } from "./engines";

export { ENGINES, type Engine } from "./engines";
export type TargetKind = "embedded" | "docker" | "external";
export const TARGET_KINDS: readonly TargetKind[] = ["embedded", "docker", "external"];

/** PostgreSQL: `-c name=value`. */
export type ServerSettings = Readonly<Record<string, string | number | boolean>>;

export interface ResourceLimits {
  /** Docker only; recorded for every kind. */
  readonly cpus?: number;
  /** Bytes (docker only). */
  readonly memoryBytes?: number;
}

export interface ServerSpec {
  readonly engine: Engine;
  readonly settings?: ServerSettings;
  readonly limits?: ResourceLimits;
  /** e.g. "01-pg". */
  readonly name?: string;
  /** The external pre-flight checks it. */
  readonly uses?: ServerUses;
  /** Carried in database and container names (run-names.ts). */
  readonly runId?: string;
}

export interface ServerUses {
  readonly notebook: string;
  readonly disk?: DiskNeed;
  readonly extensions?: readonly ExtensionUse[];
  /** The lab's own included. */
  readonly clients?: number;
  /** Suffixes of `databasePrefix` the workload creates. */
  readonly databases?: readonly string[];
  readonly walHold?: { readonly measures: string };
}

export interface ExtensionUse {
  readonly name: string;
  /** Must be in shared_preload_libraries. */
  readonly preload?: boolean;
  readonly required?: boolean;
  readonly measures: string;
}

/** `password` is never printed (see `redactUri`). */
export interface ConnectionInfo {
  readonly host: string;
  readonly port: number;
  readonly user: string;
  readonly password: string;
  readonly database: string;
  /** Absent: plaintext. */
  readonly ssl?: false | TlsConnectionOptions;
  /** Never the password. */
  readonly libpqEnvironment?: Readonly<Record<string, string>>;
  readonly applicationName?: string;
  readonly options?: string;
  readonly connectTimeoutSeconds?: number;
  readonly sslNegotiation?: "postgres" | "direct";
  readonly channelBinding?: boolean;
}

/** pg_stat_ssl. */
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
  /** Never printed. */
  readonly uri: string;
  readonly description: ServerDescription;
  /** On a shared server: the start of every database name this run makes. */
  readonly databasePrefix?: string;
  /** External targets throw. */
  restart(): Promise<void>;
  stop(): Promise<void>;
  readonly replication?: ReplicationCapability;
  /** An ssh tunnel's bytes. */
  readonly linkTraffic?: () => LinkTraffic;
  /** A container: how it ended, undefined while it runs. */
  readonly processGone?: () => Promise<string | undefined>;
  readonly exec?: (cmd: string[], options?: ExecOptions) => Promise<ExecResult>;
  readonly network?: ServerNetwork;
}

export interface LinkTraffic {
  readonly tunnelSent: number;
  readonly tunnelReceived: number;
  /** Encrypted, everything to that host. */
  readonly wireSent: number;
  readonly wireReceived: number;
}

export interface StandbySpec {
  /** As in synchronous_standby_names. */
  readonly name: string;
  readonly upstreamHost: string;
  readonly upstreamPort: number;
  /** Reaching the primary through its SSH; `upstream*` unused. */
  readonly on?: StandbyHost;
}

export interface StandbyHost {
  readonly host: string;
}

export interface StandbyOptions {
  readonly streamingTimeoutMs?: number;
  readonly baseDir?: string;
}

export interface ReplicationCapability {
  /** The primary restarts meanwhile. */
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

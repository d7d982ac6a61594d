/**
 * Where a database runs: one interface, three kinds of target.
 *
 * A `ServerSpec` says what server a notebook wants; a target turns it into a `StartedServer`
 * (connection details, metadata, restart, stop). Docker, embedded and external servers are
 * interchangeable behind this interface, so a notebook never branches on the kind. What only some
 * servers can do is an optional capability of `StartedServer` (`exec`, `network`, `processGone`,
 * `replication`, `linkTraffic`) that callers test for; nothing here is Docker's own (that is
 * `docker/description.ts`).
 */

import type { ConnectionOptions as TlsConnectionOptions } from "node:tls";

import type { DiskNeed } from "./disk-need";
import type { Engine } from "./engines";

export { ENGINES, type Engine } from "./engines";
export type TargetKind = "embedded" | "docker" | "external";
export const TARGET_KINDS: readonly TargetKind[] = ["embedded", "docker", "external"];

/** Server settings as `name = value`; PostgreSQL receives them as `-c name=value`. */
export type ServerSettings = Readonly<Record<string, string | number | boolean>>;

export interface ResourceLimits {
  /** CPUs the container may use (docker only; recorded for every kind). */
  readonly cpus?: number;
  /** Memory limit in bytes (docker only). */
  readonly memoryBytes?: number;
}

export interface ServerSpec {
  readonly engine: Engine;
  /** Server settings. PostgreSQL: GUCs. MongoDB: `wiredTigerCacheSizeGB` and other mongod options. */
  readonly settings?: ServerSettings;
  readonly limits?: ResourceLimits;
  /** A short name for logs and labels, e.g. "01-pg". Letters, digits and dashes. */
  readonly name?: string;
  /**
   * What the experiment will ask of the server beyond its own database: the external target's
   * pre-flight checks it (and says what is lost without it) before the first change there.
   */
  readonly uses?: ServerUses;
  /**
   * The run that asks (its results folder's name): a shared server's database and a container carry
   * it in their names (run-names.ts), so that runs at once never share a name. The session sets it.
   */
  readonly runId?: string;
}

export interface ServerUses {
  /** Who asks, as the pre-flight names it, e.g. "01 index write cost". */
  readonly notebook: string;
  /**
   * The data directory's peak size as the notebook estimates it: the embedded target refuses to
   * start where it does not fit (targets/disk-need). Not checked on Docker or an external server.
   */
  readonly disk?: DiskNeed;
  readonly extensions?: readonly ExtensionUse[];
  /** Sessions open at once at the peak, the lab's own included (pgbench -c plus its helpers). */
  readonly clients?: number;
  /**
   * Databases the workload creates and drops beside the lab's own (template clones for pgbench),
   * as suffixes of the server's `databasePrefix` ("inventory_run" → "dblab_<run>_inventory_run"):
   * an external server lists them in the pre-flight, and on stop drops every database under its
   * prefix, interrupts included.
   */
  readonly databases?: readonly string[];
  /**
   * A temporary replication slot that keeps a window's WAL until it is read (WalHold; 02's
   * decoding trials): the role needs REPLICATION (or superuser) and the server wal_level ≥ replica.
   */
  readonly walHold?: { readonly measures: string };
}

export interface ExtensionUse {
  /** e.g. "pg_walinspect" */
  readonly name: string;
  /** It must be in shared_preload_libraries to count anything (pg_stat_statements). */
  readonly preload?: boolean;
  /** Without it the notebook cannot run at all (rather than leaving these figures out). */
  readonly required?: boolean;
  /** What it gives the notebook, as the pre-flight says what is lost without it. */
  readonly measures: string;
}

/** How to reach a server; `password` is never printed (see `redactUri`). */
export interface ConnectionInfo {
  readonly host: string;
  readonly port: number;
  readonly user: string;
  readonly password: string;
  readonly database: string;
  /**
   * TLS as node-postgres takes it (its `ssl` option: CA, client certificate, whether and how the
   * server's certificate is checked). Absent or false: plaintext, for a server the lab runs on this
   * machine or reaches through its own SSH tunnel. Build a client's options with `postgresClientConfig`.
   */
  readonly ssl?: false | TlsConnectionOptions;
  /**
   * libpq's environment for a libpq program (pgbench, psql) to make the same connection: PGSSLMODE,
   * PGSSLROOTCERT, PGOPTIONS, … Never the password (the caller adds PGPASSWORD to the child alone).
   */
  readonly libpqEnvironment?: Readonly<Record<string, string>>;
  /** application_name for sessions the lab does not name itself (the workload's). */
  readonly applicationName?: string;
  /** Session settings sent at connection start (libpq's `options`, e.g. "-c search_path=x"). */
  readonly options?: string;
  readonly connectTimeoutSeconds?: number;
  /** TLS at once, without the SSLRequest round trip (sslnegotiation=direct; the server must be ≥ 17). */
  readonly sslNegotiation?: "postgres" | "direct";
  /** SCRAM bound to the TLS channel when the server offers it (channel_binding=prefer). */
  readonly channelBinding?: boolean;
}

/**
 * How a server was reached, as the lab's own session saw it (pg_stat_ssl): recorded in metadata and
 * the run header.
 */
export interface TransportSecurity {
  /** The sslmode in force, and where it came from ("connection string", "environment", …). */
  readonly sslMode: string;
  readonly sslModeSource: string;
  readonly tls: boolean;
  /** e.g. "TLSv1.3" */
  readonly version?: string;
  readonly cipher?: string;
  /** What was checked of the server's certificate. */
  readonly certificate:
    "chain and host name verified" | "chain verified, host name not checked" | "not verified" | "none";
}

/** What the results' metadata records about a server. Contains no credentials. */
export interface ServerDescription {
  readonly engine: Engine;
  readonly kind: TargetKind;
  /** Server version as reported by the server itself, e.g. "17.6". */
  readonly version: string;
  /** Image (docker), binary package (embedded) or redacted URI (external). */
  readonly source: string;
  /** True when the docker image is the lab's locally built stand-in, not the official image. */
  readonly standInImage?: boolean;
  readonly limits?: ResourceLimits;
  readonly settings?: ServerSettings;
  /** Where the lab connects (host:port). */
  readonly address: string;
  /**
   * The storage under its data directory (filesystem, device, a measured fsync): embedded servers
   * measured here, docker servers inside their container.
   */
  readonly storage?: {
    readonly path: string;
    readonly fsType: string;
    readonly device: string;
    readonly fsyncMs?: number;
    /** How the fsync figure was taken, when not by the lab's own process. */
    readonly fsyncProbe?: string;
  };
  /** Why `storage` is absent (an external server's data directory is out of the lab's reach). */
  readonly storageUnmeasured?: string;
  /** External PostgreSQL: TLS in use for the lab's session, and what was verified. */
  readonly transport?: TransportSecurity;
}

/** How a command runs inside the server's environment (see `StartedServer.exec`). */
export interface ExecOptions {
  /** `NAME=value` entries added to the command's environment. */
  readonly env?: readonly string[];
  /** User to run as (default: the image's user). */
  readonly user?: string;
}

/**
 * Where a server's engine runs and how the lab reaches the server, for a server run by an engine
 * the lab drives on some host (a Docker engine, here or remote): see `StartedServer.network`.
 */
export interface ServerNetwork {
  /** Where the engine runs: "this machine", or its host as the run header shows it ("ssh://lab (10.0.0.5)"). */
  readonly dockerHost: string;
  /** How the lab reaches the server: "bridge", "published port (docker-proxy)", "ssh-tunnel", "bind-address". */
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
  /** Full connection URI including the password: hand it to drivers, never print it. */
  readonly uri: string;
  readonly description: ServerDescription;
  /**
   * Present where the server is shared with other runs (an external server): the start of every
   * database name this run makes there, carrying the run's id (`databasePrefix` in run-names.ts).
   */
  readonly databasePrefix?: string;
  /**
   * Restart the server process (same data, same settings), as the seeds did between rounds.
   * External targets cannot restart and throw.
   */
  restart(): Promise<void>;
  /** Stop the server and remove what the lab created for it (directory, container). Idempotent. */
  stop(): Promise<void>;
  /**
   * Present when the lab can run streaming-replication standbys of this server on this machine
   * (embedded PostgreSQL: its data directory is here to copy). Experiments ask for this capability,
   * never for the kind of target.
   */
  readonly replication?: ReplicationCapability;
  /**
   * Present where the server is reached over a link the lab carries itself (an ssh:// engine's
   * tunnel): the bytes that crossed it, so a run can show that its data was made on the server's
   * side rather than streamed from here.
   */
  readonly linkTraffic?: () => LinkTraffic;
  /**
   * Present where the lab can look at the server's process from outside its connection (a
   * container's state): undefined while it runs, else how it ended ("its container 3f2a… exited
   * with code 137"). A lost connection is then blamed on the server, not left as a bare ECONNRESET.
   */
  readonly processGone?: () => Promise<string | undefined>;
  /**
   * Present where the lab can run a command beside the server, in its own environment (a
   * container: the image's pgbench next to a remote server instead of this machine's across the link).
   */
  readonly exec?: (cmd: string[], options?: ExecOptions) => Promise<ExecResult>;
  /**
   * Present where an engine the lab drives runs the server (docker): where that engine is and how
   * the server is reached. A lost connection while that engine is gone is blamed on the engine.
   */
  readonly network?: ServerNetwork;
}

/** Bytes over the link to a remote engine's host, since the server started (see StartedServer.linkTraffic). */
export interface LinkTraffic {
  /** Payload through this server's database tunnel: queries and rows sent, results received. */
  readonly tunnelSent: number;
  readonly tunnelReceived: number;
  /**
   * The SSH connection on the wire (encrypted; every API call, image build and tunnel to that
   * host, from this process), counted from the server's start.
   */
  readonly wireSent: number;
  readonly wireReceived: number;
}

/** One standby to make of a primary. */
export interface StandbySpec {
  /** application_name the primary sees, and what synchronous_standby_names lists, e.g. "s1". */
  readonly name: string;
  /** Where the standby connects to reach the primary (a delay link, or the primary itself). */
  readonly upstreamHost: string;
  readonly upstreamPort: number;
  /**
   * Run it on this other host instead of this machine, as the target that runs standbys there
   * names one (the docker target: a `DockerEndpoint`, an ssh:// engine the user named): it then
   * reaches the primary back through that host's SSH connection, and `upstream*` are not used.
   */
  readonly on?: StandbyHost;
}

/** Another host to run a standby on; only the target that made it reads more than its name. */
export interface StandbyHost {
  /** Its address, e.g. "ssh://root@10.0.0.5". */
  readonly host: string;
}

export interface StandbyOptions {
  /** How long to wait for every standby to stream (default 60 s). */
  readonly streamingTimeoutMs?: number;
  /** Parent of the standbys' directories; default: the OS temp directory. */
  readonly baseDir?: string;
}

export interface ReplicationCapability {
  /**
   * Makes standbys of this server (which restarts meanwhile: close connections first, reconnect
   * after) and waits until it sees each one streaming. On failure every standby made is removed.
   */
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

/**
 * Servers given by URI, read with libpq's rules (conninfo.ts); nothing goes in plaintext to another
 * host unless the connection string says sslmode=disable. The lab touches only a database it creates
 * there, marked as the lab's, and drops it on stop.
 */
import { randomBytes } from "node:crypto";
import os from "node:os";
import { Client } from "pg";
import { ParameterError } from "../../params/validate";
import { handleErrors } from "../../runtime/error-events";
import { ignored } from "../../runtime/debug";
import {
  isProcessAlive,
  listRecords,
  processStartTicks,
  unregister,
  writeRecord,
} from "../../runtime/resource-registry";
import { onShutdown } from "../../runtime/shutdown";
import { checkEngine, type Engine } from "../engines";
import { postgresClientConfig } from "../postgres-client";
import { likePrefix, runDatabasePrefix } from "../run-names";
import { EXTERNAL_STORAGE } from "../storage";
import { redactText, redactUri } from "../uri";
import type { ConnectionInfo, ServerDescription, ServerSpec, StartedServer, Target, TransportSecurity } from "../types";
import { isLoopbackHost, resolvePostgresSettings, type PostgresSettings } from "./conninfo";
import { preflight, type PreflightReport } from "./preflight";
import { libpqEnvironment, tlsPlan } from "./tls-options";

function quoteIdentifier(name: string): string {
  return `"${name.replace(/"/g, '""')}"`;
}

export const LAB_DATABASE_COMMENT = "created by db-write-lab; safe to drop when no lab run is active";

/** The comment on a lab database: marker and owner process, so a later run can spot a `kill -9`'s leftover. */
export function labDatabaseComment(): string {
  const ticks = processStartTicks(process.pid);
  return `${LAB_DATABASE_COMMENT} (owner ${os.hostname()} pid ${process.pid}${ticks === undefined ? "" : ` started ${ticks}`})`;
}

const OWNER = /\(owner (\S+) pid (\d+)(?: started (\d+))?\)$/;

export function ownerGone(comment: string | null): boolean {
  if (!comment?.startsWith(LAB_DATABASE_COMMENT)) return false;
  const m = OWNER.exec(comment);
  if (!m || m[1] !== os.hostname()) return false;
  return !isProcessAlive(Number(m[2]), m[3] === undefined ? undefined : Number(m[3]));
}

/**
 * What a lab database's comment says to the next run's sweep (no comment: killed between CREATE DATABASE and COMMENT).
 */
export type DatabaseMark = "dead owner" | "unmarked" | "kept";

export function markOf(comment: string | null): DatabaseMark {
  if (comment === null || comment === "") return "unmarked";
  return ownerGone(comment) ? "dead owner" : "kept";
}

/** The databases of gone runs: owner gone, or unmarked under a gone run's database name. */
export function deadRunsDatabases(
  listed: readonly { readonly name: string; readonly mark: DatabaseMark }[],
  deadRecords: readonly string[],
): string[] {
  const marks = new Map(listed.map((d) => [d.name, d.mark]));
  const runs = listed.filter((d) => d.mark === "dead owner").map((d) => d.name);
  for (const name of deadRecords) if (marks.get(name) !== "kept") runs.push(name);
  const underRun = (name: string): boolean => runs.some((r) => name === r || name.startsWith(`${r}_`));
  return listed
    .filter((d) => d.mark === "dead owner" || (d.mark === "unmarked" && underRun(d.name)))
    .map((d) => d.name);
}

function ownerIsThisProcess(comment: string | null): boolean {
  const m = comment?.startsWith(LAB_DATABASE_COMMENT) ? OWNER.exec(comment) : null;
  return m !== null && m[1] === os.hostname() && Number(m[2]) === process.pid;
}

/** Drops a run's database and every database under its name. */
async function dropUnder(client: Client, database: string): Promise<void> {
  const { rows } = await client.query<{ datname: string }>(
    "SELECT datname FROM pg_database WHERE datname LIKE $1 ORDER BY datname",
    [likePrefix(database)],
  );
  for (const name of [...rows.map((r) => r.datname), database]) {
    await client.query(`DROP DATABASE IF EXISTS ${quoteIdentifier(name)} WITH (FORCE)`);
  }
}

/** Drops this user's lab databases of gone runs (no reaper has the password); a failure is reported, never fatal. */
async function dropLeftovers(client: Client, s: PostgresSettings, say: (m: string) => void): Promise<string[]> {
  const { rows } = await client.query<{ name: string; comment: string | null }>(
    `SELECT datname AS name, shobj_description(oid, 'pg_database') AS comment FROM pg_database
     WHERE datname LIKE 'dblab\\_%' AND pg_get_userbyid(datdba) = current_user`,
  );
  const deadRecords = listRecords().flatMap(({ id, ownerAlive, resource: x }) =>
    !ownerAlive && x.type === "external-database" && x.host === s.host && x.port === s.port && x.user === s.user
      ? [{ id, database: x.database }]
      : [],
  );
  const doomed = deadRunsDatabases(
    rows.map((r) => ({ name: r.name, mark: markOf(r.comment) })),
    deadRecords.map((r) => r.database),
  );
  const dropped: string[] = [];
  for (const name of doomed) {
    try {
      await client.query(`DROP DATABASE IF EXISTS ${quoteIdentifier(name)} WITH (FORCE)`);
    } catch (error) {
      say(`external target: could not drop ${name}, left by a lab run that is gone: ${redactText(String(error))}`);
      continue;
    }
    dropped.push(name);
    say(`external target: dropped ${name}, left on ${where(s)} by a lab run that is gone`);
    for (const r of deadRecords) if (r.database === name) unregister(r.id);
  }
  return dropped;
}

/** `npm run clean` with DBLAB_POSTGRES_URI set: drops that server's lab databases of gone owners. */
export async function dropDeadRunsDatabases(uri: string, say: (m: string) => void): Promise<string[]> {
  const { client, settings } = await connectAdmin(uri, { applicationName: "dblab-clean" });
  try {
    return await dropLeftovers(client, settings, say);
  } finally {
    await client.end().catch(() => undefined);
  }
}

export class PlaintextRefusedError extends ParameterError {}

const NO_TLS_FROM_SERVER = /server does not support SSL/i;

function where(s: PostgresSettings): string {
  return s.host.startsWith("/") ? `the socket in ${s.host}` : `${s.host}:${s.port}`;
}

function optOut(s: PostgresSettings): string {
  return (
    `Set sslmode=verify-full with sslrootcert=<the CA that signed the server's certificate> (or sslmode=require ` +
    `to encrypt without checking who answers) in the URI or PGSSLMODE; or, to send it in plaintext anyway, ` +
    `write sslmode=disable in the URI itself (PostgreSQL at ${where(s)}).`
  );
}

/**
 * Refuses, before connecting, plaintext to another host: no sslmode (libpq's prefer falls back
 * silently), or disable from anywhere but the connection string (an exported PGSSLMODE is not consent).
 */
export function checkPlaintextPolicy(s: PostgresSettings): void {
  if (isLoopbackHost(s.host)) return;
  if (s.sslMode === "disable" && s.sslModeSource === "connection string") return;
  if (s.sslMode === "disable") {
    throw new PlaintextRefusedError(
      `sslmode=disable comes from the ${s.sslModeSource}, and ${s.host} is another host: the lab sends a password ` +
        `and data in plaintext across a network only when the connection string says so. ${optOut(s)}`,
    );
  }
  if (s.sslModeSource === "default") {
    throw new PlaintextRefusedError(
      `${s.host} is another host and the connection names no sslmode (libpq's default, prefer, falls back to ` +
        `plaintext without saying so): the lab does not send a password or data there unencrypted. ${optOut(s)}`,
    );
  }
}

/** The lab's session's TLS, from the server's side (pg_stat_ssl). */
async function transportOf(client: Client, s: PostgresSettings, certificate: TransportSecurity["certificate"]) {
  const { rows } = await client.query<{ ssl: boolean; version: string | null; cipher: string | null }>(
    "SELECT ssl, version, cipher FROM pg_stat_ssl WHERE pid = pg_backend_pid()",
  );
  const row = rows[0] ?? { ssl: false, version: null, cipher: null };
  const transport: TransportSecurity = {
    sslMode: s.sslMode,
    sslModeSource: s.sslModeSource,
    tls: row.ssl,
    version: row.version ?? undefined,
    cipher: row.cipher ?? undefined,
    certificate: row.ssl ? certificate : "none",
  };
  return transport;
}

export interface ExternalTargetOptions {
  /** Default: stdout. */
  readonly onPreflight?: (report: PreflightReport) => void;
  /** Default: stdout. */
  readonly onNote?: (message: string) => void;
}

export class ExternalTarget implements Target {
  readonly kind = "external" as const;
  constructor(
    private readonly uri: string,
    private readonly options: ExternalTargetOptions = {},
  ) {}

  /** Connects, checks TLS and the pre-flight, then creates the lab's database: a refusal leaves nothing. */
  async start(spec: ServerSpec): Promise<StartedServer> {
    return START[checkEngine(spec.engine)](this.uri, spec, this.options);
  }
}

/** Per engine (a new engine does not compile without its entry). */
const START: Readonly<
  Record<Engine, (uri: string, spec: ServerSpec, options: ExternalTargetOptions) => Promise<StartedServer>>
> = {
  mongodb: async (uri) => {
    // PostgreSQL-only runs never load the MongoDB driver.
    const { ExternalMongoServer } = await import("./external-mongo");
    return ExternalMongoServer.connect(uri);
  },
  postgresql: (uri, spec, options) => startPostgres(uri, spec, options),
};

async function startPostgres(uri: string, spec: ServerSpec, options: ExternalTargetOptions): Promise<StartedServer> {
  const { client, settings, admin, transport } = await connectAdmin(uri);
  // The run's id in the name: concurrent runs never share a database.
  const database = spec.runId
    ? runDatabasePrefix(spec.runId)
    : `dblab_${Date.now().toString(36)}_${randomBytes(3).toString("hex")}`;
  const uses = spec.uses && {
    ...spec.uses,
    databases: (spec.uses.databases ?? []).map((suffix) => `${database}_${suffix}`),
  };
  try {
    const report = await preflight(client, { ...spec, uses }, admin, transport);
    (options.onPreflight ?? ((r: PreflightReport) => console.log(r.text)))(report);
    if (report.refusal) throw new ParameterError(report.refusal);
    await dropLeftovers(client, settings, options.onNote ?? ((m) => console.log(m)));
    const taken = await client.query<{ comment: string | null }>(
      "SELECT shobj_description(oid, 'pg_database') AS comment FROM pg_database WHERE datname = $1",
      [database],
    );
    // Our own, from a same-id run whose stop could not reach the server.
    if (taken.rows.length && ownerIsThisProcess(taken.rows[0].comment)) {
      await dropUnder(client, database);
      for (const r of listRecords()) {
        const x = r.resource;
        if (r.ownerPid === process.pid && x.type === "external-database" && x.database === database)
          if (x.host === settings.host && x.port === settings.port) unregister(r.id);
      }
    } else if (taken.rows.length) {
      throw new ParameterError(
        `${database} is on ${where(settings)} already and its owner is alive: another process is running ` +
          `run ${spec.runId ?? database} there now. Nothing was changed.`,
      );
    }
    // Made before CREATE DATABASE, so that a SIGTERM from here on drops it.
    const server = new ExternalPostgresServer(
      { ...admin, database },
      admin,
      report.version,
      redactUri(uri),
      spec,
      transport,
      settings,
    );
    try {
      await client.query(`CREATE DATABASE ${database}`);
      await client.query(`COMMENT ON DATABASE ${database} IS '${labDatabaseComment().replace(/'/g, "''")}'`);
    } catch (error) {
      await server.stop().catch(ignored("external target: drop after a failed CREATE DATABASE"));
      throw error;
    }
    return server;
  } finally {
    await client.end().catch(() => undefined);
  }
}

interface AdminConnection {
  readonly client: Client;
  readonly settings: PostgresSettings;
  readonly admin: ConnectionInfo;
  readonly transport: TransportSecurity;
}

export interface ConnectOptions {
  readonly applicationName?: string;
}

export async function connectAdmin(uri: string, options: ConnectOptions = {}): Promise<AdminConnection> {
  const settings = await resolvePostgresSettings(uri);
  checkPlaintextPolicy(settings);
  const loopback = isLoopbackHost(settings.host);
  // allow to another host: libpq would try plaintext (and send the password); the lab asks for TLS.
  const effective: PostgresSettings =
    !loopback && settings.sslMode === "allow" ? { ...settings, sslMode: "prefer" } : settings;
  let plan = tlsPlan(effective);
  const connectionOf = (ssl: ConnectionInfo["ssl"]): ConnectionInfo => ({
    host: settings.host,
    port: settings.port,
    user: settings.user,
    password: settings.password ?? "",
    database: settings.database,
    ssl,
    libpqEnvironment: libpqEnvironment(effective),
    applicationName: settings.applicationName,
    options: settings.options,
    connectTimeoutSeconds: settings.connectTimeoutSeconds,
    sslNegotiation: settings.sslNegotiation,
    channelBinding: settings.channelBinding === "prefer",
  });
  let admin = connectionOf(plan.ssl);
  const open = async (c: ConnectionInfo): Promise<Client> => {
    const client = handleErrors(
      new Client(
        postgresClientConfig(c, {
          applicationName: options.applicationName,
          connectionTimeoutMillis: (c.connectTimeoutSeconds ?? 10) * 1000,
        }),
      ),
      "external PostgreSQL session",
    );
    await client.connect();
    return client;
  };
  const failed = (error: unknown, what: string) =>
    new Error(
      `Cannot reach the external PostgreSQL at ${redactUri(uri)}${what}: ${redactText((error as Error).message)}`,
      { cause: error },
    );
  let client: Client;
  try {
    client = await open(admin);
  } catch (error) {
    const noTls = error instanceof Error && NO_TLS_FROM_SERVER.test(error.message);
    if (noTls && effective.sslMode === "prefer" && loopback) {
      plan = { ssl: false, certificate: "none" };
      admin = connectionOf(false);
      try {
        client = await open(admin);
      } catch (again) {
        throw failed(again, "");
      }
    } else if (noTls && effective.sslMode === "prefer") {
      throw new PlaintextRefusedError(
        `${settings.host} does not offer TLS (it answered the SSL request with "N"), and sslmode=${settings.sslMode} ` +
          `would fall back to plaintext; nothing was sent but that request. ${optOut(settings)}`,
        { cause: error },
      );
    } else if (noTls) {
      throw failed(
        error,
        ` (sslmode=${settings.sslMode}: the server does not accept TLS connections, ssl = off there)`,
      );
    } else {
      const tlsHint =
        plan.ssl &&
        error instanceof Error &&
        /certificate|self.signed|altnames|hostname|CA|SSL|TLS/i.test(error.message)
          ? ` (sslmode=${effective.sslMode}, sslrootcert=${settings.sslRootCert ?? "none"}: the server's certificate was not accepted)`
          : "";
      throw failed(error, tlsHint);
    }
  }
  try {
    const transport = await transportOf(client, settings, plan.certificate);
    if (
      !transport.tls &&
      !loopback &&
      !(settings.sslMode === "disable" && settings.sslModeSource === "connection string")
    ) {
      throw new PlaintextRefusedError(
        `the session to ${settings.host} is not encrypted (pg_stat_ssl). ${optOut(settings)}`,
      );
    }
    return { client, settings, admin, transport };
  } catch (error) {
    await client.end().catch(() => undefined);
    throw error;
  }
}

class ExternalPostgresServer implements StartedServer {
  readonly kind = "external" as const;
  readonly engine = "postgresql" as const;
  readonly id: string;
  readonly databasePrefix: string;
  private stopping: Promise<void> | undefined;
  private readonly forget: () => void;
  private readonly record: string;

  constructor(
    readonly connection: ConnectionInfo,
    private readonly admin: ConnectionInfo,
    private readonly version: string,
    private readonly redacted: string,
    private readonly spec: ServerSpec,
    private readonly transport: TransportSecurity,
    private readonly settings: PostgresSettings,
  ) {
    this.id = connection.database;
    this.databasePrefix = connection.database;
    this.forget = onShutdown(() => this.stop());
    // Before CREATE DATABASE: after a kill -9, `npm run clean` names it with the SQL to drop it.
    this.record = writeRecord({
      type: "external-database",
      host: connection.host,
      port: connection.port,
      user: connection.user,
      database: connection.database,
      description: `database ${connection.database} on the external PostgreSQL at ${connection.host}:${connection.port} (user ${connection.user})`,
    });
  }

  get uri(): string {
    const c = this.connection;
    const s = this.settings;
    const query = new URLSearchParams({ sslmode: s.sslMode });
    if (s.sslRootCert) query.set("sslrootcert", s.sslRootCert);
    if (s.sslCert) query.set("sslcert", s.sslCert);
    if (s.sslKey) query.set("sslkey", s.sslKey);
    const host = c.host.startsWith("/") ? encodeURIComponent(c.host) : c.host.includes(":") ? `[${c.host}]` : c.host;
    return (
      `postgresql://${encodeURIComponent(c.user)}:${encodeURIComponent(c.password)}@${host}:${c.port}/` +
      `${encodeURIComponent(c.database)}?${query.toString().replace(/\+/g, "%20")}`
    );
  }

  get description(): ServerDescription {
    return {
      engine: "postgresql",
      kind: "external",
      version: this.version,
      source: this.redacted,
      settings: this.spec.settings,
      address: `${this.connection.host}:${this.connection.port}`,
      transport: this.transport,
      storageUnmeasured: EXTERNAL_STORAGE,
    };
  }

  async restart(): Promise<void> {
    throw new Error("An external server cannot be restarted by the lab; this step needs an embedded or docker target");
  }

  /** Idempotent; a second caller waits for the same drop. */
  stop(): Promise<void> {
    this.stopping ??= this.drop();
    return this.stopping;
  }

  private async drop(): Promise<void> {
    this.forget();
    // Bounded: this runs on SIGTERM too.
    const client = handleErrors(
      new Client({
        ...postgresClientConfig(this.admin, {
          applicationName: "dblab-admin",
          connectionTimeoutMillis: (this.admin.connectTimeoutSeconds ?? 10) * 1000,
        }),
        query_timeout: 60_000,
      }),
      "external PostgreSQL drop session",
    );
    await client.connect();
    try {
      await dropUnder(client, this.databasePrefix);
    } finally {
      await client.end();
    }
    unregister(this.record);
  }
}

/**
 * Servers given by URI: a remote host or a managed database, the way out of one machine.
 * The lab touches only a database it creates for itself there, marked with a comment as the lab's,
 * and drops it again on stop.
 */
import { randomBytes } from "node:crypto";
import { Client } from "pg";
import { ParameterError } from "../../params/validate";
import { redactUri } from "../uri";
import type { ConnectionInfo, ServerDescription, ServerSpec, StartedServer, Target } from "../types";

export const LAB_DATABASE_COMMENT = "created by db-write-lab; safe to drop when no lab run is active";

/** Parses a postgres URI into connection fields; throws a clear error for anything else. */
export function parsePostgresUri(uri: string): ConnectionInfo {
  let url: URL;
  try {
    url = new URL(uri);
  } catch {
    throw new ParameterError(
      `"${redactUri(uri)}" is not a valid URI (expected postgresql://user:password@host:port/database)`,
    );
  }
  if (url.protocol !== "postgresql:" && url.protocol !== "postgres:") {
    throw new ParameterError(`"${redactUri(uri)}" is not a PostgreSQL URI (scheme must be postgresql://)`);
  }
  if (!url.hostname) throw new ParameterError(`"${redactUri(uri)}" names no host`);
  return {
    host: url.hostname,
    port: url.port ? Number(url.port) : 5432,
    user: decodeURIComponent(url.username || "postgres"),
    password: decodeURIComponent(url.password),
    database: decodeURIComponent(url.pathname.replace(/^\//, "") || "postgres"),
  };
}

export class ExternalTarget implements Target {
  readonly kind = "external" as const;
  constructor(private readonly uri: string) {}

  async start(spec: ServerSpec): Promise<StartedServer> {
    if (spec.engine !== "postgresql") {
      const { ExternalMongoServer } = await import("./external-mongo");
      return ExternalMongoServer.connect(this.uri);
    }
    const admin = parsePostgresUri(this.uri);
    const client = new Client({ ...admin, connectionTimeoutMillis: 10_000 });
    try {
      await client.connect();
    } catch (error) {
      throw new Error(`Cannot reach the external PostgreSQL at ${redactUri(this.uri)}: ${(error as Error).message}`);
    }
    try {
      const version = (await client.query<{ server_version: string }>("SHOW server_version")).rows[0].server_version;
      const database = `dblab_${Date.now().toString(36)}_${randomBytes(3).toString("hex")}`;
      await client.query(`CREATE DATABASE ${database}`);
      await client.query(`COMMENT ON DATABASE ${database} IS '${LAB_DATABASE_COMMENT}'`);
      return new ExternalPostgresServer({ ...admin, database }, admin, version, redactUri(this.uri), spec);
    } finally {
      await client.end();
    }
  }
}

class ExternalPostgresServer implements StartedServer {
  readonly kind = "external" as const;
  readonly engine = "postgresql" as const;
  readonly id: string;
  private stopped = false;

  constructor(
    readonly connection: ConnectionInfo,
    private readonly admin: ConnectionInfo,
    private readonly version: string,
    private readonly redacted: string,
    private readonly spec: ServerSpec,
  ) {
    this.id = connection.database;
  }

  get uri(): string {
    const c = this.connection;
    return `postgresql://${encodeURIComponent(c.user)}:${encodeURIComponent(c.password)}@${c.host}:${c.port}/${c.database}`;
  }

  get description(): ServerDescription {
    return {
      engine: "postgresql",
      kind: "external",
      version: this.version,
      source: this.redacted,
      // An external server keeps its own settings: the spec's are recorded as "asked for", not applied.
      settings: this.spec.settings,
      address: `${this.connection.host}:${this.connection.port}`,
    };
  }

  async restart(): Promise<void> {
    throw new Error("An external server cannot be restarted by the lab; this step needs an embedded or docker target");
  }

  async stop(): Promise<void> {
    if (this.stopped) return;
    this.stopped = true;
    const client = new Client(this.admin);
    await client.connect();
    try {
      await client.query(`DROP DATABASE IF EXISTS ${this.connection.database} WITH (FORCE)`);
    } finally {
      await client.end();
    }
  }
}

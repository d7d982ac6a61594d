/**
 * node-postgres options, built in one place so a server's TLS, session options and timeout reach
 * every client, and the process's PG* variables (which node-postgres would read itself) do not.
 */
import type { ClientConfig } from "pg";
import type { ConnectionInfo } from "./types";

export interface ClientOptions {
  /** Another database on the same server. */
  readonly database?: string;
  /** The lab's name for this session; else the server's. */
  readonly applicationName?: string;
  /** Overrides the server's connect_timeout. */
  readonly connectionTimeoutMillis?: number;
}

export function postgresClientConfig(c: ConnectionInfo, o: ClientOptions = {}): ClientConfig {
  return {
    host: c.host,
    port: c.port,
    user: c.user,
    password: c.password,
    database: o.database ?? c.database,
    ssl: c.ssl ?? false,
    application_name: o.applicationName ?? c.applicationName,
    options: c.options,
    ...(c.sslNegotiation === "direct" && c.ssl ? { sslnegotiation: "direct" as const } : {}),
    ...(c.channelBinding ? { enableChannelBinding: true } : {}),
    connectionTimeoutMillis:
      o.connectionTimeoutMillis ?? (c.connectTimeoutSeconds !== undefined ? c.connectTimeoutSeconds * 1000 : undefined),
  };
}

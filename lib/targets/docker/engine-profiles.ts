/**
 * How each engine runs in a container: credentials, command line from settings, readiness, URI.
 */
import { mongoProbe, postgresProbe, type ReadinessProbe } from "../readiness";
import { checkSettingName, settingsToArgs } from "../settings";
import type { ConnectionInfo, Engine, ServerSettings } from "../types";
import { postgresUri } from "../uri";

/** How one engine runs in a container: credentials, command line, readiness, URI. */
export interface EngineProfile {
  readonly port: number;
  readonly user: string;
  readonly database: string;
  /** Settings the engine always runs with unless the spec overrides them; recorded in the description. */
  readonly defaults: ServerSettings;
  env(password: string): string[];
  cmd(settings: ServerSettings): string[];
  uri(connection: ConnectionInfo): string;
  /** Answers with the server's version once the final (not an init-time) server does. */
  probe(connection: ConnectionInfo): ReadinessProbe;
  /** Pause between readiness attempts. */
  readonly readyIntervalMs: number;
}

const postgresProfile: EngineProfile = {
  port: 5432,
  user: "postgres",
  database: "postgres",
  defaults: {},
  env: (password) => [`POSTGRES_PASSWORD=${password}`],
  cmd: (settings) => ["postgres", ...settingsToArgs(settings)],
  uri: postgresUri,
  // The official image's init-time server listens on the unix socket only (the stand-in uses
  // single-user mode), so an answered TCP query always comes from the final server.
  probe: postgresProbe,
  readyIntervalMs: 100,
};

function mongoUri(c: ConnectionInfo): string {
  return `mongodb://${encodeURIComponent(c.user)}:${encodeURIComponent(c.password)}@${c.host}:${c.port}/?authSource=admin`;
}

/**
 * mongod options from settings: `wiredTigerCacheSizeGB` and any other option as
 * `--name value` (`true` gives a bare flag, `false` leaves it out); `setParameter.name` keys become
 * `--setParameter name=value`.
 */
function mongodArgs(settings: ServerSettings): string[] {
  const args = ["mongod"];
  for (const [key, value] of Object.entries(settings)) {
    checkSettingName(key);
    if (key.startsWith("setParameter.")) args.push("--setParameter", `${key.slice(13)}=${String(value)}`);
    else if (value === true) args.push(`--${key}`);
    else if (value !== false) args.push(`--${key}`, String(value));
  }
  return args;
}

const MONGO_USER = "lab";

const mongoProfile: EngineProfile = {
  port: 27017,
  user: MONGO_USER,
  database: "admin",
  // mongod would otherwise size its cache from the container's memory limit.
  defaults: { wiredTigerCacheSizeGB: 1 },
  env: (password) => [`MONGO_INITDB_ROOT_USERNAME=${MONGO_USER}`, `MONGO_INITDB_ROOT_PASSWORD=${password}`],
  cmd: mongodArgs,
  uri: mongoUri,
  probe: (connection) =>
    mongoProbe(mongoUri(connection), `${connection.host}:${connection.port}`, { refuseInitTimeServer: true }),
  readyIntervalMs: 200,
};

export const PROFILES: Readonly<Record<Engine, EngineProfile>> = { postgresql: postgresProfile, mongodb: mongoProfile };

/** "17.6 (Debian 17.6-1.pgdg130+1)" → "17.6"; other strings pass through. */
export function shortVersion(version: string): string {
  return /^\d+(\.\d+)*/.exec(version)?.[0] ?? version;
}

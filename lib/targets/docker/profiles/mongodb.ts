/** MongoDB in a container: the official image's conventions, and mongod's options from settings. */
import { mongoProbe } from "../../readiness";
import { checkSettingName } from "../../settings";
import type { ConnectionInfo, ServerSettings } from "../../types";
import type { EngineProfile } from "./profile";

function mongoUri(c: ConnectionInfo): string {
  return `mongodb://${encodeURIComponent(c.user)}:${encodeURIComponent(c.password)}@${c.host}:${c.port}/?authSource=admin`;
}

/**
 * mongod options from settings as `--name value` (`true`: a bare flag, `false`: left out); `setParameter.name` →
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

export const mongoProfile: EngineProfile = {
  port: 27017,
  user: MONGO_USER,
  database: "admin",
  dataDir: "/data/db",
  // mongod would otherwise size its cache from the container's memory limit.
  defaults: { wiredTigerCacheSizeGB: 1 },
  env: (password) => [`MONGO_INITDB_ROOT_USERNAME=${MONGO_USER}`, `MONGO_INITDB_ROOT_PASSWORD=${password}`],
  cmd: mongodArgs,
  uri: mongoUri,
  probe: (connection) =>
    mongoProbe(mongoUri(connection), `${connection.host}:${connection.port}`, { refuseInitTimeServer: true }),
  readyIntervalMs: 200,
};

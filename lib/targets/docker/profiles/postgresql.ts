/** PostgreSQL in a container: the official image's conventions (the stand-in image keeps them). */
import { postgresProbe } from "../../readiness";
import { settingsToArgs } from "../../settings";
import { postgresUri } from "../../uri";
import type { EngineProfile } from "./profile";

export const postgresProfile: EngineProfile = {
  port: 5432,
  user: "postgres",
  database: "postgres",
  // PGDATA of postgres:17.6 and of the stand-in.
  dataDir: "/var/lib/postgresql/data",
  defaults: {},
  env: (password) => [`POSTGRES_PASSWORD=${password}`],
  cmd: (settings) => ["postgres", ...settingsToArgs(settings)],
  uri: postgresUri,
  // The official image's init-time server listens on the unix socket only (the stand-in uses
  // single-user mode), so an answered TCP query always comes from the final server.
  probe: postgresProbe,
  readyIntervalMs: 100,
};

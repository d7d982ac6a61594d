/** The stand-in image keeps the official image's conventions. */
import { postgresProbe } from "../../readiness";
import { settingsToArgs } from "../../settings";
import { postgresUri } from "../../uri";
import type { EngineProfile } from "./profile";

export const postgresProfile: EngineProfile = {
  port: 5432,
  user: "postgres",
  database: "postgres",
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

/**
 * How each engine runs in a container: credentials, command line from settings, readiness, URI;
 * one file per engine under profiles/. The docker target starts a container before any code of
 * lib/engines/ may run (targets are below engines), so an engine's container conventions are
 * the docker target's data, keyed by the closed engine list: a new engine cannot be forgotten here.
 */
import type { Engine } from "../types";
import type { EngineProfile } from "./profiles/profile";
import { mongoProfile } from "./profiles/mongodb";
import { postgresProfile } from "./profiles/postgresql";

export type { EngineProfile } from "./profiles/profile";

export const PROFILES: Readonly<Record<Engine, EngineProfile>> = { postgresql: postgresProfile, mongodb: mongoProfile };

/** "17.6 (Debian 17.6-1.pgdg130+1)" → "17.6"; other strings pass through. */
export function shortVersion(version: string): string {
  return /^\d+(\.\d+)*/.exec(version)?.[0] ?? version;
}

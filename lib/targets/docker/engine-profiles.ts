/**
 * How each engine runs in a container (profiles/), keyed by the closed engine list: the docker
 * target runs before any lib/engines/ code may (targets are below engines), so these are its data.
 */
import type { Engine } from "../types";
import type { EngineProfile } from "./profiles/profile";
import { mongoProfile } from "./profiles/mongodb";
import { postgresProfile } from "./profiles/postgresql";

export type { EngineProfile } from "./profiles/profile";

export const PROFILES: Readonly<Record<Engine, EngineProfile>> = { postgresql: postgresProfile, mongodb: mongoProfile };

/** "17.6 (Debian 17.6-1.pgdg130+1)" → "17.6". */
export function shortVersion(version: string): string {
  return /^\d+(\.\d+)*/.exec(version)?.[0] ?? version;
}

/**
 * Profiles: `smoke` (seconds, for tests), `default` (the main job on a fresh machine, minutes),
 * `full` (the seeds' own scale).
 */
import { oneOf } from "./declare";

export const PROFILES = ["smoke", "default", "full"] as const;
export type ProfileName = (typeof PROFILES)[number];

const PROFILE = oneOf(PROFILES, "smoke: seconds, for tests; default: the main job, minutes; full: the seeds' scale.");

export function checkProfile(value: unknown): ProfileName {
  return PROFILE.check("profile", value);
}

/** Merges a profile's values with a reader's overrides; overrides win. */
export function withProfile<P extends object>(
  profiles: Readonly<Record<ProfileName, P>>,
  profile: unknown,
  overrides: Partial<P>,
): P {
  return { ...profiles[checkProfile(profile)], ...overrides };
}

/** Parameters of notebook 03 (over-indexing), per profile, and their checks. (Being written.) */
import { withProfile, type ProfileName } from "./profiles";
import { rejectUnknownKeys } from "./validate";

export interface OverIndexingParams {
  readonly target: "auto" | "embedded" | "docker" | "external";
}

export const overIndexing_PROFILES: Readonly<Record<ProfileName, OverIndexingParams>> = {
  smoke: { target: "auto" },
  default: { target: "auto" },
  full: { target: "auto" },
};

export function overIndexingParams(profile: ProfileName | string, overrides: Partial<OverIndexingParams> = {}): OverIndexingParams {
  rejectUnknownKeys("03-over-indexing", overrides, Object.keys(overIndexing_PROFILES.default));
  return withProfile(overIndexing_PROFILES, profile, overrides);
}

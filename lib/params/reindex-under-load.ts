/** Parameters of notebook 04 (reindex-under-load), per profile, and their checks. (Being written.) */
import { withProfile, type ProfileName } from "./profiles";
import { rejectUnknownKeys } from "./validate";

export interface ReindexUnderLoadParams {
  readonly target: "auto" | "embedded" | "docker" | "external";
}

export const reindexUnderLoad_PROFILES: Readonly<Record<ProfileName, ReindexUnderLoadParams>> = {
  smoke: { target: "auto" },
  default: { target: "auto" },
  full: { target: "auto" },
};

export function reindexUnderLoadParams(profile: ProfileName | string, overrides: Partial<ReindexUnderLoadParams> = {}): ReindexUnderLoadParams {
  rejectUnknownKeys("04-reindex-under-load", overrides, Object.keys(reindexUnderLoad_PROFILES.default));
  return withProfile(reindexUnderLoad_PROFILES, profile, overrides);
}

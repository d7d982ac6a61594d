/** Parameters of notebook 02 (create-index-after-load), per profile, and their checks. (Being written.) */
import { withProfile, type ProfileName } from "./profiles";
import { rejectUnknownKeys } from "./validate";

export interface CreateIndexAfterLoadParams {
  readonly target: "auto" | "embedded" | "docker" | "external";
}

export const createIndexAfterLoad_PROFILES: Readonly<Record<ProfileName, CreateIndexAfterLoadParams>> = {
  smoke: { target: "auto" },
  default: { target: "auto" },
  full: { target: "auto" },
};

export function createIndexAfterLoadParams(profile: ProfileName | string, overrides: Partial<CreateIndexAfterLoadParams> = {}): CreateIndexAfterLoadParams {
  rejectUnknownKeys("02-create-index-after-load", overrides, Object.keys(createIndexAfterLoad_PROFILES.default));
  return withProfile(createIndexAfterLoad_PROFILES, profile, overrides);
}

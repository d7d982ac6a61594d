/** Parameters of notebook 05 (round-trips), per profile, and their checks. (Being written.) */
import { withProfile, type ProfileName } from "./profiles";
import { rejectUnknownKeys } from "./validate";

export interface RoundTripsParams {
  readonly target: "auto" | "embedded" | "docker" | "external";
}

export const roundTrips_PROFILES: Readonly<Record<ProfileName, RoundTripsParams>> = {
  smoke: { target: "auto" },
  default: { target: "auto" },
  full: { target: "auto" },
};

export function roundTripsParams(profile: ProfileName | string, overrides: Partial<RoundTripsParams> = {}): RoundTripsParams {
  rejectUnknownKeys("05-round-trips", overrides, Object.keys(roundTrips_PROFILES.default));
  return withProfile(roundTrips_PROFILES, profile, overrides);
}

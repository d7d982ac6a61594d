/** The environments of notebook 05: where the client sits, and whether commits wait for standbys. */
import type { RoundTripsParams } from "../params";
import type { EnvironmentKey } from "./trials";

/** Round trips and commit waits: this lab's inputs (emulated), nothing added (loopback), or measured as is (real). */
export type EnvironmentKind = "loopback" | "emulated" | "real";

const direct = () => null;
const sameAz = (p: RoundTripsParams) => p.sameAzRttMs;
const crossAz = (p: RoundTripsParams) => p.crossAzRttMs;
/** The client's round trip, ms (null: direct); the `condition` of published-results.csv it stands for. */
const row = (
  label: string,
  kind: EnvironmentKind,
  quorum: boolean,
  clientTargetMs: (p: RoundTripsParams) => number | null,
  seedCondition: "local" | "same_az" | "cross_az" | null,
) => ({ label, kind, quorum, clientTargetMs, seedCondition }) as const;

export const ENVIRONMENT_INFO: Readonly<Record<EnvironmentKey, ReturnType<typeof row>>> = {
  local: row("local (loopback)", "loopback", false, direct, "local"),
  "same-az": row("same AZ (emulated RTT, one server)", "emulated", false, sameAz, "same_az"),
  "cross-az": row("cross AZ (emulated RTT, one server)", "emulated", false, crossAz, "cross_az"),
  "quorum-same-az": row("same AZ + quorum commit (2 standbys)", "emulated", true, sameAz, "same_az"),
  "quorum-cross-az": row("cross AZ + quorum commit (2 standbys)", "emulated", true, crossAz, "cross_az"),
  external: row("external server (measured)", "real", false, direct, null),
};

export const STANDBY_NAMES = ["s1", "s2"] as const;
/** synchronous_standby_names of the quorum environments: Aurora-like "any one other copy". */
export const QUORUM = `ANY 1 (${STANDBY_NAMES.join(", ")})`;

/** The environments of notebook 05: where the client sits, and whether commits wait for standbys. */
import type { EnvironmentId, RoundTripsParams } from "../params";
import type { EnvironmentKey } from "./trials";

/** Round trips and commit waits: this lab's inputs (emulated), nothing added (loopback), or measured as is (real). */
export type EnvironmentKind = "loopback" | "emulated" | "real";

export interface EnvironmentInfo {
  readonly label: string;
  readonly kind: EnvironmentKind;
  readonly quorum: boolean;
  /** ms; null: direct. */
  clientTargetMs(p: RoundTripsParams): number | null;
  /** published-results.csv's `condition` this one stands for. */
  readonly seedCondition: "local" | "same_az" | "cross_az" | null;
}

export const ENVIRONMENT_INFO: Readonly<Record<EnvironmentKey, EnvironmentInfo>> = {
  local: {
    label: "local (loopback)",
    kind: "loopback",
    quorum: false,
    clientTargetMs: () => null,
    seedCondition: "local",
  },
  "same-az": {
    label: "same AZ (emulated RTT, one server)",
    kind: "emulated",
    quorum: false,
    clientTargetMs: (p) => p.sameAzRttMs,
    seedCondition: "same_az",
  },
  "cross-az": {
    label: "cross AZ (emulated RTT, one server)",
    kind: "emulated",
    quorum: false,
    clientTargetMs: (p) => p.crossAzRttMs,
    seedCondition: "cross_az",
  },
  "quorum-same-az": {
    label: "same AZ + quorum commit (2 standbys)",
    kind: "emulated",
    quorum: true,
    clientTargetMs: (p) => p.sameAzRttMs,
    seedCondition: "same_az",
  },
  "quorum-cross-az": {
    label: "cross AZ + quorum commit (2 standbys)",
    kind: "emulated",
    quorum: true,
    clientTargetMs: (p) => p.crossAzRttMs,
    seedCondition: "cross_az",
  },
  external: {
    label: "external server (measured)",
    kind: "real",
    quorum: false,
    clientTargetMs: () => null,
    seedCondition: null,
  },
};

export const STANDBY_NAMES = ["s1", "s2"] as const;
/** synchronous_standby_names of the quorum environments: Aurora-like "any one other copy". */
export const QUORUM = `ANY 1 (${STANDBY_NAMES.join(", ")})`;

export function singleServerEnvironments(envs: readonly EnvironmentId[]): EnvironmentId[] {
  return envs.filter((e) => !ENVIRONMENT_INFO[e].quorum);
}

export function quorumEnvironments(envs: readonly EnvironmentId[]): EnvironmentId[] {
  return envs.filter((e) => ENVIRONMENT_INFO[e].quorum);
}

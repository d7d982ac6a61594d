/** Parameters of notebook 05 (round trips and commit latency), per profile, and their checks. */
import type { TargetParams } from "../define";
import { NETWORK_CHOICES, type NetworkChoice } from "../../network/emulator";
import { endpointFromHost, resolveEndpoint, type DockerEndpoint } from "../../targets/docker/endpoint";
import { CASES, type CaseId } from "./workload/cases";
import { SYNC_LEVELS, type SyncLevel } from "./workload/replication";
import type { ProfileName } from "../../params/profiles";
import { listOf, nonNegativeNumber, oneOf, ParameterError, positiveInteger } from "../../params/validate";

export const ENVIRONMENTS = ["local", "same-az", "cross-az", "quorum-same-az", "quorum-cross-az"] as const;
export type EnvironmentId = (typeof ENVIRONMENTS)[number];
export const QUORUM_STORAGE = ["memory", "disk"] as const;
export type QuorumStorage = (typeof QUORUM_STORAGE)[number];

export interface RoundTripsParams extends TargetParams {
  /** How delays are emulated: netem where the kernel has it, else the user-space delay proxy. */
  readonly network: NetworkChoice;
  /** Environments to run; the quorum ones need the embedded PostgreSQL binaries. */
  readonly environments: readonly EnvironmentId[];
  /** Statement patterns timed in each environment. */
  readonly cases: readonly CaseId[];
  /** Statements per case (the seed: 10,000). */
  readonly statements: number;
  /** Rows in benchmark_accounts (the seed: 10,000); at least `statements`. */
  readonly rows: number;
  /** Trials per environment and case (the seed: 5). */
  readonly repeats: number;
  /** Round-trip target of the same-AZ environments, ms (the seed measured 0.20). */
  readonly sameAzRttMs: number;
  /** Round-trip target of the cross-AZ environments, ms (the seed measured 1.70). */
  readonly crossAzRttMs: number;
  /** Round trip between the primary and each of its two standbys in the quorum environments, ms. */
  readonly standbyRttMs: number;
  /** Standby round trips for the commit-latency chart (empty: no sweep). */
  readonly sweepStandbyRttsMs: readonly number[];
  /** synchronous_commit levels compared in the sweep (empty: no sweep). */
  readonly syncLevels: readonly SyncLevel[];
  /** Autocommit UPDATEs timed per level and standby round trip in the sweep. */
  readonly sweepCommits: number;
  /** SELECT 1 round trips per link-calibration measurement. */
  readonly calibrationSamples: number;
  /** The quorum cluster's data: "memory" (/dev/shm: flushes cost ~nothing, as on Aurora's storage) or "disk". */
  readonly quorumStorage: QuorumStorage;
  /**
   * Real hosts instead of emulated delays: a Docker engine per environment (DOCKER_HOST "ssh://user@host" or
   * a context). same-az / cross-az run a server there; the quorum ones put their standbys there (ssh:// only).
   */
  readonly hosts: RoundTripHosts;
}

export interface RoundTripHosts {
  readonly sameAz?: string;
  readonly crossAz?: string;
}

const HOST_KEYS = ["sameAz", "crossAz"] as const;

export function hostEndpoint(name: string, value: string): DockerEndpoint {
  try {
    if (value.includes("://")) return endpointFromHost(value, name);
    return resolveEndpoint({ ...process.env, DOCKER_HOST: "", DOCKER_CONTEXT: value });
  } catch (error) {
    throw new ParameterError(`${name}: ${error instanceof Error ? error.message : String(error)}`);
  }
}

function hostsParam(value: unknown): RoundTripHosts {
  if (value === undefined) return {};
  if (typeof value !== "object" || value === null || Array.isArray(value))
    throw new ParameterError(
      `hosts must be an object like { sameAz: "ssh://user@host" }, got ${JSON.stringify(value)}`,
    );
  for (const [key, v] of Object.entries(value)) {
    if (!(HOST_KEYS as readonly string[]).includes(key))
      throw new ParameterError(`hosts.${key} is not known; use ${HOST_KEYS.join(" or ")}`);
    if (typeof v !== "string" || !v)
      throw new ParameterError(`hosts.${key} must be "ssh://user@host" or a context name`);
    hostEndpoint(`hosts.${key}`, v);
  }
  return value;
}

const SEED = {
  target: "auto",
  network: "auto",
  environments: [...ENVIRONMENTS],
  cases: [...CASES],
  rows: 10_000,
  sameAzRttMs: 0.2,
  crossAzRttMs: 1.7,
  standbyRttMs: 1.7,
  syncLevels: [...SYNC_LEVELS],
  quorumStorage: "memory",
  hosts: {},
} as const;
const sized = (
  statements: number,
  repeats: number,
  sweepStandbyRttsMs: number[],
  sweepCommits: number,
  calibrationSamples: number,
): RoundTripsParams => ({ ...SEED, statements, repeats, sweepStandbyRttsMs, sweepCommits, calibrationSamples });

export const ROUND_TRIPS_PROFILES: Readonly<Record<ProfileName, RoundTripsParams>> = {
  smoke: sized(200, 1, [0.2, 1.7], 50, 100),
  // 5 repeats: a paired interval covers its median ≥ 90 %. Per-statement figures do not depend on N
  // (docs/claims-and-regimes.md, "How long a run takes here").
  default: sized(400, 5, [0.2, 0.85, 1.7], 150, 300),
  full: sized(10_000, 5, [0.2, 0.5, 0.85, 1.2, 1.7, 2.5], 1000, 500),
};

function rttMs(name: string, value: unknown): number {
  const v = nonNegativeNumber(name, value);
  if (v > 100)
    throw new ParameterError(
      `${name} is a round trip in milliseconds; ${v} ms is beyond what this lab emulates (≤ 100)`,
    );
  return v;
}

const rttList = (name: string, value: unknown): number[] => {
  if (!Array.isArray(value))
    throw new ParameterError(
      `${name} must be a list of round trips in ms (may be empty), got ${JSON.stringify(value)}`,
    );
  return value.map((v, i) => rttMs(`${name}[${i}]`, v));
};

/** Checks a profile's values merged with a reader's overrides (unknown keys and target: the base). */
export function checkParams(p: RoundTripsParams): RoundTripsParams {
  const statements = positiveInteger("statements", p.statements);
  const rows = positiveInteger("rows", p.rows);
  if (statements > rows)
    throw new ParameterError(
      `statements (${statements}) cannot exceed rows (${rows}): each UPDATE targets one of ids 1..statements`,
    );
  const environments = listOf("environments", p.environments, ENVIRONMENTS);
  const hosts = hostsParam(p.hosts);
  // A quorum environment's standbys go on its host and stream back through the SSH connection.
  for (const [env, key] of [
    ["quorum-same-az", "sameAz"],
    ["quorum-cross-az", "crossAz"],
  ] as const) {
    const host = hosts[key];
    if (host !== undefined && environments.includes(env) && !hostEndpoint(`hosts.${key}`, host).ssh)
      throw new ParameterError(
        `hosts.${key} must be an ssh:// engine (or a context naming one) for ${env}: its standbys reach the ` +
          "primary on this machine back through the SSH connection, and the lab opens no port of this machine to a network",
      );
  }
  return {
    ...p,
    network: oneOf("network", p.network, NETWORK_CHOICES),
    environments,
    cases: listOf("cases", p.cases, CASES),
    statements,
    rows,
    repeats: positiveInteger("repeats", p.repeats),
    sameAzRttMs: rttMs("sameAzRttMs", p.sameAzRttMs),
    crossAzRttMs: rttMs("crossAzRttMs", p.crossAzRttMs),
    standbyRttMs: rttMs("standbyRttMs", p.standbyRttMs),
    sweepStandbyRttsMs: rttList("sweepStandbyRttsMs", p.sweepStandbyRttsMs),
    syncLevels:
      Array.isArray(p.syncLevels) && !p.syncLevels.length ? [] : listOf("syncLevels", p.syncLevels, SYNC_LEVELS),
    sweepCommits: positiveInteger("sweepCommits", p.sweepCommits),
    calibrationSamples: positiveInteger("calibrationSamples", p.calibrationSamples),
    quorumStorage: oneOf("quorumStorage", p.quorumStorage, QUORUM_STORAGE),
    hosts,
  };
}

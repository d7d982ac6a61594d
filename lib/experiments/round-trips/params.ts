/** Parameters of notebook 05 (round trips and commit latency), per profile, and their checks. */
import { TARGET_PARAMS } from "../target-params";
import { NETWORK_CHOICES } from "../../network/emulator";
import { endpointFromHost, resolveEndpoint, type DockerEndpoint } from "../../targets/docker/endpoint";
import { CASES } from "./workload/cases";
import { SYNC_LEVELS } from "./workload/replication";
import type { ProfileName } from "../../params/profiles";
import { custom, declareParams, integer, listOf, number, numbers, oneOf, type ParamsOf } from "../../params/declare";
import { ParameterError } from "../../params/validate";
import { errorMessage } from "../../runtime/error-message";

export const ENVIRONMENTS = ["local", "same-az", "cross-az", "quorum-same-az", "quorum-cross-az"] as const;
export const QUORUM_STORAGE = ["memory", "disk"] as const;
const HOST_KEYS = ["sameAz", "crossAz"] as const;
type RoundTripHosts = Partial<Record<(typeof HOST_KEYS)[number], string>>;

export function hostEndpoint(name: string, value: string): DockerEndpoint {
  try {
    if (value.includes("://")) return endpointFromHost(value, name);
    return resolveEndpoint({ ...process.env, DOCKER_HOST: "", DOCKER_CONTEXT: value });
  } catch (error) {
    throw new ParameterError(`${name}: ${errorMessage(error)}`);
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

const RTT_MS = { min: 0, max: 100, hint: "a round trip in milliseconds, as far as this lab emulates" } as const;
const rtt = (meaning: string) => number(meaning, RTT_MS);

export const RoundTripsParams = declareParams({
  ...TARGET_PARAMS,
  network: oneOf(
    NETWORK_CHOICES,
    "How delays are emulated: netem where the kernel has it, else the user-space delay proxy.",
  ),
  environments: listOf(ENVIRONMENTS, "Environments to run; the quorum ones need the embedded PostgreSQL binaries."),
  cases: listOf(CASES, "Statement patterns timed in each environment."),
  statements: integer("Statements per case (the seed: 10,000)."),
  rows: integer("Rows in benchmark_accounts (the seed: 10,000); at least `statements`."),
  repeats: integer("Trials per environment and case (the seed: 5)."),
  sameAzRttMs: rtt("Round-trip target of the same-AZ environments, ms (the seed measured 0.20)."),
  crossAzRttMs: rtt("Round-trip target of the cross-AZ environments, ms (the seed measured 1.70)."),
  standbyRttMs: rtt("Round trip between the primary and each of its two standbys in the quorum environments, ms."),
  sweepStandbyRttsMs: numbers("Standby round trips for the commit-latency chart (empty: no sweep).", {
    ...RTT_MS,
    empty: true,
    what: "round trips in ms",
  }),
  syncLevels: listOf(SYNC_LEVELS, "synchronous_commit levels compared in the sweep (empty: no sweep).", {
    empty: true,
  }),
  sweepCommits: integer("Autocommit UPDATEs timed per level and standby round trip in the sweep."),
  calibrationSamples: integer("SELECT 1 round trips per link-calibration measurement."),
  quorumStorage: oneOf(
    QUORUM_STORAGE,
    'The quorum cluster\'s data: "memory" (/dev/shm: flushes cost ~nothing, as on Aurora\'s storage) or "disk".',
  ),
  hosts: custom(
    "{ sameAz?: string; crossAz?: string }",
    'Real hosts instead of emulated delays: a Docker engine per environment (DOCKER_HOST "ssh://user@host" or a ' +
      "context). same-az / cross-az run a server there; the quorum ones put their standbys there (ssh:// only).",
    (_name, v) => hostsParam(v),
  ),
});
export type RoundTripsParams = ParamsOf<typeof RoundTripsParams>;

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

/** The `hosts` key of the environments on a host the user named. */
export const hostKey = (env: string) => (env.endsWith("same-az") ? "sameAz" : "crossAz");

/** The server is the user's, measured as it is: nothing is emulated around it. */
export const isExternal = (p: RoundTripsParams) =>
  p.target === "external" || (p.target === "auto" && Boolean(process.env.DBLAB_POSTGRES_URI));

/** Checks a profile's values merged with a reader's overrides (each as declared, then with each other). */
export function checkParams(given: RoundTripsParams): RoundTripsParams {
  const p = RoundTripsParams.check(given);
  if (p.statements > p.rows)
    throw new ParameterError(
      `statements (${p.statements}) cannot exceed rows (${p.rows}): each UPDATE targets one of ids 1..statements`,
    );
  // A quorum environment's standbys go on its host and stream back through the SSH connection.
  for (const env of ["quorum-same-az", "quorum-cross-az"] as const) {
    const key = hostKey(env);
    const host = p.hosts[key];
    if (host !== undefined && p.environments.includes(env) && !hostEndpoint(`hosts.${key}`, host).ssh)
      throw new ParameterError(
        `hosts.${key} must be an ssh:// engine (or a context naming one) for ${env}: its standbys reach the ` +
          "primary on this machine back through the SSH connection, and the lab opens no port of this machine to a network",
      );
  }
  return p;
}

/**
 * How many CPUs the measured server has, for regime factors that depend on CPU saturation (clients
 * per CPU). Said before a run from its target and parameters, and read after it from what the run
 * recorded, by the same rule: an embedded server has the host's CPUs, a Docker container its limit
 * (at most the host's on a local daemon), an external server an unknown number.
 */
import os from "node:os";
import type { RunMetadata } from "../results/metadata";
import { plannedTargetKind, type TargetChoice } from "../targets/select";

/** Before the run: the CPUs the chosen target will give the server, or undefined where unknown. */
export function plannedServerCpus(target: TargetChoice, dockerCpus: number | undefined): number | undefined {
  const host = os.availableParallelism();
  switch (plannedTargetKind("postgresql", target)) {
    case "external":
      return undefined;
    case "docker":
      return dockerCpus !== undefined ? Math.min(dockerCpus, host) : host;
    case "embedded":
      return host;
  }
}

/** After the run: the first server's CPUs as recorded in metadata.json, or undefined where unknown. */
export function recordedServerCpus(metadata: Pick<RunMetadata, "host" | "servers">): number | undefined {
  const server = metadata.servers[0];
  if (!server) return undefined;
  switch (server.kind) {
    case "external":
      return undefined;
    case "docker":
      return server.limits?.cpus;
    default:
      return metadata.host.cpus;
  }
}

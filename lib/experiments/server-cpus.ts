/** The server's CPUs for clients-per-CPU regimes, by one rule before the run and after it. */
import os from "node:os";
import type { RunMetadata } from "../results/metadata";
import { plannedTargetKind, type TargetChoice } from "../targets/select";

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

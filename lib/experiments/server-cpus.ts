/** The server's CPUs for clients-per-CPU regimes, by one rule before the run and after it. */
import os from "node:os";
import type { RunMetadata } from "../results/metadata";
import { plannedTargetKind, type TargetChoice } from "../targets/select";

export function plannedServerCpus(target: TargetChoice, dockerCpus: number | undefined): number | undefined {
  const host = os.availableParallelism();
  const kind = plannedTargetKind("postgresql", target);
  if (kind === "external") return undefined;
  return kind === "docker" && dockerCpus !== undefined ? Math.min(dockerCpus, host) : host;
}

export function recordedServerCpus(metadata: Pick<RunMetadata, "host" | "servers">): number | undefined {
  const server = metadata.servers[0];
  if (!server || server.kind === "external") return undefined;
  return server.kind === "docker" ? server.limits?.cpus : metadata.host.cpus;
}

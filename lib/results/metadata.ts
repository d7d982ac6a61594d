/** What every run records about where and how it ran: host, software, servers, parameters. */
import { spawnSync } from "node:child_process";
import os from "node:os";
import path from "node:path";
import type { StoredServerDescription } from "../targets/docker/description";
import type { LinkTraffic } from "../targets/types";

export { containerFacts, type StoredServerDescription } from "../targets/docker/description";
import type { Quietness } from "./quietness";

export interface HostInfo {
  readonly cpuModel: string;
  readonly cpus: number;
  readonly memoryGiB: number;
  readonly platform: string;
  readonly kernel: string;
  readonly node: string;
}

export interface RunMetadata {
  readonly runId: string;
  readonly notebook: string;
  readonly profile: string;
  readonly startedAt: string;
  readonly host: HostInfo;
  readonly gitCommit: string;
  readonly servers: readonly StoredServerDescription[];
  readonly params: object;
  readonly notes?: readonly string[];
  /** Estimated before the servers started (lib/experiments/eta.ts). */
  readonly eta?: string;
  /** This machine's ETA probes before the servers started. */
  readonly probes?: { readonly cpuProbeSeconds: number; readonly writeProbeSeconds: number | null };
  readonly prospect?: string;
  readonly unavailable?: Readonly<Record<string, string>>;
  quietness?: Quietness;
  // For comparing runs (lib/compare), written by lib/experiments/session.ts.
  readonly serverSettings?: Readonly<Record<string, Readonly<Record<string, string>>>>;
  /** The writing process: while it lives and `finishedAt` is absent, the run is in progress. */
  readonly owner?: { readonly pid: number; readonly host: string };
  readonly finishedAt?: string;
  /** refused: its input was refused; resuming would fail the same way. */
  readonly outcome?: "finished" | "failed" | "refused" | "interrupted";
  /** By engine. */
  readonly linkTraffic?: Readonly<Record<string, LinkTraffic>>;
  /** A resumed run's earlier parts, oldest first, each as it stood when it ended. */
  readonly earlierParts?: readonly EarlierPart[];
}

export type EarlierPart = Partial<Omit<RunMetadata, "earlierParts">> & { readonly [field: string]: unknown };

/** Every part of a stored run's metadata, current first, then earlier ones newest first. */
export function partsOf(metadata: unknown): EarlierPart[] {
  const isPart = (p: unknown): p is EarlierPart => typeof p === "object" && p !== null;
  if (!isPart(metadata)) return [];
  const { earlierParts, ...current } = metadata;
  const earlier = Array.isArray(earlierParts) ? earlierParts.filter(isPart) : [];
  return [current, ...earlier.reverse()];
}

export function hostInfo(): HostInfo {
  return {
    cpuModel: os.cpus()[0]?.model ?? "unknown",
    cpus: os.cpus().length,
    memoryGiB: Math.round((os.totalmem() / 2 ** 30) * 10) / 10,
    platform: `${os.platform()}-${os.arch()}`,
    kernel: os.release(),
    node: process.version,
  };
}

export function gitCommit(): string {
  const cwd = path.resolve(__dirname, "..", "..", "..");
  const head = spawnSync("git", ["rev-parse", "--short=12", "HEAD"], { cwd, encoding: "utf8" });
  if (head.status !== 0) return "unknown";
  const dirty = spawnSync("git", ["status", "--porcelain", "--untracked-files=no"], { cwd, encoding: "utf8" });
  return `${head.stdout.trim()}${dirty.stdout.trim() ? "-dirty" : ""}`;
}

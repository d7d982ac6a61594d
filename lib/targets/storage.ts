/** The filesystem and device under a server's data directory and what one fsync costs there. */
import { medianOfFinite } from "../stats/summary";
import fs from "node:fs";

export interface StorageInfo {
  readonly path: string;
  /** From /proc/self/mounts ("ext4", "tmpfs", "overlay"), or "unknown". */
  readonly fsType: string;
  readonly device: string;
  /** Median ms of FSYNC_PROBES 8 KiB write + fsync calls there (why not pg_test_fsync: docs/targets.md). */
  readonly fsyncMs?: number;
  /** e.g. "dd conv=fsync in the container". */
  readonly fsyncProbe?: string;
}

export const FSYNC_PROBES = 30;

export interface Mount {
  readonly point: string;
  readonly fsType: string;
  readonly device: string;
}

/** /proc/self/mounts text → entries (octal escapes undone). */
export function parseMounts(text: string): Mount[] {
  return text
    .split("\n")
    .filter((line) => line.trim())
    .map((line) => {
      const [device = "", point = "", fsType = ""] = line.split(" ");
      return { device, point: point.replace(/\\040/g, " "), fsType };
    });
}

export function readMounts(): Mount[] {
  try {
    return parseMounts(fs.readFileSync("/proc/self/mounts", "utf8"));
  } catch {
    return [];
  }
}

/**
 * The mount that holds `dir` (longest prefix mount point). `resolve` follows symlinks first; a path
 * inside a container must not be resolved here.
 */
export function mountOf(
  dir: string,
  mounts: readonly Mount[] = readMounts(),
  options: { readonly resolve?: boolean } = {},
): { fsType: string; device: string } {
  let real = dir;
  if (options.resolve ?? true) {
    try {
      real = fs.realpathSync(dir);
    } catch {
      // Not there yet: judged by the path as given.
    }
  }
  let best: Mount | undefined;
  for (const m of mounts) {
    const inside = real === m.point || real.startsWith(m.point.endsWith("/") ? m.point : `${m.point}/`);
    if (inside && (!best || m.point.length > best.point.length)) best = m;
  }
  return best ? { fsType: best.fsType, device: best.device } : { fsType: "unknown", device: "unknown" };
}

export const medianOf = (values: readonly number[]): number | undefined => medianOfFinite(values);

/** Why an external server's storage is not described. */
export const EXTERNAL_STORAGE =
  "cannot be measured: an external server's data directory is out of the lab's reach (filesystem, device and fsync unknown)";

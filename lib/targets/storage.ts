/**
 * What a server's storage is: the filesystem and device under its data directory and what one
 * fsync costs there. Recorded for every server whose data directory the lab can reach (embedded:
 * here; docker: inside its container); an external server's cannot be measured.
 */
import { medianOfFinite } from "../stats/summary";
import fs from "node:fs";

/** The storage under a server's data directory, as recorded in metadata and shown in the header. */
export interface StorageInfo {
  readonly path: string;
  /** Filesystem type from /proc/self/mounts ("ext4", "tmpfs", "overlay"), or "unknown". */
  readonly fsType: string;
  /** The mounted device ("/dev/vda1", "tmpfs"). */
  readonly device: string;
  /**
   * Median of FSYNC_PROBES 8 KiB write + fdatasync (embedded) or fsync (docker, through dd) calls
   * in that directory, ms: what a WAL flush costs there at least. The lab's own probe, not
   * pg_test_fsync: the latter's shortest run takes ~15 s (every method for ≥ 1 s), too long to run
   * per server.
   */
  readonly fsyncMs?: number;
  /** How the fsync figure was taken, when not by this process: "dd conv=fsync in the container". */
  readonly fsyncProbe?: string;
}

export const FSYNC_PROBES = 30;

export interface Mount {
  readonly point: string;
  readonly fsType: string;
  readonly device: string;
}

/** /proc/self/mounts as text → its entries (octal escapes of spaces undone). */
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
 * The mount that holds `dir`: the longest mount point that is a prefix of its path. `resolve`
 * (default) follows symlinks on this machine first; a path inside a container must not be resolved
 * here, where the same path may be something else.
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

/** The median of a list of numbers, or undefined for an empty one. */
export const medianOf = (values: readonly number[]): number | undefined => medianOfFinite(values);

/** Why an external server's storage is not in its description, as the run header says it. */
export const EXTERNAL_STORAGE =
  "cannot be measured: an external server's data directory is out of the lab's reach (filesystem, device and fsync unknown)";

/**
 * Where embedded servers keep their data, and what that storage is: its filesystem, device and the
 * cost of one fsync there. Notebooks 02 and 05 measure WAL writes and commits, which a tmpfs makes
 * free (fsync returns at once), so the default temp directory is refused when it is tmpfs (Fedora,
 * Arch and new Debian installs mount /tmp so) unless a directory on a disk is named.
 */
import fs from "node:fs";
import os from "node:os";
import path from "node:path";

export const DATA_DIR_ENV = "DBLAB_DATA_DIR";

/** The storage under a server's data directory, as recorded in metadata and shown in the header. */
export interface StorageInfo {
  readonly path: string;
  /** Filesystem type from /proc/self/mounts ("ext4", "tmpfs", "overlay"), or "unknown". */
  readonly fsType: string;
  /** The mounted device ("/dev/vda1", "tmpfs"). */
  readonly device: string;
  /**
   * Median of FSYNC_PROBES 8 KiB write + fdatasync calls in that directory, ms: what a WAL flush costs
   * there at least. The lab's own probe (Node's fs.fdatasyncSync), not pg_test_fsync: the latter's
   * shortest run takes ~15 s (every method for ≥ 1 s), too long to run per server.
   */
  readonly fsyncMs?: number;
}

export const FSYNC_PROBES = 30;

/** The mount that holds `dir`: the longest mount point that is a prefix of its real path. */
export function mountOf(dir: string, mounts = readMounts()): { fsType: string; device: string } {
  let real = dir;
  try {
    real = fs.realpathSync(dir);
  } catch {
    // Not there yet: judged by the path as given.
  }
  let best: { point: string; fsType: string; device: string } | undefined;
  for (const m of mounts) {
    const inside = real === m.point || real.startsWith(m.point.endsWith("/") ? m.point : `${m.point}/`);
    if (inside && (!best || m.point.length > best.point.length)) best = m;
  }
  return best ? { fsType: best.fsType, device: best.device } : { fsType: "unknown", device: "unknown" };
}

function readMounts(): { point: string; fsType: string; device: string }[] {
  try {
    return fs
      .readFileSync("/proc/self/mounts", "utf8")
      .split("\n")
      .filter(Boolean)
      .map((line) => {
        const [device, point, fsType] = line.split(" ");
        return { device, point: point.replace(/\\040/g, " "), fsType };
      });
  } catch {
    return [];
  }
}

export class DataDirError extends Error {}

/**
 * The parent directory for embedded servers' data: DBLAB_DATA_DIR when set (it must be an existing,
 * writable directory), else the OS temp directory unless that is tmpfs, then /var/tmp if that is on a
 * disk; otherwise a refusal that says how to choose one.
 */
export function embeddedBaseDir(env: NodeJS.ProcessEnv = process.env, mounts = readMounts()): string {
  const given = env[DATA_DIR_ENV];
  if (given) {
    let st: fs.Stats;
    try {
      st = fs.statSync(given);
    } catch (error) {
      throw new DataDirError(`${DATA_DIR_ENV}=${given} does not exist: create it, or unset ${DATA_DIR_ENV}`, {
        cause: error,
      });
    }
    if (!st.isDirectory()) throw new DataDirError(`${DATA_DIR_ENV}=${given} is not a directory`);
    try {
      fs.accessSync(given, fs.constants.W_OK);
    } catch (error) {
      throw new DataDirError(`${DATA_DIR_ENV}=${given} is not writable by this user`, { cause: error });
    }
    return path.resolve(given);
  }
  const tmp = os.tmpdir();
  if (mountOf(tmp, mounts).fsType !== "tmpfs") return tmp;
  const varTmp = "/var/tmp";
  if (fs.existsSync(varTmp) && mountOf(varTmp, mounts).fsType !== "tmpfs") return varTmp;
  throw new DataDirError(
    `${tmp} is tmpfs (in memory: fsync is free there, so WAL and commit costs would measure nothing real) and ` +
      `${varTmp} is not on a disk either: set ${DATA_DIR_ENV} to a directory on a disk, e.g. ` +
      `\`mkdir -p ~/dblab-data && export ${DATA_DIR_ENV}=~/dblab-data\``,
  );
}

/** Filesystem, device and a measured fsync cost of `dir` (a few tens of ms on a disk; never throws). */
export function storageInfo(dir: string): StorageInfo {
  const { fsType, device } = mountOf(dir);
  let fsyncMs: number | undefined;
  const file = path.join(dir, `.dblab-fsync-probe-${process.pid}`);
  let fd: number | undefined;
  try {
    fd = fs.openSync(file, "w");
    const block = Buffer.alloc(8192, 1);
    const times: number[] = [];
    for (let i = 0; i < FSYNC_PROBES; i++) {
      fs.writeSync(fd, block, 0, block.length, 0);
      const t0 = process.hrtime.bigint();
      fs.fdatasyncSync(fd);
      times.push(Number(process.hrtime.bigint() - t0) / 1e6);
    }
    times.sort((a, b) => a - b);
    fsyncMs = times[Math.floor(times.length / 2)];
  } catch {
    fsyncMs = undefined;
  } finally {
    if (fd !== undefined) fs.closeSync(fd);
    fs.rmSync(file, { force: true });
  }
  return { path: dir, fsType, device, ...(fsyncMs !== undefined ? { fsyncMs } : {}) };
}

/**
 * Where embedded servers keep their data: a tmpfs makes fsync free, which would void the WAL and
 * commit figures, so a tmpfs temp directory is refused unless a directory on a disk is named.
 */
import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import { FSYNC_PROBES, mountOf, readMounts, type StorageInfo } from "../storage";

export const DATA_DIR_ENV = "DBLAB_DATA_DIR";

export { FSYNC_PROBES, mountOf, type StorageInfo } from "../storage";

export class DataDirError extends Error {}

/**
 * DBLAB_DATA_DIR, else the OS temp directory unless tmpfs, then /var/tmp if on a disk; else a refusal saying how to
 * choose.
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

/** Filesystem, device and measured fsync cost of `dir`; never throws. */
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

/** A run's estimated disk need against the free space where its server keeps data, checked before it starts. */
import fs from "node:fs";

export interface DiskNeed {
  readonly bytes: number;
  /** The estimate's parts, e.g. "2 × 100,000,000 rows × 57 B + max_wal_size 4 GiB". */
  readonly what: string;
}

/** Free space the estimate may take: a filesystem filled to the last block fails writes before that. */
export const DISK_HEADROOM = 0.95;

export const FREE_BYTES_ENV = "DBLAB_FREE_BYTES";

export class DiskSpaceError extends Error {}

export function freeBytes(directory: string, env: NodeJS.ProcessEnv = process.env): number {
  const given = env[FREE_BYTES_ENV];
  if (given !== undefined && given !== "") {
    const n = Number(given);
    if (!Number.isFinite(n) || n < 0) throw new Error(`${FREE_BYTES_ENV} must be a byte count; got "${given}"`);
    return n;
  }
  const st = fs.statfsSync(directory);
  return st.bavail * st.bsize;
}

const gib = (b: number) => (b >= 2 ** 30 ? `${(b / 2 ** 30).toFixed(1)} GiB` : `${Math.ceil(b / 2 ** 20)} MiB`);

export function checkDiskNeed(
  need: DiskNeed,
  directory: string,
  who: string,
  how: string,
  env: NodeJS.ProcessEnv = process.env,
): void {
  const free = freeBytes(directory, env);
  if (need.bytes <= free * DISK_HEADROOM) return;
  throw new DiskSpaceError(
    `${who} needs about ${gib(need.bytes)} of disk in ${directory} (${need.what}), and ${gib(free)} is free there: ` +
      `${how}. Nothing was started.`,
  );
}

export const bytesText = gib;

/** `df -Pk` output's available bytes, undefined if unreadable. */
export function parseDfAvailable(text: string): number | undefined {
  const line = text.trim().split("\n")[1];
  const kib = line ? Number(line.trim().split(/\s+/)[3]) : NaN;
  return Number.isFinite(kib) && kib >= 0 ? kib * 1024 : undefined;
}

/** What serverFreeBytes reads (structural: types.ts imports this module). */
export interface ServerStorageView {
  readonly kind: string;
  readonly description: { readonly storage?: { readonly path: string } };
  readonly exec?: (cmd: string[]) => Promise<{ readonly exitCode: number; readonly stdout: string }>;
}

/** Free bytes where a started server keeps its data; undefined where unknown. */
export async function serverFreeBytes(
  server: ServerStorageView,
  env: NodeJS.ProcessEnv = process.env,
): Promise<number | undefined> {
  const dir = server.description.storage?.path;
  if (env[FREE_BYTES_ENV] || (dir && server.kind === "embedded")) {
    try {
      return freeBytes(dir ?? "/", env);
    } catch {
      return undefined;
    }
  }
  if (!dir || !server.exec) return undefined;
  try {
    const r = await server.exec(["df", "-Pk", dir]);
    return r.exitCode === 0 ? parseDfAvailable(r.stdout) : undefined;
  } catch {
    return undefined;
  }
}

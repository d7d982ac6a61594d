/**
 * Every server, container and helper process is recorded on disk with its owner; once the owner is
 * gone, the next start or `npm run clean` removes it (testcontainers' reaper, without a sidecar).
 */
import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import { randomBytes } from "node:crypto";

export type ResourceRecord =
  | {
      readonly type: "process";
      readonly pid: number;
      readonly pidStartTicks?: number;
      readonly directory?: string;
      readonly description: string;
    }
  | {
      readonly type: "docker-container";
      readonly containerId: string;
      readonly description: string;
      /** So it is removed there whatever today's environment names. */
      readonly dockerHost?: string;
      readonly dockerContext?: string;
    }
  | {
      /** No password is on disk, so the next run there drops it; `npm run clean` prints the SQL. */
      readonly type: "external-database";
      readonly host: string;
      readonly port: number;
      readonly user: string;
      readonly database: string;
      readonly description: string;
    };

interface StoredRecord {
  readonly id: string;
  readonly ownerPid: number;
  readonly ownerStartTicks?: number;
  readonly runId?: string;
  readonly createdAt: string;
  readonly resource: ResourceRecord;
}

export function stateRoot(): string {
  return process.env.DBLAB_STATE_DIR ?? path.join(os.tmpdir(), "db-write-lab-state");
}

const recordsPath = (): string => path.join(stateRoot(), "resources");

function recordsDir(): string {
  const dir = recordsPath();
  fs.mkdirSync(dir, { recursive: true });
  return dir;
}

/**
 * The names in the records folder, or none where it does not exist. Reading never creates it: a
 * watcher that reaps after its owner's folder was removed must not bring the folder back.
 */
function recordNames(): { dir: string; names: string[] } {
  const dir = recordsPath();
  try {
    return { dir, names: fs.readdirSync(dir) };
  } catch (e) {
    if ((e as NodeJS.ErrnoException).code === "ENOENT") return { dir, names: [] };
    throw e;
  }
}

/** Clock ticks since boot, so a reused pid is not taken for its owner. */
export function processStartTicks(pid: number): number | undefined {
  try {
    const stat = fs.readFileSync(`/proc/${pid}/stat`, "utf8");
    // The command name (field 2) may contain spaces and ')'.
    const rest = stat.slice(stat.lastIndexOf(")") + 2).split(" ");
    return Number(rest[19]);
  } catch {
    return undefined;
  }
}

export function isProcessAlive(pid: number, startTicks?: number): boolean {
  try {
    process.kill(pid, 0);
  } catch (error) {
    return (error as NodeJS.ErrnoException).code === "EPERM";
  }
  let stat: string;
  try {
    stat = fs.readFileSync(`/proc/${pid}/stat`, "utf8");
  } catch {
    return true;
  }
  const fields = stat.slice(stat.lastIndexOf(")") + 2).split(" ");
  if (fields[0] === "Z" || fields[0] === "X") return false;
  return startTicks === undefined || Number(fields[19]) === startTicks;
}

const ownStartTicks = processStartTicks(process.pid);

/** The temporary name carries its writer, so `removeTornWrites` tells a dead writer's file from one in progress. */
const TMP_SUFFIX = `.${process.pid}-${ownStartTicks ?? 0}.tmp`;

function writeAtomically(file: string, record: StoredRecord): void {
  fs.writeFileSync(`${file}${TMP_SUFFIX}`, JSON.stringify(record, null, 2));
  fs.renameSync(`${file}${TMP_SUFFIX}`, file);
}

export function writeRecord(resource: ResourceRecord, runId?: string): string {
  const id = `${Date.now().toString(36)}-${randomBytes(4).toString("hex")}`;
  const record: StoredRecord = {
    id,
    ownerPid: process.pid,
    ownerStartTicks: ownStartTicks,
    runId,
    createdAt: new Date().toISOString(),
    resource,
  };
  writeAtomically(path.join(recordsDir(), `${id}.json`), record);
  return id;
}

export function update(id: string, resource: ResourceRecord): void {
  const file = path.join(recordsDir(), `${id}.json`);
  const record = JSON.parse(fs.readFileSync(file, "utf8")) as StoredRecord;
  writeAtomically(file, { ...record, resource });
}

export function unregister(id: string): void {
  fs.rmSync(path.join(recordsDir(), `${id}.json`), { force: true });
}

export interface ListedRecord extends StoredRecord {
  readonly ownerAlive: boolean;
}

export function listRecords(): ListedRecord[] {
  const { dir, names } = recordNames();
  const out: ListedRecord[] = [];
  for (const name of names) {
    if (!name.endsWith(".json")) continue;
    try {
      const record = JSON.parse(fs.readFileSync(path.join(dir, name), "utf8")) as StoredRecord;
      out.push({ ...record, ownerAlive: isProcessAlive(record.ownerPid, record.ownerStartTicks) });
    } catch {
      // half-written
    }
  }
  return out;
}

export function removeTornWrites(now = Date.now()): string[] {
  const { dir, names } = recordNames();
  const removed: string[] = [];
  for (const name of names) {
    if (!name.endsWith(".tmp")) continue;
    const writer = /\.json\.(\d+)-(\d+)\.tmp$/.exec(name);
    const file = path.join(dir, name);
    let torn: boolean;
    if (writer) {
      const ticks = Number(writer[2]);
      torn = !isProcessAlive(Number(writer[1]), ticks === 0 ? undefined : ticks);
    } else {
      try {
        torn = now - fs.statSync(file).mtimeMs > 60_000;
      } catch {
        continue;
      }
    }
    if (!torn) continue;
    fs.rmSync(file, { force: true });
    removed.push(name);
  }
  return removed;
}

export function ownRecords(): StoredRecord[] {
  return listRecords().filter((r) => r.ownerPid === process.pid);
}

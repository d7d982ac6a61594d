/** Removes resources whose owner process is gone, and everything this process owns when it ends. */
import fs from "node:fs";
import { spawn } from "node:child_process";
import path from "node:path";
import {
  isProcessAlive,
  listRecords,
  ownRecords,
  removeTornWrites,
  unregister,
  type ResourceRecord,
} from "./resource-registry";
import { handleErrors } from "./error-events";
import { errorMessage } from "./error-message";

function sleepSync(ms: number): void {
  Atomics.wait(new Int32Array(new SharedArrayBuffer(4)), 0, 0, ms);
}

function signal(pid: number, sig: NodeJS.Signals, group: boolean): void {
  try {
    process.kill(group ? -pid : pid, sig);
  } catch {
    // already gone
  }
}

/** Linux /proc, parents first. */
export function processTree(pid: number): number[] {
  const children = new Map<number, number[]>();
  let entries: string[] = [];
  try {
    entries = fs.readdirSync("/proc").filter((e) => /^\d+$/.test(e));
  } catch {
    return [pid];
  }
  for (const entry of entries) {
    try {
      const stat = fs.readFileSync(`/proc/${entry}/stat`, "utf8");
      const ppid = Number(stat.slice(stat.lastIndexOf(")") + 2).split(" ")[1]);
      children.set(ppid, [...(children.get(ppid) ?? []), Number(entry)]);
    } catch {
      // exited while we looked
    }
  }
  const out = [pid];
  for (let i = 0; i < out.length; i++) out.push(...(children.get(out[i]) ?? []));
  return out;
}

/** Each PostgreSQL backend is its own group leader and never notices its postmaster died. */
export function killTree(pid: number): void {
  const tree = processTree(pid); // before the kill: orphans are re-parented
  signal(pid, "SIGKILL", true);
  for (const p of tree) signal(p, "SIGKILL", false);
}

/** Synchronous (for 'exit' handlers): `first`, then SIGKILL to its group after `graceMs`. */
export function stopProcessSync(pid: number, first: NodeJS.Signals = "SIGTERM", graceMs = 3000): void {
  signal(pid, first, false);
  const deadline = Date.now() + graceMs;
  while (isProcessAlive(pid) && Date.now() < deadline) sleepSync(20);
  if (isProcessAlive(pid)) {
    killTree(pid);
    const hardDeadline = Date.now() + 2000;
    while (isProcessAlive(pid) && Date.now() < hardDeadline) sleepSync(20);
  }
}

export function removeProcessResource(resource: Extract<ResourceRecord, { type: "process" }>): void {
  if (isProcessAlive(resource.pid, resource.pidStartTicks)) {
    stopProcessSync(resource.pid, "SIGQUIT");
  }
  if (resource.directory) fs.rmSync(resource.directory, { recursive: true, force: true });
}

export type DockerContainerRecord = Extract<ResourceRecord, { type: "docker-container" }>;
export type ExternalDatabaseRecord = Extract<ResourceRecord, { type: "external-database" }>;

export interface ContainerRemover {
  remove(resource: DockerContainerRecord): Promise<void>;
  reasonKept(resource: DockerContainerRecord, error: unknown): string;
}

let containerRemover: ContainerRemover | undefined;

/** Installed by the Docker layer: the reaper must not import the targets. */
export function setContainerRemover(remover: ContainerRemover): void {
  containerRemover = remover;
}

async function removeContainer(resource: DockerContainerRecord): Promise<void> {
  if (!containerRemover) {
    throw new Error(`no Docker client is loaded in this process to remove ${resource.description}`);
  }
  await containerRemover.remove(resource);
}

export function externalDropAdvice(r: ExternalDatabaseRecord): string {
  const conninfo = `host=${r.host} port=${r.port} user=${r.user} dbname=postgres`;
  const sql = `DROP DATABASE IF EXISTS "${r.database.replace(/"/g, '""')}" WITH (FORCE);`;
  return (
    `the lab keeps no password for ${r.host}:${r.port}, so it cannot drop ${r.database} from here; the next run ` +
    `against that server as ${r.user} drops it and every database under its name (${r.database}_…, its templates ` +
    `and clones), so does \`npm run clean\` with DBLAB_POSTGRES_URI set to that server, or drop it now: ` +
    `psql "${conninfo}" -c '${sql}'`
  );
}

async function removeResource(resource: ResourceRecord): Promise<void> {
  if (resource.type === "process") removeProcessResource(resource);
  else if (resource.type === "docker-container") await removeContainer(resource);
  else throw new Error(externalDropAdvice(resource));
}

export async function removeRecord(record: { readonly id: string; readonly resource: ResourceRecord }): Promise<void> {
  await removeResource(record.resource);
  unregister(record.id);
}

export interface ReapedResource {
  readonly description: string;
  readonly ownerPid: number;
}

export interface KeptResource extends ReapedResource {
  readonly reason: string;
}

export interface ReapOptions {
  readonly onKept?: (kept: KeptResource) => void;
}

function reasonKept(resource: ResourceRecord, error: unknown): string {
  const message = errorMessage(error);
  if (resource.type !== "docker-container" || !containerRemover) return message;
  return containerRemover.reasonKept(resource, error);
}

/** An unreachable engine's record is kept, so a daemon that is down does not fail every run. */
async function removeRecorded(
  record: { id: string; ownerPid: number; resource: ResourceRecord },
  options: ReapOptions,
): Promise<boolean> {
  try {
    await removeResource(record.resource);
  } catch (error) {
    const kept: KeptResource = {
      description: record.resource.description,
      ownerPid: record.ownerPid,
      reason: reasonKept(record.resource, error),
    };
    if (options.onKept) options.onKept(kept);
    else process.stderr.write(`db-write-lab: kept the record of ${kept.description} for later: ${kept.reason}\n`);
    return false;
  }
  unregister(record.id);
  return true;
}

export async function reapOrphans(options: ReapOptions = {}): Promise<ReapedResource[]> {
  const reaped: ReapedResource[] = [];
  removeTornWrites();
  for (const record of listRecords()) {
    if (record.ownerAlive) continue;
    if (await removeRecorded(record, options))
      reaped.push({ description: record.resource.description, ownerPid: record.ownerPid });
  }
  return reaped;
}

export async function releaseOwnResources(options: ReapOptions = {}): Promise<void> {
  for (const record of ownRecords()) await removeRecorded(record, options);
}

export function spawnDetachedReaper(): void {
  const script = path.join(__dirname, "..", "..", "scripts", "clean.js");
  if (!fs.existsSync(script)) return;
  const child = spawn(process.execPath, [script, "--wait-for-pid", String(process.pid), "--quiet"], {
    detached: true,
    stdio: "ignore",
  });
  // The next run's reaper or `npm run clean` removes the rest.
  handleErrors(child, "spawn the detached reaper");
  child.unref();
}

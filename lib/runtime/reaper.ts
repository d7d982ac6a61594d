/**
 * Removes resources whose owner process is gone, and everything this process owns when it ends
 * (the signal and exit handlers that call it are in ./shutdown).
 */
import fs from "node:fs";
import { spawn } from "node:child_process";
import path from "node:path";
import { isProcessAlive, listRecords, ownRecords, unregister, type ResourceRecord } from "./resource-registry";

function sleepSync(ms: number): void {
  Atomics.wait(new Int32Array(new SharedArrayBuffer(4)), 0, 0, ms);
}

function signal(pid: number, sig: NodeJS.Signals, group: boolean): void {
  try {
    process.kill(group ? -pid : pid, sig);
  } catch {
    // Already gone, or no process group of that id: nothing to do.
  }
}

/** `pid` and all its descendants (Linux /proc; elsewhere only `pid`), parents first. */
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

/**
 * SIGKILL to a process, its group and every descendant. A group kill alone is not enough for
 * PostgreSQL: each backend makes itself a group leader (setsid in InitPostmasterChild), and a
 * backend that is stopped (SIGSTOP, a frozen server) never notices its postmaster died: measured
 * here, the backends of a frozen embedded server stayed in state T after the postmaster was killed,
 * and a client ending its connection to one of them waited forever.
 */
export function killTree(pid: number): void {
  const tree = processTree(pid); // read before the kill: orphans are re-parented and lost to us
  signal(pid, "SIGKILL", true);
  for (const p of tree) signal(p, "SIGKILL", false);
}

/**
 * Stops a process synchronously: `first` (PostgreSQL's immediate shutdown is SIGQUIT), then SIGKILL
 * to its whole process group after `graceMs`. Synchronous so it also works in an 'exit' handler.
 */
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

/** How long removing one container may take before its engine counts as unreachable (record kept). */
const REMOVE_TIMEOUT_MS = 30_000;
/**
 * Engines that did not answer in the last minute: their other records are kept at once rather
 * than after another wait each (a long-lived kernel asks again after that).
 */
const unreachableEngines = new Map<string, { readonly reason: string; readonly at: number }>();
const UNREACHABLE_MEMORY_MS = 60_000;

/**
 * Removes a container on the engine its record names (a remote one over the same kind of
 * connection it was made with), not on whatever engine today's environment names. An engine that
 * does not answer is an error within REMOVE_TIMEOUT_MS; the caller keeps the record for later.
 */
async function removeContainer(resource: Extract<ResourceRecord, { type: "docker-container" }>): Promise<void> {
  // Loaded lazily so that runs without Docker never load dockerode.
  const { dockerClient, dockerClientFor, dockerEndpoint, withEngineTimeout } =
    await import("../targets/docker/docker-client");
  const { endpointFromRef } = await import("../targets/docker/endpoint");
  const docker = resource.dockerHost
    ? dockerClientFor(endpointFromRef({ dockerHost: resource.dockerHost, dockerContext: resource.dockerContext }))
    : dockerClient();
  const where = resource.dockerHost ?? dockerEndpoint();
  const known = unreachableEngines.get(where);
  if (known && Date.now() - known.at < UNREACHABLE_MEMORY_MS) {
    throw Object.assign(new Error(`the Docker engine at ${where} did not answer a moment ago: ${known.reason}`), {
      code: "ETIMEDOUT",
    });
  }
  const container = docker.getContainer(resource.containerId);
  try {
    await withEngineTimeout(container.remove({ force: true, v: true }), REMOVE_TIMEOUT_MS, where);
  } catch (error) {
    const status = (error as { statusCode?: number }).statusCode;
    if (status === 404) return;
    // No HTTP status: the engine itself was not reached (SSH or TCP failed, or it timed out).
    if (status === undefined)
      unreachableEngines.set(where, { reason: error instanceof Error ? error.message : String(error), at: Date.now() });
    // 409 "removal … already in progress": the owner's own removal, cut short by its exit, is
    // still running in the engine. Seen here after SIGTERM to `npm run reproduce` on the Docker
    // target: the detached reaper met it, kept the record, and a stale record stayed behind.
    if (status !== 409) throw error;
    const deadline = Date.now() + 30_000;
    for (;;) {
      try {
        await withEngineTimeout(container.inspect(), REMOVE_TIMEOUT_MS, where);
      } catch (inspectError) {
        if ((inspectError as { statusCode?: number }).statusCode === 404) return;
        throw inspectError;
      }
      if (Date.now() > deadline) throw error;
      await new Promise((resolve) => setTimeout(resolve, 250));
    }
  }
}

/** Removes one recorded resource (a process with its directory, or a container) and its record. */
export async function removeRecord(record: { readonly id: string; readonly resource: ResourceRecord }): Promise<void> {
  if (record.resource.type === "process") removeProcessResource(record.resource);
  else await removeContainer(record.resource);
  unregister(record.id);
}

export interface ReapedResource {
  readonly description: string;
  readonly ownerPid: number;
}

/** A record the reaper could not act on (its engine unreachable): kept on disk for a later run. */
export interface KeptResource extends ReapedResource {
  readonly reason: string;
}

export interface ReapOptions {
  /** Told about each record kept for later; default: a one-line warning on stderr. */
  readonly onKept?: (kept: KeptResource) => void;
}

async function reasonKept(resource: ResourceRecord, error: unknown): Promise<string> {
  const message = error instanceof Error ? error.message : String(error);
  if (resource.type !== "docker-container") return message;
  const { dockerEndpoint, isEngineUnreachable } = await import("../targets/docker/docker-client");
  const where = resource.dockerHost ?? dockerEndpoint();
  return isEngineUnreachable(error) ? `the Docker engine at ${where} cannot be reached (${message})` : message;
}

/**
 * Removes one resource and its record. Each record is handled on its own: one whose engine cannot be
 * reached (Docker daemon down: connect ENOENT) is kept for later and reported, and the others go on.
 * Issue 15: one stale container record with the daemon down made every run fail at start,
 * embedded ones included, and `npm run clean` too.
 */
async function removeRecorded(
  record: { id: string; ownerPid: number; resource: ResourceRecord },
  options: ReapOptions,
): Promise<boolean> {
  try {
    if (record.resource.type === "process") removeProcessResource(record.resource);
    else await removeContainer(record.resource);
  } catch (error) {
    const kept: KeptResource = {
      description: record.resource.description,
      ownerPid: record.ownerPid,
      reason: await reasonKept(record.resource, error),
    };
    if (options.onKept) options.onKept(kept);
    else process.stderr.write(`db-write-lab: kept the record of ${kept.description} for later: ${kept.reason}\n`);
    return false;
  }
  unregister(record.id);
  return true;
}

/** Removes every recorded resource whose owner is dead; returns what it removed. */
export async function reapOrphans(options: ReapOptions = {}): Promise<ReapedResource[]> {
  const reaped: ReapedResource[] = [];
  for (const record of listRecords()) {
    if (record.ownerAlive) continue;
    if (await removeRecorded(record, options))
      reaped.push({ description: record.resource.description, ownerPid: record.ownerPid });
  }
  return reaped;
}

/** Removes everything this process owns (servers, containers, proxies, pgbench), each on its own. */
export async function releaseOwnResources(options: ReapOptions = {}): Promise<void> {
  for (const record of ownRecords()) await removeRecorded(record, options);
}

// The shutdown path moved to ./shutdown (one for every target); kept here for existing importers.
export { installShutdownHooks } from "./shutdown";

export function spawnDetachedReaper(): void {
  const script = path.join(__dirname, "..", "..", "scripts", "clean.js");
  if (!fs.existsSync(script)) return;
  const child = spawn(process.execPath, [script, "--wait-for-pid", String(process.pid), "--quiet"], {
    detached: true,
    stdio: "ignore",
  });
  child.unref();
}

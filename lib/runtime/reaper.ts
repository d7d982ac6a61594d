/**
 * Removes resources whose owner process is gone, and everything this process owns when it ends.
 */
import fs from "node:fs";
import { spawn } from "node:child_process";
import path from "node:path";
import {
  isProcessAlive,
  listRecords,
  ownRecords,
  unregister,
  type ResourceRecord,
} from "./resource-registry";
import { inKernel } from "./interrupt";

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

/**
 * Stops a process synchronously: `first` (PostgreSQL's immediate shutdown is SIGQUIT), then SIGKILL
 * to its whole process group after `graceMs`. Synchronous so it also works in an 'exit' handler.
 */
export function stopProcessSync(pid: number, first: NodeJS.Signals = "SIGTERM", graceMs = 3000): void {
  signal(pid, first, false);
  const deadline = Date.now() + graceMs;
  while (isProcessAlive(pid) && Date.now() < deadline) sleepSync(20);
  if (isProcessAlive(pid)) {
    signal(pid, "SIGKILL", true);
    signal(pid, "SIGKILL", false);
    const hardDeadline = Date.now() + 2000;
    while (isProcessAlive(pid) && Date.now() < hardDeadline) sleepSync(20);
  }
}

function removeProcessResource(resource: Extract<ResourceRecord, { type: "process" }>): void {
  if (isProcessAlive(resource.pid, resource.pidStartTicks)) {
    stopProcessSync(resource.pid, "SIGQUIT");
  }
  if (resource.directory) fs.rmSync(resource.directory, { recursive: true, force: true });
}

async function removeContainer(containerId: string): Promise<void> {
  // Loaded lazily so that runs without Docker never load dockerode.
  const { dockerClient } = await import("../targets/docker/docker-client");
  try {
    await dockerClient().getContainer(containerId).remove({ force: true, v: true });
  } catch (error) {
    if ((error as { statusCode?: number }).statusCode !== 404) throw error;
  }
}

/** Removes one recorded resource (a process with its directory, or a container) and its record. */
export async function removeRecord(record: { readonly id: string; readonly resource: ResourceRecord }): Promise<void> {
  if (record.resource.type === "process") removeProcessResource(record.resource);
  else await removeContainer(record.resource.containerId);
  unregister(record.id);
}

export interface ReapedResource {
  readonly description: string;
  readonly ownerPid: number;
}

/** Removes every recorded resource whose owner is dead; returns what it removed. */
export async function reapOrphans(): Promise<ReapedResource[]> {
  const reaped: ReapedResource[] = [];
  for (const record of listRecords()) {
    if (record.ownerAlive) continue;
    if (record.resource.type === "process") removeProcessResource(record.resource);
    else await removeContainer(record.resource.containerId);
    unregister(record.id);
    reaped.push({ description: record.resource.description, ownerPid: record.ownerPid });
  }
  return reaped;
}

/** Removes everything this process owns (used on exit, SIGINT, SIGTERM). */
export async function releaseOwnResources(): Promise<void> {
  for (const record of ownRecords()) {
    if (record.resource.type === "process") removeProcessResource(record.resource);
    else await removeContainer(record.resource.containerId);
    unregister(record.id);
  }
}

let hooksInstalled = false;

/**
 * Installs the handlers that release this process's resources when it ends. On a plain exit the
 * handler cannot wait for Docker, so containers are left to a detached reaper process that
 * outlives us and removes them once this pid is gone.
 */
export function installShutdownHooks(): void {
  if (hooksInstalled) return;
  hooksInstalled = true;
  const onSignal = (sig: NodeJS.Signals) => {
    releaseOwnResources()
      .catch((error) => process.stderr.write(`db-write-lab: cleanup after ${sig} failed: ${String(error)}\n`))
      .finally(() => process.exit(sig === "SIGINT" ? 130 : 143));
  };
  // In a notebook kernel SIGINT is the Stop button: it ends the run (runtime/interrupt), not the
  // kernel. Adding a SIGINT listener here, inside a cell, is also what broke Node's SIGINT handler.
  if (!inKernel()) process.once("SIGINT", onSignal);
  process.once("SIGTERM", onSignal);
  process.once("SIGHUP", onSignal);
  process.on("exit", () => {
    let containersLeft = false;
    for (const record of ownRecords()) {
      if (record.resource.type === "process") {
        removeProcessResource(record.resource);
        unregister(record.id);
      } else {
        containersLeft = true;
      }
    }
    if (containersLeft) spawnDetachedReaper();
  });
}

function spawnDetachedReaper(): void {
  const script = path.join(__dirname, "..", "..", "scripts", "clean.js");
  if (!fs.existsSync(script)) return;
  const child = spawn(process.execPath, [script, "--wait-for-pid", String(process.pid), "--quiet"], {
    detached: true,
    stdio: "ignore",
  });
  child.unref();
}
